import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, freePort, startDynamoLocal, type LocalDynamo } from '#lib/local/dynamodb.ts';
import { useDynamo } from '#lib/local/service.ts';
import { apiKeyCacheSize, clearApiKeyCache, createApiKey } from '#lib/store/api-keys.ts';
import { DYNAMODB_LIMITS, dynamoLimits } from '#lib/store/client.ts';

const TEST_TIMEOUT = process.env.LTS_DYNAMODB_REQUEST_TIMEOUT_MS;
import { call, doc, type CallResult } from '../support/api.ts';
import { expectError, header } from '../support/responses.ts';
import { WRITE_KEY } from '../support/store.ts';

/**
 * DynamoDB itself failing, for real: a DynamoDB Local of this file's own (on disk, so it can be stopped
 * and started again on the same port with its data), and a TCP server that accepts connections and never
 * answers. Every request must then be a 503 with Retry-After — not a 500, not a hang — and once DynamoDB
 * is back the same process must serve again by itself.
 */

const TABLE = 'outage';
let dynamo: LocalDynamo;
let port: number;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'lts-outage-'));
  port = await freePort();
  dynamo = await startDynamoLocal({ port, dataDir });
  await ensureTable(dynamo.endpoint, TABLE);
  useDynamo(dynamo.endpoint, TABLE);
  await createApiKey('test-write', 'write', WRITE_KEY);
}, 180_000);

afterAll(async () => {
  await dynamo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A 503 JSON:API error with Retry-After whose body says nothing about what failed inside. */
function expectUnavailable(res: CallResult): void {
  const error = expectError(res, 503, 'service_unavailable');
  expect(res.body.errors).toHaveLength(1);
  expect(error.title).toBe('Service unavailable');
  expect(Number(header(res, 'Retry-After'))).toBeGreaterThanOrEqual(1);
  const text = JSON.stringify(res.body);
  for (const internal of ['ECONN', 'TimeoutError', '127.0.0.1', String(port), 'DynamoDB', 'Electro', '\n', '.ts:']) expect(text).not.toContain(internal);
}

describe('DynamoDB unavailable', () => {
  it('stopped → 503 with Retry-After for reads and writes; started again on the same port → the same process serves again', async () => {
    const created = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'before-outage' }) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id;
    expect((await call('GET', `/api/v2/samples/${id}`)).status).toBe(200);

    await dynamo.stop();
    const started = performance.now();
    expectUnavailable(await call('GET', `/api/v2/samples/${id}`));
    expectUnavailable(await call('GET', '/api/v2/samples?include=studies'));
    expectUnavailable(await call('PATCH', `/api/v2/samples/${id}`, { body: doc('samples', { site_sample_id: 'during' }, undefined, id) }));
    expectUnavailable(await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'during-outage' }), headers: { 'idempotency-key': 'outage-1' } }));
    // With the key not cached, its lookup is what fails: still a 503 (not a 401), and nothing is cached.
    clearApiKeyCache();
    expectUnavailable(await call('GET', `/api/v2/samples/${id}`));
    expect(apiKeyCacheSize()).toBe(0);
    // A refused connection fails fast: the SDK's retries take well under a second each request.
    expect(performance.now() - started).toBeLessThan(10_000);

    dynamo = await startDynamoLocal({ port, dataDir });
    const back = await call('GET', `/api/v2/samples/${id}`);
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.data.attributes).toMatchObject({ name: 'before-outage', site_sample_id: null });
    // The idempotent POST refused during the outage acts now, once.
    const retried = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'during-outage' }), headers: { 'idempotency-key': 'outage-1' } });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const replayed = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'during-outage' }), headers: { 'idempotency-key': 'outage-1' } });
    expect(replayed.status).toBe(201);
    expect(replayed.body).toEqual(retried.body);
    expect((await call('GET', '/api/v2/samples?filter[name]=during-outage')).body.data).toHaveLength(1);
  }, 120_000);

  it('frozen (accepts connections, never answers) → 503 once the request timeout has passed on every attempt, well within 29 s', async () => {
    let connections = 0;
    const sockets = new Set<Socket>();
    const frozen = createServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    });
    frozen.listen(0, '127.0.0.1');
    await once(frozen, 'listening');
    try {
      // A fresh client and an empty key cache: the key lookup is the first call to hang.
      // The timeout in force on AWS (the test run raises it for its busy DynamoDB Local).
      process.env.LTS_DYNAMODB_REQUEST_TIMEOUT_MS = String(DYNAMODB_LIMITS.requestTimeoutMs);
      useDynamo(`http://127.0.0.1:${(frozen.address() as AddressInfo).port}`, TABLE);
      const { requestTimeoutMs, maxAttempts } = dynamoLimits();
      expect(requestTimeoutMs).toBe(DYNAMODB_LIMITS.requestTimeoutMs);
      const started = performance.now();
      const res = await call('GET', '/api/v2/samples');
      const elapsed = performance.now() - started;
      expectUnavailable(res);
      // Every attempt waited for the request timeout on a connection of its own, then gave up.
      expect(connections).toBe(maxAttempts);
      expect(elapsed).toBeGreaterThanOrEqual(maxAttempts * requestTimeoutMs - 50);
      expect(elapsed).toBeLessThan(maxAttempts * requestTimeoutMs + 3_000);
      expect(elapsed).toBeLessThan(29_000);
    } finally {
      process.env.LTS_DYNAMODB_REQUEST_TIMEOUT_MS = TEST_TIMEOUT;
      for (const socket of sockets) socket.destroy();
      frozen.close();
      useDynamo(dynamo.endpoint, TABLE);
    }
    expect((await call('GET', '/api/v2/samples')).status).toBe(200);
  }, 180_000);
});
