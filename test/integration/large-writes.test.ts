import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import {
  ITEM_SIZE_LIMIT,
  LARGE_WRITE_ITEM_LIMIT,
  MAX_POLY_METADATA_PER_WRITE,
  mostInOneTransaction,
  POLY_METADATUM_ITEMS,
  polyMetadataItems,
  TRANSACTION_ITEM_LIMIT,
} from '#lib/domain/budgets.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import { registry } from '#lib/resources/index.ts';
import { dynamo, killProcessAfter } from '#lib/store/client.ts';
import { TooLargeError } from '#lib/store/errors.ts';
import { getRecords, recordKey } from '#lib/store/records.ts';
import { recoverTransactions, settle } from '#lib/store/recovery.ts';
import { readOpenEntries } from '#lib/store/tx-items.ts';
import { startSweeper } from '#lib/local/sweeper.ts';
import { createSweeper } from '../../functions/events/sweeper.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { recordBytes } from '#lib/store/write-plan.ts';
import { call, warmKeyCache } from '../support/api.ts';
import { createPlate, type Linkage, recordCount, uniqueName } from '../support/fixtures.ts';
import { expectError } from '../support/responses.ts';
import { WAIT_MS } from '../support/limits.ts';
import { commandsOf, commitPointOf, metadataOn } from '../support/large-writes.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused, scanWhere, tableSnapshot } from '../support/table.ts';

/**
 * Writes larger than one DynamoDB transaction (contract §7.1; lib/store/large-write.ts), driven through
 * `poly_metadata/bulk_create`: 400 metadata are 1,600 records and index entries, 17 stage transactions.
 * Each is one write: readers never see part of one, a crash between any two of its calls is completed or
 * undone by recovery leaving nothing behind, a retry under its Idempotency-Key finishes it or answers as
 * it did, conflicting ones end with exactly one winner. The process crash is the store's own test seam
 * (killProcessAfter: the calls after the n-th never reach DynamoDB Local); everything else is the real store.
 */

beforeAll(freshStore);

const LAB_SIZE = 400;
const BULK = '/api/v2/poly_metadata/bulk_create';
/** Far past any write's expiry: recovery then ends every write left open. */
const LATER = () => Date.now() + 60 * 60_000;

const bulk = (entries: unknown[], headers: Record<string, string> = {}) => call('POST', BULK, { body: { data: entries }, headers });

/** Wells to hang metadata on, each the first well of a new plate (a plate's wells' metadata are read together: lib/resources/poly-metadata.ts). */
async function wells(count: number): Promise<Linkage[]> {
  const plates = await Promise.all(Array.from({ length: count }, () => createPlate()));
  return plates.map((plate) => ({ type: 'wells', id: String(slotId(Number(plate.id), 1)) }));
}

/** The metadata a reader finds on a well by filter (one Query of index entries, then the records). */
async function filteredOn(well: Linkage): Promise<any[]> {
  const res = await call('GET', `/api/v2/poly_metadata?filter[metadatable_id]=${well.id}&page[size]=500`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.meta.record_count).toBe(res.body.data.length);
  return res.body.data;
}

/** Every item some large write left: a mark on a record or entry, its own items, an open entry. */
const leftovers = () =>
  scanWhere({
    FilterExpression: 'attribute_exists(#tx) OR attribute_exists(#image) OR begins_with(#pk, :own) OR #pk = :open',
    ExpressionAttributeNames: { '#tx': 'tx', '#image': 'txImage', '#pk': 'pk' },
    ExpressionAttributeValues: { ':own': '$lts#tx', ':open': '$lts#open_txs' },
  });

/** The created events of the given metadata keys in the outbox. */
const createdEventsOf = async (keys: ReadonlySet<string>) =>
  (await outboxEvents()).filter((e) => e.type === 'poly_metadata.created' && keys.has(e.data.attributes.key));

/**
 * The table as a committed write or none left it: without id sequences (a refused write may skip ids)
 * and without payload chunk items (written before the commit; a write undone leaves them to expire with
 * their TTL, and no request item names them: lib/store/request-payload.ts).
 */
const contentSnapshot = async () => (await tableSnapshot()).filter((item) => !item.includes('"__edb_e__":"requestChunk"'));

describe('a write of a lab’s size (400 poly metadata: 1,600 items)', () => {
  it('is one write: 201 with all of them, each readable, the count up by 400, one event each, nothing of the protocol left', async () => {
    const [well] = await wells(1);
    const countBefore = await recordCount('poly_metadata');
    const prefix = uniqueName('lab');
    const res = await bulk(metadataOn(well!, LAB_SIZE, prefix));
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    expect(res.body.data).toHaveLength(LAB_SIZE);
    const ids = res.body.data.map((m: any) => m.id).sort();
    expect((await filteredOn(well!)).map((m) => m.id).sort()).toEqual(ids);
    const related = await call('GET', `/api/v2/wells/${well!.id}/poly_metadata?page[size]=500`);
    expect(related.body.data.map((m: any) => m.id).sort()).toEqual(ids);
    for (const metadatum of [res.body.data[0], res.body.data.at(-1)]) {
      expect((await call('GET', `/api/v2/poly_metadata/${metadatum.id}`)).body.data).toEqual(metadatum);
    }
    expect(await recordCount('poly_metadata')).toBe(countBefore + LAB_SIZE);
    const events = await createdEventsOf(new Set(res.body.data.map((m: any) => m.attributes.key)));
    expect(events.map((e) => e.resource.id).sort()).toEqual(ids);
    expect(await leftovers()).toEqual([]);
  });

  it('a write that fits one transaction is sent as before: one TransactWriteItems, no mark, no protocol item', async () => {
    // Metadata on one well: besides them, one audit entry, its plate's (docs/decisions.md, "Audit trail").
    const onOneWell = (metadata: number) => polyMetadataItems(metadata) + 1;
    const fits = mostInOneTransaction(onOneWell);
    const [well] = await wells(1);
    await warmKeyCache();
    const { result, commands: seen } = await commandsOf(() => bulk(metadataOn(well!, fits, uniqueName('small'))));
    expect(result.status).toBe(201);
    const transactions = seen.filter((c) => c.op === 'TransactWriteItems');
    expect(transactions).toHaveLength(1);
    const items = transactions[0]!.input.TransactItems as any[];
    // fits × (record + 3 index items) + the request item + one count shard + the plate's audit entry.
    expect(items).toHaveLength(onOneWell(fits));
    expect(onOneWell(fits + 1)).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    for (const item of items) expect(JSON.stringify(item)).not.toMatch(/"tx"|\$lts#tx|open_txs/);
    // Besides its reads: the id reservation and the one transaction.
    expect(seen.map((c) => c.op).filter((op) => op !== 'BatchGetItem' && op !== 'Query')).toEqual(['UpdateItem', 'TransactWriteItems']);
  });
});

describe('a crash between any two DynamoDB calls of a large write', () => {
  /** The write's calls, counted once uninterrupted, and which of them is its commit point. */
  let calls: number;
  let commitAt: number;

  beforeAll(async () => {
    // In a table of its own, the key lookup cached (as every run below finds it).
    await freshStore();
    const [well] = await wells(1);
    await warmKeyCache();
    const { result, commands } = await commandsOf(() => bulk(metadataOn(well!, LAB_SIZE, 'whole')));
    expect(result.status).toBe(201);
    expect(result.calls).toBe(commands.length);
    calls = commands.length;
    commitAt = commitPointOf(commands);
    expect(commitAt).toBeGreaterThan(1);
  });

  /**
   * Kills the write after its n-th call, in a fresh table, then runs recovery past the write's expiry;
   * answers what became of it: the metadata visible, with the table before it and what it would add.
   */
  async function crashAfter(n: number) {
    await freshStore();
    const [well] = await wells(1);
    const entries = metadataOn(well!, LAB_SIZE, `killed-${n}`);
    const [before, countBefore] = [await contentSnapshot(), await recordCount('poly_metadata')];
    await warmKeyCache();
    const killed = await killProcessAfter(n, () => bulk(entries));
    expect(killed.status, `killed after call ${n}`).toBe(500);
    await recoverTransactions(LATER());
    expect(await leftovers(), `after call ${n}`).toEqual([]);
    return { well: well!, entries, before, countBefore, visible: await filteredOn(well!) };
  }

  it('two settlers of one write: the one that finds it finished by the other between its reads leaves it so, without an error', async () => {
    // The race of writers that meet one abandoned write's marks (settleLocks): each settles it, and one may
    // read its record just before the other's last transaction deletes the record and its key chunks at once.
    await freshStore();
    const [well] = await wells(1);
    await warmKeyCache();
    const killed = await killProcessAfter(commitAt - 1, () => bulk(metadataOn(well!, LAB_SIZE, uniqueName('settled-twice'))));
    expect(killed.status).toBe(500);
    const [open] = await readOpenEntries();
    const txId = open!.txId;
    let other: Promise<string | undefined> | undefined;
    const between = 'settledBetweenReads';
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues;
        // The first settler is about to read the key chunks: the other settles the write to its end first.
        if (!other && values?.[':prefix'] === '$txKeys_1#') {
          other = settle(txId, LATER());
          await other;
        }
        return next(args);
      },
      { step: 'initialize', name: between },
    );
    const first = await settle(txId, LATER()).finally(() => dynamo().middlewareStack.remove(between));
    expect(first).toBe('aborted');
    expect(await other).toBe('aborted');
    expect(await leftovers()).toEqual([]);
    expect(await filteredOn(well!)).toEqual([]);
  });

  it('before its commit point: undone — the table as it was (no record, guard, index entry, count or event), the same keys free', async () => {
    for (let n = 1; n < commitAt; n++) {
      const { visible, before } = await crashAfter(n);
      expect(visible, `crash after call ${n} of ${calls}`).toEqual([]);
      expect(await contentSnapshot(), `crash after call ${n}`).toEqual(before);
    }
    // The keys are free: the same write, made again, succeeds whole.
    const { well, entries } = await crashAfter(commitAt - 1);
    expect((await bulk(entries)).status).toBe(201);
    expect(await filteredOn(well)).toHaveLength(LAB_SIZE);
  });

  it('from its commit point on: completed — all 400, the count up by 400, one event each', async () => {
    for (let n = commitAt; n < calls; n++) {
      const { visible, entries, countBefore } = await crashAfter(n);
      expect(visible, `crash after call ${n} of ${calls}`).toHaveLength(LAB_SIZE);
      expect(await recordCount('poly_metadata')).toBe(countBefore + LAB_SIZE);
      const events = await createdEventsOf(new Set(entries.map((e) => e.attributes.key)));
      expect(events.map((e) => e.resource.id).sort()).toEqual(visible.map((m) => m.id).sort());
    }
  });
});

describe('a retry under the same Idempotency-Key', () => {
  /** The calls of a large write under a key, and its commit point among them. */
  async function keyedCalls(): Promise<{ calls: number; commitAt: number }> {
    const [well] = await wells(1);
    await warmKeyCache();
    const { result, commands } = await commandsOf(() => bulk(metadataOn(well!, LAB_SIZE, uniqueName('keyed')), { 'idempotency-key': randomUUID() }));
    expect(result.status).toBe(201);
    return { calls: commands.length, commitAt: commitPointOf(commands) };
  }

  /** Crashes a keyed write after call n, then sends it again under its key (no recovery in between) and once more. */
  async function retriedAfterCrash(n: number) {
    const [well] = await wells(1);
    const entries = metadataOn(well!, LAB_SIZE, uniqueName('retried'));
    const headers = { 'idempotency-key': randomUUID() };
    const countBefore = await recordCount('poly_metadata');
    await warmKeyCache();
    expect((await killProcessAfter(n, () => bulk(entries, headers))).status).toBe(500);
    const retry = await bulk(entries, headers);
    const repeat = await bulk(entries, headers);
    return { well: well!, entries, countBefore, retry, repeat };
  }

  it('after a crash before the commit: the retry ends the first attempt at once and writes once; a repeat answers the same', async () => {
    await freshStore();
    const { commitAt } = await keyedCalls();
    const { well, entries, countBefore, retry, repeat } = await retriedAfterCrash(commitAt - 1);
    expect(retry.status, JSON.stringify(retry.body).slice(0, 300)).toBe(201);
    expect(repeat.status).toBe(201);
    expect(repeat.body).toEqual(retry.body);
    const visible = await filteredOn(well);
    expect(visible.map((m) => m.id).sort()).toEqual(retry.body.data.map((m: any) => m.id).sort());
    expect(await recordCount('poly_metadata')).toBe(countBefore + LAB_SIZE);
    expect(await createdEventsOf(new Set(entries.map((e) => e.attributes.key)))).toHaveLength(LAB_SIZE);
    // The first attempt was undone by the retry itself, not left to recovery.
    expect(await leftovers()).toEqual([]);
  });

  it('after a crash past the commit: the retry answers as the first attempt did, which counts once', async () => {
    await freshStore();
    const { calls, commitAt } = await keyedCalls();
    for (const n of [commitAt, calls - 1]) {
      const { well, entries, countBefore, retry, repeat } = await retriedAfterCrash(n);
      expect(retry.status, `crash after call ${n}`).toBe(201);
      expect(repeat.body).toEqual(retry.body);
      // The answer is the first attempt's: its records are the ones stored.
      expect((await filteredOn(well)).map((m) => m.id).sort()).toEqual(retry.body.data.map((m: any) => m.id).sort());
      expect(await recordCount('poly_metadata')).toBe(countBefore + LAB_SIZE);
      expect(await createdEventsOf(new Set(entries.map((e) => e.attributes.key)))).toHaveLength(LAB_SIZE);
      await recoverTransactions(LATER());
      expect(await leftovers()).toEqual([]);
    }
  });
});

describe('large writes at once', () => {
  it('20 on the same keys of one well: exactly one 201, the others 422 or 409, nothing of theirs stored', async () => {
    const [well] = await wells(1);
    const prefix = uniqueName('contended');
    const countBefore = await recordCount('poly_metadata');
    const results = await Promise.all(Array.from({ length: 20 }, (_, w) => bulk(metadataOn(well!, 100, prefix, `writer ${w}`))));
    const statuses = results.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(statuses),
    ).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 201)) {
      expect([409, 422], JSON.stringify(loser.body).slice(0, 300)).toContain(loser.status);
      expect(loser.body.errors[0].code).toBe(loser.status === 422 ? 'not_unique' : 'concurrent_update');
    }
    const winner = results.find((r) => r.status === 201)!.body.data[0].attributes.value;
    const stored = await filteredOn(well!);
    expect(stored).toHaveLength(100);
    expect(new Set(stored.map((m) => m.attributes.value))).toEqual(new Set([winner]));
    expect(await recordCount('poly_metadata')).toBe(countBefore + 100);
    const events = await createdEventsOf(new Set(stored.map((m) => m.attributes.key)));
    expect(events.map((e) => e.data.attributes.value)).toEqual(Array(100).fill(winner));
    expect(await leftovers()).toEqual([]);
  });

  it('50 at once on 50 different wells: all 201, each whole, the count up by all of them', async () => {
    const targets = await wells(50);
    const countBefore = await recordCount('poly_metadata');
    // 30 metadata each: 120 records and index entries, past one transaction.
    const results = await Promise.all(targets.map((well) => bulk(metadataOn(well, 30, uniqueName('fifty')))));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    for (const [i, well] of targets.entries()) {
      expect((await filteredOn(well)).map((m) => m.id).sort()).toEqual(results[i]!.body.data.map((m: any) => m.id).sort());
    }
    expect(await recordCount('poly_metadata')).toBe(countBefore + 50 * 30);
    // Each answered once applied, unless its request's deadline passed first (50 at once on a heavily loaded
    // machine): what such a write left is a committed write's, which recovery completes.
    const committedOnly = (await leftovers()).filter((item) => typeof item.state === 'string' && item.state !== 'committed');
    expect(committedOnly).toEqual([]);
    await recoverTransactions(LATER());
    expect(await leftovers()).toEqual([]);
  });

  it('20 readers polling every 10 ms (filter, item with include, related, listing) through 50 large writes, 5 at a time, never see part of one', async () => {
    const WRITES = 50;
    // Past one transaction (120 records and index entries: two stage transactions), small enough for 20 readers on a busy machine.
    const EACH = 30;
    const targets = await wells(WRITES);
    const prefixes = targets.map(() => uniqueName('seen'));
    const writeOf = (key: string) => key.slice(0, key.lastIndexOf('-'));
    let writing = true;
    const partial: string[] = [];
    let reads = 0;
    /** Each write's records in a read must be none or all of them. */
    const failed: string[] = [];
    const check = (what: string, metadata: any[], cut?: string) => {
      reads++;
      const counts = new Map<string, number>();
      for (const m of metadata) counts.set(writeOf(m.attributes.key), (counts.get(writeOf(m.attributes.key)) ?? 0) + 1);
      for (const [write, n] of counts) if (n !== EACH && write !== cut) partial.push(`${what}: ${n} of ${write}`);
    };
    const reader = async () => {
      while (writing) {
        const w = Math.floor(Math.random() * WRITES);
        const well = targets[w]!;
        const kind = reads % 4;
        const path = [
          `/api/v2/poly_metadata?filter[metadatable_id]=${well.id}&page[size]=500`,
          `/api/v2/wells/${well.id}?include=poly_metadata`,
          `/api/v2/wells/${well.id}/poly_metadata?page[size]=500`,
          // The newest records by id, in the order of the type's index.
          '/api/v2/poly_metadata?sort=-id&page[size]=100',
        ][kind]!;
        const res = await call('GET', path);
        if (res.status !== 200) {
          failed.push(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
          continue;
        }
        const metadata = kind === 1 ? (res.body.included ?? []) : res.body.data;
        // A page with a next one may cut the write its oldest record belongs to (records hidden make a page short);
        // whether there is a next page is the count's to say, so a count without a write shown fails here too.
        check(path, metadata, kind === 3 && res.body.links.next && metadata.length > 0 ? writeOf(metadata.at(-1).attributes.key) : undefined);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const readers = Array.from({ length: 20 }, reader);
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        while (next < WRITES) {
          const w = next++;
          statuses.push((await bulk(metadataOn(targets[w]!, EACH, prefixes[w]!))).status);
        }
      }),
    );
    writing = false;
    await Promise.all(readers);
    expect(statuses).toEqual(Array(WRITES).fill(201));
    expect(failed).toEqual([]);
    expect(reads).toBeGreaterThan(WRITES);
    expect(partial).toEqual([]);
  });
});

/** Sets environment variables for the rest of a test (the configuration read afresh); afterEach puts them back. */
const changedEnv = new Map<string, string | undefined>();
function setEnv(name: string, value: string): void {
  if (!changedEnv.has(name)) changedEnv.set(name, process.env[name]);
  process.env[name] = value;
  resetConfig();
}
afterEach(() => {
  for (const [name, value] of changedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  changedEnv.clear();
  resetConfig();
});

const POLY = registry.familyOf('poly_metadata');

/** A change of the values of some metadata, as one unit of work: past one transaction from 100 records on. */
async function changeValues(ids: readonly number[], value: string): Promise<void> {
  const uow = new UnitOfWork(registry, new Date().toISOString());
  const found = await getRecords(ids.map((id) => ({ family: POLY, id })));
  for (const id of ids) uow.update(found.get(recordKey(POLY, id))!, { attrs: { value } });
  await uow.commit();
}

/** The values of some metadata, as a reader finds them. */
const valuesOf = async (ids: readonly number[]) => {
  const found = await getRecords(ids.map((id) => ({ family: POLY, id })));
  return ids.map((id) => found.get(recordKey(POLY, id))?.attrs.value);
};

/**
 * The values the type's listing shows of the newest `count` metadata, newest first: a page by id, read from
 * the projected index, whose items a large write has marked are read by key and resolved ("Listing pages
 * read from a projected index").
 */
const listedValues = async (count: number) => {
  const res = await call('GET', `/api/v2/poly_metadata?sort=-id&page[size]=${count}`);
  expect(res.status).toBe(200);
  return res.body.data.map((m: any) => [Number(m.id), m.attributes.value]);
};

const newest = (ids: readonly number[], count: number) => [...ids].sort((a, b) => b - a).slice(0, count);

/** Metadata on a well, created by one bulk write: their ids. */
const metadataIds = async (on: Linkage, count: number) => (await bulk(metadataOn(on, count, uniqueName('changed')))).body.data.map((m: any) => Number(m.id));

/**
 * 120 metadata on a new well, then a change of all their values to `value` as one large write (past 100
 * items), its process killed after call `offset` counted from its commit point (-1: the last call before it).
 * A twin change of other metadata, uninterrupted, tells which call that is.
 */
async function crashedChange(value: string, offset: number): Promise<number[]> {
  const [well, twin] = await wells(2);
  const [twinIds, ids] = [await metadataIds(twin!, 120), await metadataIds(well!, 120)];
  const { commands } = await commandsOf(() => changeValues(twinIds, value));
  const commitAt = commitPointOf(commands);
  expect(commitAt, 'the change is a large write').toBeGreaterThan(1);
  await expect(killProcessAfter(commitAt + offset, () => changeValues(ids, value))).rejects.toThrow(/killed/);
  return ids;
}

/** Where a crashed change's after-images are: carried in the changed items (`txImage`), or in items beside them. */
async function afterImagesOf(): Promise<{ carried: number; beside: number }> {
  const items = await leftovers();
  return {
    carried: items.filter((item) => item.txImage !== undefined).length,
    beside: items.filter((item) => String(item.pk).startsWith('$lts#txafter_')).length,
  };
}

describe.each([
  { size: 'small records (their after-images carried in their own items)', value: 'changed', where: { carried: 120, beside: 0 } },
  {
    size: 'records past 8 KB, past 4 MB in all (after-images beside them; byte-sized stage and apply transactions)',
    value: 'x'.repeat(40_000),
    where: { carried: 0, beside: 120 },
  },
])('a large change of existing $size', ({ value, where }) => {
  it('crashed before its commit point: readers see the records as they were; recovery undoes the marks and after-images', async () => {
    const ids = await crashedChange(value, -1);
    expect((await leftovers()).filter((item) => item.tx !== undefined)).toHaveLength(120);
    expect(await afterImagesOf()).toEqual(where);
    expect(await valuesOf(ids)).toEqual(Array(120).fill('v'));
    expect(await listedValues(20)).toEqual(newest(ids, 20).map((id) => [id, 'v']));
    await recoverTransactions(LATER());
    expect(await leftovers()).toEqual([]);
    expect(await valuesOf(ids)).toEqual(Array(120).fill('v'));
  });

  it('crashed past its commit point: readers see the change at once (its after-images); recovery applies it', async () => {
    const ids = await crashedChange(value, 0);
    expect((await leftovers()).filter((item) => item.tx !== undefined)).toHaveLength(120);
    expect(await afterImagesOf()).toEqual(where);
    expect(await valuesOf(ids)).toEqual(Array(120).fill(value));
    expect((await call('GET', `/api/v2/poly_metadata/${ids[0]}`)).body.data.attributes.value).toBe(value);
    expect(await listedValues(20)).toEqual(newest(ids, 20).map((id) => [id, value]));
    await recoverTransactions(LATER());
    expect(await leftovers()).toEqual([]);
    expect(await valuesOf(ids)).toEqual(Array(120).fill(value));
  });
});

describe('large changes at once', () => {
  it('20 on distinct records (101 metadata each): all land, each whole, nothing of the protocol left', async () => {
    const sets = await Promise.all((await wells(20)).map((well) => metadataIds(well, 101)));
    await Promise.all(sets.map((ids, i) => changeValues(ids, `set ${i}`)));
    for (const [i, ids] of sets.entries()) expect(await valuesOf(ids)).toEqual(Array(101).fill(`set ${i}`));
    expect(await leftovers()).toEqual([]);
  });

  it('20 on the same 101 records: those that land land whole, the others are refused, nothing merged or lost', async () => {
    const [well] = await wells(1);
    const ids = await metadataIds(well!, 101);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => changeValues(ids, `write ${i}`)));
    const landed = outcomes.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [`write ${i}`] : []));
    expect(landed.length).toBeGreaterThanOrEqual(1);
    const values = await valuesOf(ids);
    expect(new Set(values).size, 'one write’s values, not a merge').toBe(1);
    expect(landed).toContain(values[0]);
    // A refused write undoes what it staged; what it could not, recovery ends.
    await recoverTransactions(LATER());
    expect(await leftovers()).toEqual([]);
  });
});

describe('a record at its budget changed by a large write', () => {
  it('a metadatum of 380 KB shrunk among 100 others: its after-image goes beside it (the two would pass its budget), and the write lands whole', async () => {
    const [well] = await wells(1);
    const ids = await metadataIds(well!, 101);
    // The first metadatum filled to its record budget, less a few bytes, by a write of its own.
    const [first] = (await getRecords([{ family: POLY, id: ids[0]! }])).values();
    const filler = 'x'.repeat(ITEM_SIZE_LIMIT - recordBytes(first!) - 16);
    const fill = new UnitOfWork(registry, new Date().toISOString());
    fill.update(first!, { attrs: { value: filler } });
    await fill.commit();
    const [full] = (await getRecords([{ family: POLY, id: ids[0]! }])).values();
    expect(recordBytes(full!)).toBeGreaterThan(ITEM_SIZE_LIMIT - 200);
    const { commands } = await commandsOf(() => changeValues(ids, 'small again'));
    const sideImages = commands
      .filter((c) => c.op === 'TransactWriteItems')
      .flatMap((c) => c.input.TransactItems)
      .filter((item: any) => String(item.Put?.Item?.pk ?? '').startsWith('$lts#txafter_'));
    expect(sideImages.map((item: any) => item.Put.Item.of)).toEqual([expect.stringContaining(`${ids[0]}`)]);
    expect(await valuesOf(ids)).toEqual(Array(101).fill('small again'));
    expect(await leftovers()).toEqual([]);
  });
});

describe('a small write meeting a large write’s lock', () => {
  /** Metadata whose change of value by a large write is staged and left pending (its process killed before the commit point). */
  const locked = () => crashedChange('large', -1);
  const patch = (id: number, value: string) =>
    call('PATCH', `/api/v2/poly_metadata/${id}`, { body: { data: { type: 'poly_metadata', id: String(id), attributes: { value } } } });

  it('while the large write may still commit: a conflict (409 once its retries run out), the lock and the value untouched', async () => {
    const ids = await locked();
    setEnv('LTS_REQUEST_BUDGET_MS', '4000');
    expectError(await patch(ids[0]!, 'small'), 409, 'concurrent_update');
    expect((await call('GET', `/api/v2/poly_metadata/${ids[0]}`)).body.data.attributes.value).toBe('v');
    expect((await leftovers()).filter((item) => item.tx !== undefined)).toHaveLength(120);
    // Once the large write is ended (undone: it never committed), the small one goes through.
    await recoverTransactions(LATER());
    expect((await patch(ids[0]!, 'small')).status).toBe(200);
    expect(await valuesOf(ids)).toEqual(['small', ...Array(119).fill('v')]);
  });

  it('once the large write is abandoned (past its expiry): the writer ends it itself and goes through', async () => {
    setEnv('LTS_LARGE_WRITE_EXPIRY_MS', '0');
    const ids = await locked();
    expect((await patch(ids[0]!, 'small')).status).toBe(200);
    expect(await valuesOf(ids)).toEqual(['small', ...Array(119).fill('v')]);
    expect(await leftovers()).toEqual([]);
  });
});

describe('the bound of one request', () => {
  it(`${MAX_POLY_METADATA_PER_WRITE} poly metadata are one write; ${MAX_POLY_METADATA_PER_WRITE + 1} a 422 naming the bound and the size, writing nothing`, async () => {
    expect(MAX_POLY_METADATA_PER_WRITE * POLY_METADATUM_ITEMS).toBeLessThanOrEqual(LARGE_WRITE_ITEM_LIMIT);
    const [well] = await wells(1);
    const prefix = uniqueName('bound');
    const full = await bulk(metadataOn(well!, MAX_POLY_METADATA_PER_WRITE, prefix));
    expect(full.status).toBe(201);
    const stored = await call('GET', `/api/v2/poly_metadata?filter[metadatable_id]=${well!.id}&page[size]=1`);
    expect(stored.body.meta.record_count).toBe(MAX_POLY_METADATA_PER_WRITE);
    const over = await refused('POST', BULK, { data: metadataOn(well!, MAX_POLY_METADATA_PER_WRITE + 1, uniqueName('over')) });
    expect(expectError(over, 422, 'too_large', '/data').detail).toBe(
      `data - one request may create at most ${MAX_POLY_METADATA_PER_WRITE} poly_metadata (each writes ${POLY_METADATUM_ITEMS} of the ${LARGE_WRITE_ITEM_LIMIT} records and index entries one request may write), got ${MAX_POLY_METADATA_PER_WRITE + 1}; send them in several requests`,
    );
  });

  it('the store refuses a write past the bound before writing anything, naming the bound and the size', async () => {
    const [well] = await wells(1);
    const before = await contentSnapshot();
    const uow = new UnitOfWork(registry, new Date().toISOString());
    const count = Math.floor(LARGE_WRITE_ITEM_LIMIT / POLY_METADATUM_ITEMS) + 1;
    const ids = await uow.allocateIds(POLY, count);
    for (const [i, id] of ids.entries()) {
      await uow.create('poly_metadata', { id, attrs: { key: `over-${i}`, value: 'v' }, rels: { metadatable: { type: 'wells', id: Number(well!.id) } } });
    }
    const items = count * POLY_METADATUM_ITEMS;
    await expect(uow.commit()).rejects.toThrow(
      new TooLargeError(`this request would write ${items} records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}`),
    );
    expect(await contentSnapshot()).toEqual(before);
  });
});

describe('the sweeper', () => {
  it('ends a write abandoned by a crash on its own once it expires: undone, nothing left', async () => {
    const [well, twin] = await wells(2);
    const { commands } = await commandsOf(() => bulk(metadataOn(twin!, LAB_SIZE, uniqueName('twin'))));
    const commitAt = commitPointOf(commands);
    const before = await contentSnapshot();
    setEnv('LTS_LARGE_WRITE_EXPIRY_MS', '1000');
    const sweeper = startSweeper(200);
    try {
      expect((await killProcessAfter(commitAt - 1, () => bulk(metadataOn(well!, LAB_SIZE, uniqueName('abandoned'))))).status).toBe(500);
      // No recovery called here: the sweeper's timer finds the write once it has expired.
      await expect.poll(async () => (await readOpenEntries()).length, { timeout: WAIT_MS, interval: 200 }).toBe(0);
    } finally {
      await sweeper.stop();
    }
    expect(await leftovers()).toEqual([]);
    expect(await contentSnapshot()).toEqual(before);
  });

  it('on AWS, an invocation waits within its minute for an open write about to expire, and ends it', async () => {
    const [well, twin] = await wells(2);
    const { commands } = await commandsOf(() => bulk(metadataOn(twin!, LAB_SIZE, uniqueName('twin'))));
    const before = await contentSnapshot();
    expect((await killProcessAfter(commitPointOf(commands) - 1, () => bulk(metadataOn(well!, LAB_SIZE, uniqueName('abandoned'))))).status).toBe(500);
    const [open] = await readOpenEntries();
    // The invocation's clock: 20 s before the write expires, moved on by its pauses.
    let clock = open!.expiresAt - 20_000;
    const pauses: number[] = [];
    const sweep = createSweeper({
      now: () => clock,
      sleep: async (ms) => {
        pauses.push(ms);
        clock += ms;
      },
    });
    expect(await sweep()).toEqual({ ended: 1 });
    expect(pauses).toEqual([20_000]);
    expect(await leftovers()).toEqual([]);
    expect(await contentSnapshot()).toEqual(before);
    // A write expiring after the next invocation (its request's deadline is 120 s in tests) is left to that one: no pause.
    const [later] = await wells(1);
    expect((await killProcessAfter(commitPointOf(commands) - 1, () => bulk(metadataOn(later!, LAB_SIZE, uniqueName('later'))))).status).toBe(500);
    clock = Date.now();
    expect(await sweep()).toEqual({ ended: 0 });
    expect(pauses).toEqual([20_000]);
    expect(await readOpenEntries()).toHaveLength(1);
    await recoverTransactions(LATER());
  });
});
