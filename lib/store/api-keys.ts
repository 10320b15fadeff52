import { createHash, randomBytes } from 'node:crypto';
import { store } from '#lib/store/entities.ts';

/** API keys (contract §1.2): only a SHA-256 hash of each key is stored, with a name and a scope. */
export type KeyScope = 'read' | 'write';
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
  if (result.canceled) throw new KeyNameTaken(`an API key named ${name} exists already (or the key itself is registered)`);
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

export async function findApiKey(key: string): Promise<ApiKeyInfo | undefined> {
  const { data } = await store().entities.apiKey.get({ hash: hashKey(key) }).go({ consistent: true });
  return data ? { name: data.name, scope: data.scope as KeyScope, createdAt: data.createdAt } : undefined;
}

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
  return true;
}
