import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { externalBarcode } from '#lib/domain/barcode.ts';
import { REQUEST_PAYLOAD_INLINE_BYTES, TRANSACTION_ITEM_LIMIT } from '#lib/domain/budgets.ts';
import type { Contents, Labware } from '#lib/domain/labware.ts';
import { addAliquot } from '#lib/domain/receptacles.ts';
import { registry } from '#lib/resources/index.ts';
import { getRecords, type StoredRecord } from '#lib/store/records.ts';
import { ConflictError } from '#lib/store/errors.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { countCalls } from '#lib/store/client.ts';
import { call, doc, type CallResult } from '../support/api.ts';
import { aliquotDoc, createPlate, purposeId, rel } from '../support/fixtures.ts';
import { columnOrder } from '../support/oracles.ts';
import { seedRecords, seedTubes } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { requestItems, scanTable, tableSnapshot } from '../support/table.ts';

/**
 * A write's record of itself (its events, its idempotent response) never makes a valid write fail
 * (lib/store/request-payload.ts): a large payload is compressed, and past the request item's share of the
 * transaction stored in chunk items written before it. Replays are identical; events read back whole.
 */

beforeAll(freshStore);

/** The request item stored under an Idempotency-Key (the scoped key the engine uses: API key name, newline, key). */
async function requestItemOf(idempotencyKey: string): Promise<Record<string, any>> {
  const item = (await scanTable('request')).find((i) => i.key === `test-write\n${idempotencyKey}`);
  expect(item).toBeDefined();
  return item!;
}

const chunkItemsOf = async (key: string) => (await scanTable('requestChunk')).filter((i) => i.key === key);

/** POSTs twice with one Idempotency-Key: the second must replay the first exactly. */
async function postTwice(path: string, body: unknown, key: string): Promise<CallResult> {
  const first = await call('POST', path, { body, headers: { 'Idempotency-Key': key } });
  expect(first.status, JSON.stringify(first.body).slice(0, 2000)).toBe(201);
  const again = await call('POST', path, { body, headers: { 'Idempotency-Key': key } });
  expect(again.status).toBe(201);
  expect(again.body).toEqual(first.body);
  expect(again.headers.Location).toBe(first.headers.Location);
  // Replayed, not acted on again: no second request item.
  expect((await scanTable('request')).filter((i) => i.key === `test-write\n${key}`)).toHaveLength(1);
  return first;
}

describe('a POST with include on a full 384-well plate, under an Idempotency-Key', () => {
  let plate: any;
  let samples: StoredRecord[];

  beforeAll(async () => {
    plate = await createPlate('Stock Plate 384');
    samples = await seedRecords('samples', 384, (i) => ({ attrs: { name: `payload-${i}` }, rels: { sample_metadata: null, studies: [] } }));
    // Every well but the last filled, in one write of the plate.
    const record = (await getRecords([{ family: 'labware', id: Number(plate.id) }])).get(`labware:${plate.id}`)!;
    let contents: Contents = record.attrs as unknown as Labware;
    for (let slot = 1; slot < 384; slot++) {
      const added = addAliquot(
        contents,
        { slot, name: `well ${slot}` },
        { sample: samples[slot - 1]!.id, study: null, tag: null, tag2: null, library_type: 'Standard' },
      );
      if (!added.ok) throw new Error(JSON.stringify(added.problems));
      contents = added.value;
    }
    const uow = new UnitOfWork(registry, new Date().toISOString());
    uow.update(record, { attrs: { ...contents } });
    await uow.commit();
  });

  it('commits, stores its response compressed, and replays it identically', async () => {
    const path = '/api/v2/aliquots?include=receptacle.plate.wells.aliquots.sample';
    const body = aliquotDoc({ type: 'wells', id: String(Number(plate.id) * 1000 + 384) }, String(samples[383]!.id));
    const res = await postTwice(path, body, 'full-plate');
    const included = res.body.included as any[];
    expect(included.filter((r) => r.type === 'wells')).toHaveLength(384);
    expect(included.filter((r) => r.type === 'aliquots')).toHaveLength(384 - 1); // the posted aliquot is the primary data
    expect(included.filter((r) => r.type === 'samples')).toHaveLength(384);
    const bytes = JSON.stringify(res.body).length;
    // Measured: ~1 MB of response, which the request item could not hold as it is.
    expect(bytes).toBeGreaterThan(400_000);
    const item = await requestItemOf('full-plate');
    expect(item).not.toHaveProperty('response');
    expect(item.payload ?? item.chunks).toBeDefined();
    // And its events are whole.
    const events = (await requestItems()).find((i) => i.key === item.key)!.events;
    expect(events.map((e) => e.type).sort()).toEqual(['aliquots.created', 'plates.updated']);
  });
});

describe('a rack of 96 tubes with long names, include=racked_tubes.tube and an Idempotency-Key', () => {
  let tubes: StoredRecord[];

  beforeAll(async () => {
    const purpose = Number(await purposeId('tube_purposes', 'Stock Tube'));
    // Names of 4,000 random characters (valid: strings may have 4,096), which compression cannot shrink much.
    tubes = await seedTubes(96, purpose, (i) => ({
      name: `t${i}-${randomBytes(3000).toString('base64url').slice(0, 3990)}`,
      barcode: externalBarcode(`PAYLOAD-${i}-${randomBytes(4).toString('hex')}`),
    }));
  });

  it(`commits in one transaction of ${TRANSACTION_ITEM_LIMIT} items, its payload in chunk items beside it, and replays identically`, async () => {
    const coordinates = columnOrder(8, 12);
    const body = doc(
      'tube_racks',
      { size: 96, tube_locations: Object.fromEntries(tubes.map((t, i) => [coordinates[i]!, { uuid: t.uuid }])) },
      { purpose: rel('tube_rack_purposes', await purposeId('tube_rack_purposes', 'Tube Rack 96')) },
    );
    const res = await postTwice('/api/v2/tube_racks?include=racked_tubes.tube', body, 'long-rack');
    expect((res.body.included as any[]).filter((r) => r.type === 'tubes').map((t) => t.attributes.name)).toEqual(tubes.map((t) => t.attrs.name));

    const item = await requestItemOf('long-rack');
    expect(item).not.toHaveProperty('events');
    expect(item.chunks.count).toBeGreaterThan(1);
    const chunks = await chunkItemsOf(item.key);
    expect(chunks).toHaveLength(item.chunks.count);
    expect(chunks.reduce((n, c) => n + c.data.byteLength, 0)).toBeGreaterThan(REQUEST_PAYLOAD_INLINE_BYTES);
    const events = (await requestItems()).find((i) => i.key === item.key)!.events;
    expect(events).toHaveLength(97);
    expect(events.filter((e) => e.type === 'tubes.updated').map((e) => e.data.attributes.name)).toEqual(tubes.map((t) => t.attrs.name));
  });

  it('a transaction that does not commit leaves no chunk behind', async () => {
    const [tube] = (await getRecords([{ family: 'labware', id: tubes[0]!.id }])).values();
    const stale = new UnitOfWork(registry, new Date().toISOString());
    stale.update(tube!, { attrs: { name: 'stale' } });
    stale.addEvent({
      type: 'tubes.updated',
      resource: { type: 'tubes', id: String(tube!.id), uuid: tube!.uuid, version: tube!.version + 1 },
      data: randomBytes(300_000).toString('base64'),
      actor: null,
    });
    // Another write changes the tube first: the stale one is cancelled at commit, after its chunks were written.
    const other = new UnitOfWork(registry, new Date().toISOString());
    other.update(tube!, { attrs: { name: 'other' } });
    await other.commit();
    const before = await tableSnapshot();
    const { counts, result } = countCalls(() => stale.commit());
    await expect(result).rejects.toBeInstanceOf(ConflictError);
    expect(counts.PutItem).toBeGreaterThan(0);
    expect(counts.DeleteItem).toBe(counts.PutItem);
    expect(await tableSnapshot()).toEqual(before);
  });
});
