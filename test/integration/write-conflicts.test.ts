import { describe, expect, it } from 'vitest';
import { call, type CallResult } from '../support/api.ts';
import { inBatches, uniqueName } from '../support/fixtures.ts';
import { storeWithFaults, type FaultKind } from '../support/faults.ts';
import { withRequestBudget } from '../support/request-budget.ts';
import { expectError, header, pathOf } from '../support/responses.ts';
import { tableSnapshot } from '../support/table.ts';
import { asStored, send, successOf, WRITES, type Write } from '../support/writes.ts';

/**
 * Transaction conflicts and latency during every kind of write (test/support/writes.ts; faults.test.ts
 * checks the table against the route table). DynamoDB Local serialises transactions, so the moment another
 * transaction holds an item, or changes a record between this write's read and its commit, is injected
 * (test/support/faults.ts): a TransactWriteItems cancelled for TransactionConflict, or for
 * ConditionalCheckFailed on the version of a record the write changes. Slow answers are injected too.
 *
 * A conflict that passes is retried from fresh reads and the write succeeds once; one that never passes
 * is a 409 `concurrent_update` (never a 500), with nothing written. Each write meets the conflict it most
 * plausibly meets (conflictOf); one representative meets both (the engine handles both alike). A replay of a success under the same
 * Idempotency-Key answers as the first time.
 */

const CONFLICT: FaultKind = 'TransactionCanceled:TransactionConflict';
const CHANGED: FaultKind = 'TransactionCanceled:ConditionalCheckFailed';
/** The write that meets both kinds of conflict, transient and persistent. */
const REPRESENTATIVE = 'POST transfers (a stamp)';

/**
 * The conflict a write most plausibly meets: a record it read changed meanwhile where it changes one,
 * else another transaction on one of its items (a unique value's guard, a new record's key).
 */
const conflictOf = (name: string): FaultKind => (WRITES[name]!.changesExisting ? CHANGED : CONFLICT);
const conflictsOf = (name: string): FaultKind[] => (name === REPRESENTATIVE ? [CONFLICT, CHANGED] : [conflictOf(name)]);

const faults = storeWithFaults();

const answer = (res: CallResult) => ({ status: res.status, body: res.body, location: header(res, 'Location') });

/** A success, committed: the write's status, and its primary record reads back as the answer rendered it. */
async function expectCommitted(res: CallResult, write: Write, what: string): Promise<void> {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(successOf(write));
  if (!res.body.links?.self) return; // an action's array of records
  const read = await call('GET', pathOf(res.body.links.self));
  expect(read.body.data, what).toEqual(asStored(res.body.data));
}

describe('every write: a conflict that passes is retried and the write succeeds once; its replay answers the same', () => {
  it.each(Object.keys(WRITES))('%s', async (name) => {
    for (const kind of conflictsOf(name)) {
      const write = await WRITES[name]!.make();
      const key = { 'idempotency-key': uniqueName('idem') };
      faults.arm('TransactWriteItems', kind, { times: 1 });
      const first = await send(write, key);
      faults.disarm();
      expect(faults.fired, `${name}: ${kind} did not fire`).toBe(1);
      await expectCommitted(first, write, `${name} after ${kind}`);
      // That a replay does not act again is proven on the whole table in faults.test.ts.
      expect(answer(await send(write, key)), `${name}: replay`).toEqual(answer(first));
    }
  });
});

describe('every write: a conflict that never passes → 409 concurrent_update within the request budget, nothing written', () => {
  // The engine retries a conflict until a quarter of the budget is left: a budget of its own bounds the
  // test's time, and leaves the last attempt (all writes run at once, on a possibly loaded machine) 5 s.
  const BUDGET_MS = 20_000;
  withRequestBudget(BUDGET_MS);

  // All writes at once, each against the same persistent fault.
  it.each([CONFLICT, CHANGED])(
    '%s',
    async (kind) => {
      const names = Object.keys(WRITES).filter((name) => conflictsOf(name).includes(kind));
      const writes = await inBatches(names.length, 4, (i) => WRITES[names[i]!]!.make());
      const before = await tableSnapshot();
      faults.arm('TransactWriteItems', kind);
      const started = performance.now();
      const answers = await Promise.all(writes.map((write) => send(write).then((res) => ({ res, ms: performance.now() - started }))));
      faults.disarm();
      // Each write tried again (for as long as its window lasted), then gave up within its budget.
      expect(faults.fired).toBeGreaterThan(writes.length * 2);
      for (const [i, { res, ms }] of answers.entries()) {
        expect(res.status, `${names[i]}: ${JSON.stringify(res.body)}`).toBe(409);
        expectError(res, 409, 'concurrent_update');
        expect(ms, names[i]).toBeLessThan(BUDGET_MS);
      }
      expect(await tableSnapshot()).toEqual(before);
      // The other writer gone, each write goes through.
      await inBatches(writes.length, 8, async (i) => expectCommitted(await send(writes[i]!), writes[i]!, `${names[i]} once the conflict is over`));
    },
    120_000,
  );
});

it('every write, with every DynamoDB call 20 ms late, has the same outcome', async () => {
  const names = Object.keys(WRITES);
  const writes = await inBatches(names.length, 4, (i) => WRITES[names[i]!]!.make());
  faults.arm('*', 'Latency', { delayMs: 20 });
  const answers = await Promise.all(writes.map((write) => send(write)));
  faults.disarm();
  expect(faults.fired).toBeGreaterThan(names.length);
  for (const [i, res] of answers.entries()) await expectCommitted(res, writes[i]!, `${names[i]} with latency`);
});
