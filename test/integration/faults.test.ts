import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { aliquotDoc, create, createPlate, createRack, createSample, createTube, purposeId, rel, rels, tubeOf, uniqueName } from '../support/fixtures.ts';
import { injectFaults, type FaultInjector, type FaultKind } from '../support/faults.ts';
import { expectError, header } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { requestItems, tableSnapshot } from '../support/table.ts';

/**
 * Capacity faults during every kind of write: DynamoDB throttling (ThrottlingException,
 * ProvisionedThroughputExceededException, a transaction cancelled for ThrottlingError) and timeouts. These
 * are mocked (test/support/faults.ts) only because DynamoDB Local cannot produce them: it never throttles
 * and always answers. Real outages — DynamoDB stopped, restarted, frozen — are in outage.test.ts.
 *
 * For each write, the fault is injected into each operation the write actually uses among
 * TransactWriteItems, UpdateItem, BatchGetItem, GetItem and Query (found by running the same write once
 * without faults). Each time the answer must be a 503 with Retry-After and a JSON:API error revealing no
 * internals, and the table must be exactly as before. Then the same write, without faults, succeeds.
 */

const OPERATIONS = ['TransactWriteItems', 'UpdateItem', 'BatchGetItem', 'GetItem', 'Query'];
const SDK_FAULTS: FaultKind[] = ['ThrottlingException', 'ProvisionedThroughputExceededException', 'TimeoutError'];
const CMC = 'custom_metadatum_collections';

let faults: FaultInjector;
let admin: string;
let studyA: string;

beforeAll(async () => {
  await freshStore();
  faults = injectFaults();
  admin = await idOf('users', 'login', 'admin');
  studyA = await idOf('studies', 'name', 'Study A');
});

afterEach(() => faults.disarm());
afterAll(() => faults.remove());

interface Write {
  method: 'POST' | 'PATCH';
  path: string;
  body: unknown;
  headers?: Record<string, string>;
}

/** Each write type, as a function making a fresh write that would succeed (its own records to work on). */
const WRITES: Record<string, () => Promise<Write>> = {
  'POST samples': async () => ({
    method: 'POST',
    path: '/api/v2/samples',
    body: doc('samples', { name: uniqueName() }, { studies: rels('studies', [studyA]) }),
  }),
  'PATCH samples': async () => {
    const sample = await createSample();
    return { method: 'PATCH', path: `/api/v2/samples/${sample.id}`, body: doc('samples', { site_sample_id: uniqueName('site') }, undefined, sample.id) };
  },
  'POST sample_metadata': async () => ({ method: 'POST', path: '/api/v2/sample_metadata', body: doc('sample_metadata', { cohort: uniqueName('cohort') }) }),
  'PATCH sample_metadata': async () => {
    const sample = await createSample();
    const metadata = (await call('GET', `/api/v2/samples/${sample.id}/sample_metadata`)).body.data.id;
    return {
      method: 'PATCH',
      path: `/api/v2/sample_metadata/${metadata}`,
      body: doc('sample_metadata', { cohort: uniqueName('cohort') }, undefined, metadata),
    };
  },
  'POST plates': async () => ({
    method: 'POST',
    path: '/api/v2/plates',
    body: doc('plates', {}, { purpose: rel('plate_purposes', await purposeId('plate_purposes', 'Stock Plate')) }),
  }),
  'POST tubes': async () => ({
    method: 'POST',
    path: '/api/v2/tubes',
    body: doc('tubes', {}, { purpose: rel('tube_purposes', await purposeId('tube_purposes', 'Stock Tube')) }),
  }),
  'POST aliquots': async () => {
    const [plate, sample] = [await createPlate(), await createSample()];
    return {
      method: 'POST',
      path: '/api/v2/aliquots',
      body: aliquotDoc({ type: 'wells', id: String(Number(plate.id) * 1000 + 1) }, sample.id, { study: studyA }),
    };
  },
  'POST tube_racks': async () => {
    const [a, b] = [tubeOf(await createTube()), tubeOf(await createTube())];
    const purpose = await purposeId('tube_rack_purposes', 'Tube Rack 96');
    return {
      method: 'POST',
      path: '/api/v2/tube_racks',
      body: doc('tube_racks', { size: 96, tube_locations: { A1: { uuid: a.uuid }, B1: { uuid: b.uuid } } }, { purpose: rel('tube_rack_purposes', purpose) }),
    };
  },
  'PATCH tube_racks': async () => {
    const rack = await createRack();
    return { method: 'PATCH', path: `/api/v2/tube_racks/${rack.id}`, body: doc('tube_racks', { size: 48 }, undefined, rack.id) };
  },
  'POST custom_metadatum_collections': async () => {
    const plate = await createPlate();
    return { method: 'POST', path: `/api/v2/${CMC}`, body: doc(CMC, { user_id: admin, asset_id: plate.id, metadata: { robot: 'bed-1' } }) };
  },
  'PATCH custom_metadatum_collections': async () => {
    const collection = await create(CMC, { user_id: admin, asset_id: (await createPlate()).id, metadata: { robot: 'bed-1' } });
    return { method: 'PATCH', path: `/api/v2/${CMC}/${collection.id}`, body: doc(CMC, { metadata: { robot: 'bed-2' } }, undefined, collection.id) };
  },
};

const send = (write: Write) => call(write.method, write.path, { body: write.body, ...(write.headers ? { headers: write.headers } : {}) });

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

/** The operations (of OPERATIONS) a successful run of the write uses. */
async function operationsOf(make: () => Promise<Write>): Promise<string[]> {
  const write = await make();
  faults.resetSeen();
  const res = await send(write);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return OPERATIONS.filter((op) => faults.seen.includes(op));
}

describe('a capacity fault in any DynamoDB call of a write → 503 with Retry-After, nothing written', () => {
  it.each(Object.keys(WRITES))('%s', async (name) => {
    const make = WRITES[name]!;
    const operations = await operationsOf(make);
    expect(operations).toContain('TransactWriteItems');

    const write = await make();
    const before = await tableSnapshot();
    for (const operation of operations) {
      for (const kind of SDK_FAULTS) {
        faults.arm(operation, kind);
        const res = await send(write);
        faults.disarm();
        expect(faults.fired, `${name}: ${operation} was not called`).toBeGreaterThan(0);
        expectUnavailable(res, `${name} with ${kind} on ${operation}`);
        expect(await tableSnapshot(), `${name} with ${kind} on ${operation} changed the table`).toEqual(before);
      }
    }
    // The same write goes through once DynamoDB recovers.
    const res = await send(write);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  });
});

// Needs the store to turn a cancellation reason of ThrottlingError into a CapacityError (lib/store/errors.ts
// capacityReason); until lib/store/unit-of-work.ts does, such a cancellation is a 500.
describe('TransactWriteItems cancelled with reason ThrottlingError → 503 with Retry-After, nothing written', () => {
  it.each(Object.keys(WRITES))('%s', async (name) => {
    const write = await WRITES[name]!();
    const before = await tableSnapshot();
    faults.arm('TransactWriteItems', 'TransactionCanceled:ThrottlingError');
    const res = await send(write);
    faults.disarm();
    expect(faults.fired).toBeGreaterThan(0);
    expectUnavailable(res, `${name} cancelled for ThrottlingError`);
    expect(await tableSnapshot()).toEqual(before);
    expect((await send(write)).status).toBeLessThan(300);
  });
});

describe('Idempotency-Key across a 503', () => {
  const sampleCount = async () => (await call('GET', '/api/v2/samples?page[size]=1')).body.meta.record_count as number;

  it('a POST retried with its key after a 503 acts once; a replay after success returns the first response', async () => {
    const key = uniqueName('idem');
    const write: Write = { method: 'POST', path: '/api/v2/samples', body: doc('samples', { name: uniqueName() }), headers: { 'idempotency-key': key } };
    const count = await sampleCount();
    const committed = (await requestItems()).length;

    faults.arm('TransactWriteItems', 'ThrottlingException');
    expectUnavailable(await send(write), 'throttled POST');
    faults.disarm();
    expect(await sampleCount()).toBe(count);

    const first = await send(write);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const replay = await send(write);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(header(replay, 'Location')).toBe(header(first, 'Location'));
    expect(await sampleCount()).toBe(count + 1);
    // One committed write (one outbox item with its events), not two.
    expect((await requestItems()).length).toBe(committed + 1);
  });

  it('a POST whose commit succeeded but whose answer timed out (503) is not repeated by its retry: the retry replays it', async () => {
    const key = uniqueName('idem');
    const write: Write = { method: 'POST', path: '/api/v2/samples', body: doc('samples', { name: uniqueName() }), headers: { 'idempotency-key': key } };
    const count = await sampleCount();

    faults.arm('TransactWriteItems', 'TimeoutError:after');
    expectUnavailable(await send(write), 'POST timed out after commit');
    faults.disarm();
    // It did commit: the client could not know, so it retries with the same key.
    expect(await sampleCount()).toBe(count + 1);

    const retry = await send(write);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.body.data.attributes.name).toBe((write.body as { data: { attributes: { name: string } } }).data.attributes.name);
    expect((await send(write)).body).toEqual(retry.body);
    expect(await sampleCount()).toBe(count + 1);
  });
});
