import { createHash, randomBytes } from 'node:crypto';
import { store } from '#lib/store/entities.ts';
import { CapacityError, capacityReason, THROTTLED_RETRY_AFTER_SECONDS } from '#lib/store/errors.ts';
import { ProcessCache } from '#lib/store/process-cache.ts';

/**
 * API keys (contract §1.2): only a SHA-256 hash of each key is stored, with a name and a scope. `write`
 * includes `read`; `admin` includes `write` and may also register reference data through the API (the
 * purposes a pipeline application registers, contract §6).
 */
export const KEY_SCOPES = ['read', 'write', 'admin'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export interface ApiKeyInfo {
  name: string;
  scope: KeyScope;
  createdAt: string;
}

const REALM = 'keys';
export const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');
export const generateKey = (): string => randomBytes(24).toString('base64url');

export class KeyNameTaken extends Error {}

/** Registers a key (generated unless given); fails if the name is taken. Returns the plaintext key, shown once. */
export async function createApiKey(name: string, scope: KeyScope, key: string = generateKey()): Promise<string> {
  const hash = hashKey(key);
  const createdAt = new Date().toISOString();
  const result = await store()
    .transaction.write(({ apiKey, apiKeyName }) => [
      apiKeyName.create({ realm: REALM, name, hash, scope, createdAt }).commit(),
      apiKey.create({ hash, name, scope, createdAt }).commit(),
    ])
    .go();
  if (result.canceled) {
    // A cancellation for throttling says nothing about the name: retry later.
    if ((result.data as { code: string }[]).some((reason) => capacityReason(reason.code))) {
      throw new CapacityError('DynamoDB throttled the key registration', THROTTLED_RETRY_AFTER_SECONDS);
    }
    throw new KeyNameTaken(`an API key named ${name} exists already (or the key itself is registered)`);
  }
  // This process may have cached the key as unknown; other processes learn of it within the cache's TTL.
  forget(hash);
  return key;
}

/** Makes sure a key with exactly this value exists with this scope (local development keys). */
export async function ensureApiKey(name: string, scope: KeyScope, key: string): Promise<void> {
  const existing = await findApiKey(key);
  if (existing?.scope === scope) return;
  if (existing) await revokeApiKey(existing.name);
  if ((await listApiKeys()).some((k) => k.name === name)) await revokeApiKey(name);
  await createApiKey(name, scope, key);
}

/** Looks a key up in the table, always (administration; requests use authenticateKey). */
export async function findApiKey(key: string): Promise<ApiKeyInfo | undefined> {
  return lookup(hashKey(key));
}

async function lookup(hash: string): Promise<ApiKeyInfo | undefined> {
  const { data } = await store().entities.apiKey.get({ hash }).go({ consistent: true });
  return data ? { name: data.name, scope: data.scope as KeyScope, createdAt: data.createdAt } : undefined;
}

/**
 * Lookups of request keys are cached per process (per warm Lambda container) for at most this long,
 * known keys and unknown ones alike, so a warm request makes no DynamoDB call to authenticate. A key
 * revoked (or created) by another process therefore takes effect here within this time.
 */
export const API_KEY_CACHE_TTL_MS = 60_000;
/** At most this many lookups are kept; past it the least recently used is dropped. */
export const API_KEY_CACHE_SIZE = 1_000;

/** By key hash (never the key itself): the lookup's answer. */
const cache = new ProcessCache<ApiKeyInfo | undefined>(API_KEY_CACHE_TTL_MS, API_KEY_CACHE_SIZE);
const forget = (hash?: string) => cache.forget(hash);

/**
 * The key's name and scope, or undefined for an unknown key, from the cache when a lookup of it is less
 * than API_KEY_CACHE_TTL_MS old. A failed lookup (DynamoDB unavailable) is not cached.
 */
export async function authenticateKey(key: string): Promise<ApiKeyInfo | undefined> {
  const hash = hashKey(key);
  const hit = cache.get(hash);
  if (hit) return hit.value;
  const ticket = cache.ticket();
  const info = await lookup(hash);
  cache.keep(hash, info, ticket);
  return info;
}

/** Forgets every cached key lookup: the next request with any key reads the table (tests, switching tables). */
export function clearApiKeyCache(): void {
  forget();
}

/** How many key lookups are cached (tests). */
export const apiKeyCacheSize = (): number => cache.count;

export async function listApiKeys(): Promise<ApiKeyInfo[]> {
  const { data } = await store().entities.apiKeyName.query.byName({ realm: REALM }).go({ consistent: true, pages: 'all' });
  return data.map((k) => ({ name: k.name, scope: k.scope as KeyScope, createdAt: k.createdAt }));
}

/** Revokes a key by name; returns false when there is no such key. */
export async function revokeApiKey(name: string): Promise<boolean> {
  const { data } = await store().entities.apiKeyName.get({ realm: REALM, name }).go({ consistent: true });
  if (!data) return false;
  await store()
    .transaction.write(({ apiKey, apiKeyName }) => [apiKeyName.delete({ realm: REALM, name }).commit(), apiKey.delete({ hash: data.hash }).commit()])
    .go();
  // Refused at once by this process; other processes (warm Lambdas, a running `npm start`) within API_KEY_CACHE_TTL_MS.
  forget(data.hash);
  return true;
}
