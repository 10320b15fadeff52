import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  API_KEY_CACHE_SIZE,
  API_KEY_CACHE_TTL_MS,
  apiKeyCacheSize,
  authenticateKey,
  clearApiKeyCache,
  createApiKey,
  hashKey,
  KeyNameTaken,
  revokeApiKey,
} from '#lib/store/api-keys.ts';
import { CapacityError } from '#lib/store/errors.ts';
import { store } from '#lib/store/entities.ts';
import { call, warmKeyCache } from '../support/api.ts';
import { injectFaults } from '../support/faults.ts';
import { createSample } from '../support/fixtures.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/**
 * API key lookups are cached per process (per warm Lambda) for at most 60 s, known and unknown keys alike,
 * so a revocation made by another process (the admin command line) takes effect within a minute. Time is
 * moved with fake timers (Date only: the SDK's own timers stay real), never by waiting.
 */

let sampleId: string;

beforeAll(async () => {
  await freshStore();
  sampleId = (await createSample()).id;
});

afterEach(() => {
  vi.useRealTimers();
});

/** Deletes a key's items directly, as `keys revoke` run by the admin command line in another process does (no eviction here). */
async function revokeElsewhere(name: string, key: string): Promise<void> {
  await store()
    .transaction.write(({ apiKey, apiKeyName }) => [apiKeyName.delete({ realm: 'keys', name }).commit(), apiKey.delete({ hash: hashKey(key) }).commit()])
    .go();
}

/** Registers a key directly, as `keys create` in another process does (no eviction here). */
async function createElsewhere(name: string, key: string): Promise<void> {
  const createdAt = new Date().toISOString();
  await store()
    .transaction.write(({ apiKey, apiKeyName }) => [
      apiKeyName.create({ realm: 'keys', name, hash: hashKey(key), scope: 'write', createdAt }).commit(),
      apiKey.create({ hash: hashKey(key), name, scope: 'write', createdAt }).commit(),
    ])
    .go();
}

const getSample = (key: string) => call('GET', `/api/v2/samples/${sampleId}`, { key });

describe('API key cache', () => {
  it('a warm item GET makes no API key call: one DynamoDB call fewer than a cold one', async () => {
    clearApiKeyCache();
    const cold = await getSample('test-write-key-0123456789');
    const warm = await getSample('test-write-key-0123456789');
    expect(cold.status).toBe(200);
    expect(warm.status).toBe(200);
    expect(warm.calls).toBe(cold.calls - 1);
    // The item GET is then a single read of the sample.
    expect(warm.calls).toBe(1);
  });

  it('a key revoked by another process keeps working until the cached lookup is 60 s old, then is refused', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const key = 'revoked-elsewhere-key-0123456789';
    await createApiKey('revoked-elsewhere', 'write', key);
    expect((await getSample(key)).status).toBe(200);
    await revokeElsewhere('revoked-elsewhere', key);

    expect((await getSample(key)).status).toBe(200);
    vi.setSystemTime(Date.now() + API_KEY_CACHE_TTL_MS - 1_000);
    const stillCached = await getSample(key);
    expect(stillCached.status).toBe(200);
    expect(stillCached.calls).toBe(1);

    vi.setSystemTime(Date.now() + 1_000);
    expectError(await getSample(key), 401, 'unauthorized');
    // A write with it is refused too, before anything else is looked at.
    expectError(await call('POST', '/api/v2/samples', { key, body: { data: { type: 'samples', attributes: {} } } }), 401, 'unauthorized');
  });

  it('a key revoked in this process (admin command line, npm start) is refused at once', async () => {
    const key = 'revoked-here-key-0123456789';
    await createApiKey('revoked-here', 'write', key);
    expect((await getSample(key)).status).toBe(200);
    expect(await revokeApiKey('revoked-here')).toBe(true);
    expectError(await getSample(key), 401, 'unauthorized');
  });

  it('an unknown key is cached as unknown too: registered by another process, it works within 60 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const key = 'created-elsewhere-key-0123456789';
    const unknown = await getSample(key);
    expectError(unknown, 401, 'unauthorized');
    // The second refusal costs no DynamoDB call.
    const again = await getSample(key);
    expectError(again, 401, 'unauthorized');
    expect(again.calls).toBe(0);

    await createElsewhere('created-elsewhere', key);
    expectError(await getSample(key), 401, 'unauthorized');
    vi.setSystemTime(Date.now() + API_KEY_CACHE_TTL_MS);
    expect((await getSample(key)).status).toBe(200);
  });

  it('a key created in this process works at once, even if it was tried (and cached as unknown) before', async () => {
    const key = 'created-here-key-0123456789';
    expectError(await getSample(key), 401, 'unauthorized');
    await createApiKey('created-here', 'read', key);
    expect((await getSample(key)).status).toBe(200);
  });

  it(`keeps at most ${API_KEY_CACHE_SIZE} lookups, dropping the least recently used`, async () => {
    // The clock stands still: a thousand lookups may take over a minute on a loaded machine, and none may expire meanwhile.
    vi.useFakeTimers({ toFake: ['Date'] });
    await warmKeyCache();
    const unknown = (i: number) => `unknown-key-${i}-0123456789`;
    // unknown(0) first on its own, so it is the oldest; the rest 50 at a time.
    await authenticateKey(unknown(0));
    for (let start = 1; start < API_KEY_CACHE_SIZE - 1; start += 50) {
      await Promise.all(Array.from({ length: Math.min(50, API_KEY_CACHE_SIZE - 1 - start) }, (_, i) => authenticateKey(unknown(start + i))));
    }
    expect(apiKeyCacheSize()).toBe(API_KEY_CACHE_SIZE);
    // Using the test key makes it the most recently used; the next new lookup drops the oldest unknown key instead.
    expect((await getSample('test-write-key-0123456789')).calls).toBe(1);
    await authenticateKey(unknown(API_KEY_CACHE_SIZE));
    expect(apiKeyCacheSize()).toBe(API_KEY_CACHE_SIZE);
    expect((await getSample('test-write-key-0123456789')).calls).toBe(1);
    // The others are still cached (no call); the dropped one is looked up again (one call).
    expect((await getSample(unknown(API_KEY_CACHE_SIZE - 2))).calls).toBe(0);
    expect((await getSample(unknown(0))).calls).toBe(1);
  });

  it('registering a key while DynamoDB throttles the transaction is a capacity fault, not "name taken"', async () => {
    const faults = injectFaults();
    try {
      faults.arm('TransactWriteItems', 'TransactionCanceled:ThrottlingError');
      await expect(createApiKey('throttled', 'read', 'throttled-key-0123456789')).rejects.toBeInstanceOf(CapacityError);
      faults.disarm();
      await createApiKey('throttled', 'read', 'throttled-key-0123456789');
      await expect(createApiKey('throttled', 'read')).rejects.toBeInstanceOf(KeyNameTaken);
    } finally {
      faults.remove();
    }
  });
});
