import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { auditedTransactionItems, labwareCreationItems, transferRequestCollectionItems } from '#lib/domain/budgets.ts';
import { dynamo } from '#lib/store/client.ts';
import { readPayload } from '#lib/store/payload-items.ts';
import { call, warmKeyCache } from '../support/api.ts';
import { addAliquot, createPlate, createSample, submissionWithOrder } from '../support/fixtures.ts';
import { startFloor, type RunningFloor } from '../support/floor-server.ts';
import { freshStore } from '../support/store.ts';

/**
 * The bench's floors of the writes past one transaction (test/bench/floor/large-write.ts) are floors only
 * if they leave what the service leaves: the same items, kinds and counts (ids, uuids and names apart), the
 * same count changes and as many events — and nothing of the way there (no mark, no record of the write).
 * Their transactions differ by design (docs/decisions.md, "Measuring speed"), so
 * the bench's per-run check of transaction shapes does not apply: this compares the table before and after.
 */

let table: string;
let floorUrl: string;
let floor: RunningFloor;
beforeAll(async () => {
  const store = await freshStore();
  table = store.tableName;
  floor = await startFloor(store);
  floorUrl = floor.url;
});
afterAll(() => floor.close());

type Item = Record<string, unknown>;

async function scan(): Promise<Map<string, Item>> {
  const items = new Map<string, Item>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new ScanCommand({ TableName: table, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    for (const item of page.Items ?? []) items.set(`${item.pk} ${item.sk}`, item);
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** A key or value with what differs between two equal writes taken out: uuids, numbers, barcodes' check letters, the side's name. */
const shape = (value: unknown) =>
  String(value)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d+[A-Z]\b/g, '#') // a generated barcode's number and check letter
    .replace(/\d+/g, '#')
    .replace(/service|floor/g, '<side>');
const isCountShard = (key: string) => key.startsWith('$lts#counts_');

/** What one request left: its new or changed items by shape (key and attribute names), its count changes, its events. */
async function written(send: () => Promise<{ status: number; calls: number; id?: string }>) {
  const before = await scan();
  const reply = await send();
  expect(reply.status).toBe(201);
  const after = await scan();
  const changed = [...after].filter(([key, item]) => JSON.stringify(before.get(key)) !== JSON.stringify(item));
  const counts = new Map<string, number>();
  for (const [key, item] of changed.filter(([key]) => isCountShard(key)))
    for (const [name, n] of Object.entries(item))
      if (name.startsWith('n:')) counts.set(name, (counts.get(name) ?? 0) + Number(n) - Number(before.get(key)?.[name] ?? 0));
  const others = changed.filter(([key]) => !isCountShard(key)).map(([, item]) => item);
  const requests = others.filter((item) => String(item.pk).startsWith('$lts#key_'));
  const events = (await Promise.all(requests.map(async (r) => (await readPayload(r as never)).events))).flat();
  return {
    id: reply.id,
    calls: reply.calls,
    items: others.map((item) => `${shape(item.pk)} ${shape(item.sk)} [${Object.keys(item).sort().join(' ')}]`).sort(),
    counts: Object.fromEntries([...counts].filter(([, n]) => n !== 0).sort()),
    events: events.map((e) => e.type).sort(),
    gone: [...before.keys()].filter((key) => !after.has(key)),
  };
}

/** Tubes of each rack of the rack split. */
const RACK_TUBES = 96;

const uuidOf = async (path: string): Promise<string> => (await call('GET', path)).body.data[0].attributes.uuid;

/** What Limber's creators name: an MX Tube purpose, a user, a submission (with an order) to pool by. */
async function creatorReferences() {
  const [tubePurpose, user] = [await uuidOf('/api/v2/tube_purposes?filter[name]=MX%20Tube'), await uuidOf('/api/v2/users?page[size]=1')];
  const submission = (await call('GET', `/api/v2/submissions/${(await submissionWithOrder()).submission.id}`)).body.data.attributes.uuid as string;
  return { tubePurpose, user, submission };
}

const viaFloor = async (path: string, body: unknown) => {
  const reply = await fetch(`${floorUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: JSON.stringify(body) });
  const text = await reply.text();
  expect(reply.status, text).toBe(201);
  return { status: reply.status, calls: Number(reply.headers.get('X-DynamoDB-Calls')), id: JSON.parse(text).data?.id as string | undefined };
};

/** Both sides' leavings, each from the same request but for the names `body(side)` gives it. */
async function bothSides(path: string, body: (side: 'service' | 'floor') => unknown) {
  await warmKeyCache();
  const service = await written(async () => {
    const reply = await call('POST', path, { body: body('service') });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return { ...reply, id: reply.body.data?.id as string | undefined };
  });
  const floor = await written(() => viaFloor(path, body('floor')));
  return { service, floor };
}

describe("the bench floor's writes past one transaction", () => {
  it('poly_metadata/bulk_create: the metadata, their guards and index entries, one count change per record and an event each, nothing of the write left', async () => {
    const plate = await createPlate();
    const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=2`)).body.data;
    const aliquots: { id: string }[] = [];
    for (const well of wells) aliquots.push(await addAliquot({ type: 'wells', id: well.id }, (await createSample()).id));
    // 60 metadata, 240 records and entries: past one transaction, and past the floor's commit and one stage.
    const entries = 60;
    const { service, floor } = await bothSides('/api/v2/poly_metadata/bulk_create', (side) => ({
      data: Array.from({ length: entries }, (_, i) => ({
        type: 'poly_metadata',
        attributes: { key: `${side}_key_${i}`, value: `value ${i}` },
        relationships: { metadatable: { data: { type: 'aliquots', id: aliquots[i % aliquots.length]!.id } } },
      })),
    }));
    expect(service.items.filter((item) => item.includes('$record_')).length).toBe(entries);
    expect(service.events).toHaveLength(entries);
    expect(service.counts).toEqual({ 'n:poly_metadata': entries });
    expect(floor.items).toEqual(service.items);
    expect(floor.calls).toBeLessThan(service.calls);
    expect(floor.counts).toEqual(service.counts);
    expect(floor.events).toEqual(service.events);
    expect([service.gone, floor.gone]).toEqual([[], []]);
    expect(service.items.join('\n')).not.toMatch(/\btx\b|txImage|\$lts#tx|floortx|open_txs/);
  });

  it('the rack split: two racks of new tubes, a tube of each for every well, then the collection into them', async () => {
    const plate = await createPlate();
    const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=${RACK_TUBES}`)).body.data as { id: string; attributes: { uuid: string } }[];
    for (const well of wells) await addAliquot({ type: 'wells', id: well.id }, (await createSample()).id);
    const { tubePurpose, user, submission } = await creatorReferences();
    const rackPurpose = await uuidOf('/api/v2/tube_rack_purposes?page[size]=1');
    const coordinate = (n: number) => `${'ABCDEFGH'[n % 8]}${Math.floor(n / 8) + 1}`;
    const creation = await bothSides('/api/v2/specific_tube_rack_creations', (side) => ({
      data: {
        type: 'specific_tube_rack_creations',
        attributes: {
          parent_uuids: [plate.attributes.uuid],
          tube_rack_attributes: ['SEQ', 'SPR'].map((kind, r) => ({
            tube_rack_name: `${kind} rack`,
            tube_rack_barcode: `TR${side === 'service' ? 1 : 2}${r}${process.pid}`,
            tube_rack_purpose_uuid: rackPurpose,
            racked_tubes: wells.map((_well, n) => ({
              tube_barcode: `FR${side === 'service' ? 1 : 2}${r}${String(n).padStart(3, '0')}${process.pid}`,
              tube_name: `${kind}:${coordinate(n)}`,
              tube_purpose_uuid: tubePurpose,
              tube_position: coordinate(n),
              parent_uuids: [wells[n]!.attributes.uuid],
            })),
          })),
          user_uuid: user,
        },
      },
    }));
    expect(creation.service.items.filter((item) => item.startsWith('$lts#family_labware')).length).toBe(2 + 2 * RACK_TUBES);
    expect(creation.floor).toEqual({ ...creation.service, id: creation.floor.id, calls: creation.floor.calls });
    const made: Record<string, string[]> = {};
    for (const [side, { id }] of Object.entries(creation)) {
      const racks = (await call('GET', `/api/v2/specific_tube_rack_creations/${id}/children`)).body.data as { id: string }[];
      made[side] = [];
      for (const rack of racks.sort((x, y) => Number(x.id) - Number(y.id))) {
        const tubes = (await call('GET', `/api/v2/tube_racks/${rack.id}/racked_tubes?include=tube&page[size]=100`)).body.included as {
          id: string;
          attributes: { uuid: string };
        }[];
        made[side].push(...tubes.sort((x, y) => Number(x.id) - Number(y.id)).map((tube) => tube.attributes.uuid));
      }
      expect(made[side]).toHaveLength(2 * RACK_TUBES);
    }
    const collection = await bothSides('/api/v2/transfer_request_collections', (side) => ({
      data: {
        type: 'transfer_request_collections',
        attributes: {
          transfer_requests_attributes: made[side]!.map((tube, t) => ({
            source_asset: wells[t % RACK_TUBES]!.attributes.uuid,
            target_asset: tube,
            submission,
          })),
          user_uuid: user,
        },
      },
    }));
    expect(collection.service.items.filter((item) => item.startsWith('$lts#family_labware')).length).toBeGreaterThanOrEqual(2 * RACK_TUBES);
    expect(collection.floor).toEqual({ ...collection.service, id: collection.floor.id, calls: collection.floor.calls });
  });

  // With an audit entry for the plate and each tube (docs/decisions.md, "Audit trail"), both past one transaction.
  const creationItems = auditedTransactionItems(labwareCreationItems(96, 1), 97);
  const collectionItems = auditedTransactionItems(transferRequestCollectionItems(96, 0), 97);
  it(`96 tubes from a plate: the creation (${creationItems} items) and the 96-entry collection into them (${collectionItems})`, async () => {
    const plate = await createPlate();
    const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=96`)).body.data as { id: string; attributes: { uuid: string } }[];
    for (const well of wells) await addAliquot({ type: 'wells', id: well.id }, (await createSample()).id);
    const { tubePurpose, user, submission } = await creatorReferences();
    const creation = await bothSides('/api/v2/specific_tube_creations', (side) => ({
      data: {
        type: 'specific_tube_creations',
        attributes: {
          child_purpose_uuids: Array(96).fill(tubePurpose),
          parent_uuids: [plate.attributes.uuid],
          tube_attributes: Array.from({ length: 96 }, (_, t) => ({ name: `${side} tube ${t + 1}` })),
          user_uuid: user,
        },
      },
    }));
    expect(creation.service.items.filter((item) => item.startsWith('$lts#family_labware')).length).toBe(96);
    expect(creation.floor).toEqual({ ...creation.service, id: creation.floor.id, calls: creation.floor.calls });
    // Each side's tubes, in the order made, read through the service (the floor wrote what the service reads).
    const made: Record<string, string[]> = {};
    for (const [side, { id }] of Object.entries(creation)) {
      const children = (await call('GET', `/api/v2/specific_tube_creations/${id}/children?page[size]=100`)).body.data as {
        id: string;
        attributes: { uuid: string };
      }[];
      made[side] = children.sort((x, y) => Number(x.id) - Number(y.id)).map((tube) => tube.attributes.uuid);
      expect(made[side]).toHaveLength(96);
    }
    const collection = await bothSides('/api/v2/transfer_request_collections', (side) => ({
      data: {
        type: 'transfer_request_collections',
        attributes: {
          transfer_requests_attributes: wells.map((well, w) => ({ source_asset: well.attributes.uuid, target_asset: made[side]![w], submission })),
          user_uuid: user,
        },
      },
    }));
    expect(collection.service.items.filter((item) => item.startsWith('$lts#family_labware')).length).toBe(96);
    expect(collection.floor).toEqual({ ...collection.service, id: collection.floor.id, calls: collection.floor.calls });
  });
});
