import { describe, expect, it } from 'vitest';
import type { CallResult } from '../support/api.ts';
import { uniqueName } from '../support/fixtures.ts';
import { storeWithFaults, type FaultKind } from '../support/faults.ts';
import { expectError, header } from '../support/responses.ts';
import { tableSnapshot } from '../support/table.ts';
import { routeWrites, send, successOf, writeOf, WRITES, type Write } from '../support/writes.ts';

/**
 * Capacity faults and timeouts during every kind of write the API serves (test/support/writes.ts, checked
 * against the route table): DynamoDB throttling (ThrottlingException, ProvisionedThroughputExceededException,
 * a transaction cancelled for ThrottlingError) and timeouts before and after the commit. These are mocked
 * (test/support/faults.ts) only because DynamoDB Local cannot produce them: it never throttles and always
 * answers. Real outages — DynamoDB stopped, restarted, frozen — are in outage.test.ts; conflicts and
 * latency in write-conflicts.test.ts.
 *
 * For each write, a fault is injected into each operation the write actually uses (found by running the
 * same write once without faults): every kind into every operation of one representative write, one kind
 * per operation (in turn) for the others, and always a timeout and a throttled cancellation into the
 * commit (TransactWriteItems). Each time the answer must be a 503 with Retry-After and a JSON:API error
 * revealing no internals, and the table must be exactly as before. Then the client's retry with the same
 * Idempotency-Key commits but its answer is lost to a timeout (a 503 after the commit): the next retries
 * do not act again and answer alike. (A replay after a plain success is in write-conflicts.test.ts.)
 */

const OPERATIONS = ['TransactWriteItems', 'UpdateItem', 'BatchGetItem', 'GetItem', 'Query', 'PutItem', 'BatchWriteItem', 'DeleteItem'];
const SDK_FAULTS: FaultKind[] = ['ThrottlingException', 'ProvisionedThroughputExceededException', 'TimeoutError'];
/** Every fault into the commit: a timeout before it, and a cancellation for throttling. */
const COMMIT_FAULTS: FaultKind[] = ['TimeoutError', 'TransactionCanceled:ThrottlingError'];
/** The write that gets every kind of fault in every operation: a stamp reads, reserves ids and commits most kinds of item. */
const REPRESENTATIVE = 'POST transfers (a stamp)';

const faults = storeWithFaults();

it('covers every POST, PATCH and action of the route table', () => {
  expect([...new Set(Object.keys(WRITES).map(writeOf))].sort()).toEqual(routeWrites().sort());
});

/** A 503 JSON:API error with Retry-After whose body reveals nothing of what failed inside. */
function expectUnavailable(res: CallResult, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(503);
  const error = expectError(res, 503, 'service_unavailable');
  expect(res.body.errors).toHaveLength(1);
  expect(error.title).toBe('Service unavailable');
  expect(Number(header(res, 'Retry-After')), what).toBeGreaterThanOrEqual(1);
  const text = JSON.stringify(res.body);
  for (const internal of ['Throttl', 'Throughput', 'Transaction', 'Timeout', 'INJECTED', 'DynamoDB', 'Electro', '\n', '.ts:'])
    expect(text, what).not.toContain(internal);
}

const expectSuccess = (res: CallResult, write: Write, what: string) => expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(successOf(write));

/** The answer a replay must repeat: status, body and Location. */
const answer = (res: CallResult) => ({ status: res.status, body: res.body, location: header(res, 'Location') });

/** The operations (of OPERATIONS) a successful run of the write uses. */
async function operationsOf(make: () => Promise<Write>): Promise<string[]> {
  const write = await make();
  faults.resetSeen();
  const res = await send(write);
  expectSuccess(res, write, 'fault-free run');
  return OPERATIONS.filter((op) => faults.seen.includes(op));
}

/** The faults to inject into each operation of a write: see the file's comment. */
function plan(name: string, operations: string[]): [string, FaultKind][] {
  const turn = Object.keys(WRITES).indexOf(name);
  return operations.flatMap((operation, i): [string, FaultKind][] => {
    if (operation === 'TransactWriteItems') return COMMIT_FAULTS.map((kind) => [operation, kind]);
    const kinds = name === REPRESENTATIVE ? SDK_FAULTS : [SDK_FAULTS[(turn + i) % SDK_FAULTS.length]!];
    return kinds.map((kind) => [operation, kind]);
  });
}

describe('every write: a capacity fault or timeout in any DynamoDB call → 503, nothing written; the retry acts once', () => {
  it.each(Object.keys(WRITES))('%s', async (name) => {
    const { make } = WRITES[name]!;
    const operations = await operationsOf(make);
    expect(operations).toContain('TransactWriteItems');

    const write = await make();
    const key = { 'idempotency-key': uniqueName('idem') };
    const before = await tableSnapshot();
    for (const [operation, kind] of plan(name, operations)) {
      faults.arm(operation, kind);
      const res = await send(write, key);
      faults.disarm();
      expect(faults.fired, `${name}: ${operation} was not called`).toBeGreaterThan(0);
      expectUnavailable(res, `${name} with ${kind} on ${operation}`);
    }
    expect(await tableSnapshot(), `${name}: a refused attempt wrote something`).toEqual(before);

    // The client retries with the same key; this time the commit succeeds, but its answer is lost to a timeout.
    faults.arm('TransactWriteItems', 'TimeoutError:after');
    expectUnavailable(await send(write, key), `${name} with its answer lost`);
    faults.disarm();
    const committed = await tableSnapshot();
    expect(committed).not.toEqual(before);
    // It retries again: the write is not done twice, and every later replay answers the same.
    const retry = await send(write, key);
    expectSuccess(retry, write, `${name} retried`);
    expect(answer(await send(write, key))).toEqual(answer(retry));
    expect(await tableSnapshot(), `${name}: a retry acted again`).toEqual(committed);
  });
});
