import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import { ensureTable, startDynamoLocal, type LocalDynamo } from '#lib/local/dynamodb.ts';
import { defaultReferenceData, useDynamo } from '#lib/local/service.ts';
import { loadReferenceData } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { createApiKey } from '#lib/store/api-keys.ts';
import { dynamo, dynamoLimits } from '#lib/store/client.ts';
import { call, doc, warmKeyCache, type CallResult } from '../support/api.ts';
import { aliquotDoc, createPlate, createSample, recordCount, uniqueName } from '../support/fixtures.ts';
import { expectError, header } from '../support/responses.ts';
import { tableSnapshot } from '../support/table.ts';
import { READ_KEY, WRITE_KEY } from '../support/store.ts';

/**
 * Every request has a deadline (LTS_REQUEST_BUDGET_MS): a DynamoDB that accepts connections and never
 * answers — a DynamoDB Local of this file's own, its Java process stopped with SIGSTOP — must not hold a
 * request past it. Every request then answers 503 with Retry-After, and nothing partial is left: a write
 * whose transaction was cut off may or may not have committed, and its retry under the same
 * Idempotency-Key applies it exactly once. Once DynamoDB runs again (SIGCONT) the same process serves again.
 *
 * The budget is 2 s here, the per-call timeout the test run's 30 s: without the deadline each of these
 * requests would wait at least 30 s. The margin allowed past the budget is generous (a loaded machine).
 */

const BUDGET_MS = 2_000;
const MARGIN_MS = 10_000;
const TABLE = 'deadline';

let local: LocalDynamo;

/** Whether every thread of a process has stopped (Linux's /proc; elsewhere taken on trust). */
function stopped(pid: number): boolean {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return true;
  // A thread's state is the field after its name (in parentheses, and which may hold any character): `T` when stopped.
  return readdirSync(tasks).every((tid) => {
    const file = `${tasks}/${tid}/stat`;
    // A thread that ended since the listing runs no more.
    if (!existsSync(file)) return true;
    const stat = readFileSync(file, 'utf8');
    return stat[stat.lastIndexOf(') ') + 2] === 'T';
  });
}

/**
 * Stops DynamoDB Local and waits until it has: the kernel applies SIGSTOP to each thread as it next runs,
 * and on a loaded machine a thread already at work may still answer a request sent the moment after.
 */
async function freeze(): Promise<void> {
  process.kill(local.pid!, 'SIGSTOP');
  while (!stopped(local.pid!)) await new Promise((resolve) => setTimeout(resolve, 1));
}
const thaw = () => process.kill(local.pid!, 'SIGCONT');

beforeAll(async () => {
  local = await startDynamoLocal();
  await ensureTable(local.endpoint, TABLE);
  useDynamo(local.endpoint, TABLE);
  await loadReferenceData(registry, defaultReferenceData());
  await createApiKey('test-write', 'write', WRITE_KEY);
  await createApiKey('test-read', 'read', READ_KEY);
  process.env.LTS_REQUEST_BUDGET_MS = String(BUDGET_MS);
  resetConfig();
}, 180_000);

const RUN_BUDGET = process.env.LTS_REQUEST_BUDGET_MS;
afterAll(async () => {
  process.env.LTS_REQUEST_BUDGET_MS = RUN_BUDGET;
  resetConfig();
  if (local?.pid) thaw();
  await local?.stop();
});
// A failed test must not leave DynamoDB stopped for the next.
afterEach(() => thaw());

/** Runs `request` and answers with its response and how long it took. */
async function timed(request: () => Promise<CallResult>): Promise<{ res: CallResult; ms: number }> {
  const started = performance.now();
  const res = await request();
  return { res, ms: performance.now() - started };
}

/** A 503 JSON:API error with Retry-After, answered within the budget (and the margin). */
function expectUnavailableInTime({ res, ms }: { res: CallResult; ms: number }, what: string): any {
  const error = expectError(res, 503, 'service_unavailable');
  expect(Number(header(res, 'Retry-After')), what).toBeGreaterThanOrEqual(1);
  expect(ms, what).toBeLessThan(BUDGET_MS + MARGIN_MS);
  return error;
}

const postSample = (name: string, key: string) => call('POST', '/api/v2/samples', { body: doc('samples', { name }), headers: { 'idempotency-key': key } });

describe('DynamoDB frozen (SIGSTOP): every request answers 503 within its budget', () => {
  it('reads, writes and a key lookup, all at once; nothing is written; after SIGCONT the retries each act once and the service serves', async () => {
    expect(dynamoLimits().requestTimeoutMs).toBeGreaterThanOrEqual(30_000);
    const sample = await createSample();
    const plate = await createPlate();
    const other = await createSample();
    await warmKeyCache();
    const before = await tableSnapshot();
    const names = [uniqueName('frozen'), uniqueName('frozen')];
    const keys = names.map((name) => `key-${name}`);

    await freeze();
    const answers = await Promise.all([
      timed(() => call('GET', `/api/v2/samples/${sample.id}`)),
      timed(() => call('GET', '/api/v2/samples?include=sample_metadata')),
      timed(() => call('GET', `/api/v2/plates/${plate.id}?include=wells.aliquots`)),
      // The read key is not cached: its lookup is the call that hangs.
      timed(() => call('GET', `/api/v2/samples/${sample.id}`, { key: READ_KEY })),
      timed(() => postSample(names[0]!, keys[0]!)),
      timed(() => postSample(names[1]!, keys[1]!)),
      timed(() => call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { site_sample_id: 'frozen' }, undefined, sample.id) })),
      timed(() =>
        call('POST', '/api/v2/aliquots', { body: aliquotDoc({ type: 'wells', id: `${plate.id}001` }, other.id), headers: { 'idempotency-key': 'aliquot' } }),
      ),
    ]);
    thaw();
    for (const [i, answer] of answers.entries()) expectUnavailableInTime(answer, `request ${i}`);

    // Nothing was written (id sequences aside: a refused write may have reserved an id, contract §1.3).
    expect(await tableSnapshot()).toEqual(before);
    // The same process serves again; each retry acts once.
    for (const [i, name] of names.entries()) {
      const retried = await postSample(name, keys[i]!);
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expect((await postSample(name, keys[i]!)).body).toEqual(retried.body);
      expect((await call('GET', `/api/v2/samples?filter[name]=${name}`)).body.data).toHaveLength(1);
    }
    const patched = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { site_sample_id: 'frozen' }, undefined, sample.id) });
    expect(patched.status).toBe(200);
    const aliquot = await call('POST', '/api/v2/aliquots', {
      body: aliquotDoc({ type: 'wells', id: `${plate.id}001` }, other.id),
      headers: { 'idempotency-key': 'aliquot' },
    });
    expect(aliquot.status, JSON.stringify(aliquot.body)).toBe(201);
    expect((await call('GET', `/api/v2/samples/${sample.id}`, { key: READ_KEY })).status).toBe(200);
  }, 120_000);

  it('frozen while a write commits: 503 saying the write may or may not have been applied; its retry applies it exactly once, whole', async () => {
    const name = uniqueName('in-flight');
    const key = `key-${name}`;
    const counts = { samples: await recordCount('samples'), sample_metadata: await recordCount('sample_metadata') };
    // DynamoDB stops the moment the transaction is sent: it may have received it, or not.
    let frozen = false;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (!frozen && context.commandName === 'TransactWriteItemsCommand') {
          frozen = true;
          await freeze();
        }
        return next(args);
      },
      { step: 'finalizeRequest', name: 'freezeAtCommit' },
    );
    try {
      const answer = await timed(() => postSample(name, key));
      expect(frozen).toBe(true);
      const error = expectUnavailableInTime(answer, 'a write cut off in its commit');
      expect(error.detail).toContain('may or may not have been');
      expect(error.detail).toContain('Idempotency-Key');
    } finally {
      dynamo().middlewareStack.remove('freezeAtCommit');
      thaw();
    }

    const retried = await postSample(name, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect((await postSample(name, key)).body).toEqual(retried.body);
    const stored = await call('GET', `/api/v2/samples?filter[name]=${name}&include=sample_metadata`);
    expect(stored.body.data).toHaveLength(1);
    expect(stored.body.data[0].id).toBe(retried.body.data.id);
    // The sample and its metadata record, never one without the other.
    expect(stored.body.included.filter((r: any) => r.type === 'sample_metadata')).toHaveLength(1);
    expect(await recordCount('samples')).toBe(counts.samples + 1);
    expect(await recordCount('sample_metadata')).toBe(counts.sample_metadata + 1);
  }, 120_000);
});
