import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/store/client.ts';
import { readPayload } from '#lib/store/request-payload.ts';
import { documentClient } from '../bench/floor/db.ts';
import { createFloorServer } from '../bench/floor/server.ts';
import { call, warmKeyCache } from '../support/api.ts';
import { addAliquot, createPlate, createSample } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * The bench's floors of the writes past one transaction (test/bench/floor/large-write.ts) are floors only
 * if they leave what the service leaves: the same items, kinds and counts (ids, uuids and names apart), the
 * same count changes and as many events — and nothing of the way there (no mark, no record of the write).
 * Their transactions differ by design (docs/decisions.md, "The floor of a write past one transaction"), so
 * the bench's per-run check of transaction shapes does not apply: this compares the table before and after.
 */

let table: string;
let floorUrl: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const store = await freshStore();
  table = store.tableName;
  const doc = documentClient(store.endpoint);
  const server = createFloorServer({ doc, table });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  floorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    doc.destroy();
  };
});
afterAll(() => close());

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

/** A key or value with what differs between two equal writes taken out: uuids, numbers. */
const shape = (value: unknown) =>
  String(value)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
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
    counts: Object.fromEntries([...counts].sort()),
    events: events.map((e) => e.type).sort(),
    gone: [...before.keys()].filter((key) => !after.has(key)),
  };
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
});
