import { beforeAll, describe, expect, it } from 'vitest';
import { errorResponse } from '#lib/jsonapi/error-response.ts';
import type { CallCount } from '#lib/store/client.ts';
import { direct } from '../support/engine.ts';
import { assertJsonApiDocument } from '../support/jsonapi-schema.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, requestItems, tableSnapshot, type Envelope } from '../support/table.ts';
import { countersRegistry } from '../support/counters-registry.ts';

/** Custom actions (lib/jsonapi/resource.ts ActionDef) run in the write pipeline, proved with a test-only type. */

beforeAll(freshStore);

/** A POST through the engine, answered as the error mapping answers a failure (direct() rejects with the error). */
async function run(pathAndQuery: string, body: unknown, headers?: Record<string, string>) {
  try {
    return await direct('POST', pathAndQuery, body, countersRegistry, headers);
  } catch (error) {
    const response = errorResponse(error, 'test');
    return { response, document: JSON.parse(response.body!), counts: {} as CallCount };
  }
}
const counter = (label: unknown) => ({ type: 'test_counters', attributes: { label } });
let uniq = 0;
const label = () => `counter-${++uniq}`;

/** Events written while `action` ran (the outbox is read by a Scan, in no particular order). */
async function eventsOf(action: () => Promise<unknown>): Promise<Envelope[]> {
  const before = new Set((await outboxEvents()).map((e) => e.id));
  await action();
  return (await outboxEvents()).filter((e) => !before.has(e.id));
}

describe('POST /api/v2/test_counters/bulk_create', () => {
  it('creates every record in one transaction, answers 201 with the array and records one event each', async () => {
    const labels = [label(), label(), label()];
    let result: Awaited<ReturnType<typeof run>> | undefined;
    const events = await eventsOf(async () => {
      result = await run('/api/v2/test_counters/bulk_create', { data: labels.map(counter) });
    });
    const { response, document, counts } = result!;
    expect(response.status, response.body).toBe(201);
    assertJsonApiDocument(document);
    expect(response.headers.Location).toBeUndefined();
    expect(document.data.map((r: any) => r.attributes.label)).toEqual(labels);
    expect(counts.TransactWriteItems).toBe(1);
    for (const created of document.data) {
      const read = await direct('GET', `/api/v2/test_counters/${created.id}`, undefined, countersRegistry);
      expect(read.document.data).toEqual(created);
    }
    expect(events.map((e) => [e.type, e.resource.id]).sort()).toEqual(document.data.map((r: any) => ['test_counters.created', r.id]).sort());
    expect(events[0]!.actor).toEqual({ api_key: 'test-write', user: null });
  });

  it('renders the response with the fields of the request', async () => {
    const { document } = await run('/api/v2/test_counters/bulk_create?fields[test_counters]=label', { data: [counter(label())] });
    expect(Object.keys(document.data[0].attributes)).toEqual(['label']);
  });

  it('is all or nothing: one bad entry refuses the whole request, with the pointer at that entry, writing nothing', async () => {
    const before = await tableSnapshot();
    const { response, document } = await run('/api/v2/test_counters/bulk_create', { data: [counter(label()), counter(''), counter(label())] });
    expect(response.status).toBe(422);
    expect(document.errors).toEqual([expect.objectContaining({ code: 'invalid_value', source: { pointer: '/data/1/attributes/label' } })]);
    const unknown = await run('/api/v2/test_counters/bulk_create', { data: [counter(label()), { type: 'test_counters', attributes: { colour: 'red' } }] });
    expect(unknown.response.status).toBe(400);
    expect(unknown.document.errors[0]).toMatchObject({ code: 'param_not_allowed', source: { pointer: '/data/1/attributes/colour' } });
    expect(await tableSnapshot()).toEqual(before);
  });

  it('refuses a body that is not JSON (400), and a body the action cannot read (its own 400)', async () => {
    const before = await tableSnapshot();
    const notJson = await run('/api/v2/test_counters/bulk_create', undefined);
    expect(notJson.document.errors[0]).toMatchObject({ status: '400', code: 'invalid_json' });
    const notArray = await run('/api/v2/test_counters/bulk_create', { data: counter(label()) });
    expect(notArray.document.errors[0]).toMatchObject({ status: '400', code: 'invalid_member', source: { pointer: '/data' } });
    expect(await tableSnapshot()).toEqual(before);
  });

  it('honours Idempotency-Key: a repeat replays the first response and acts once; another body is a 422', async () => {
    const body = { data: [counter(label()), counter(label())] };
    const headers = { 'idempotency-key': `bulk-${uniq}` };
    const first = await run('/api/v2/test_counters/bulk_create', body, headers);
    expect(first.response.status).toBe(201);
    const items = (await requestItems()).length;
    const again = await run('/api/v2/test_counters/bulk_create', body, headers);
    expect(again.response).toEqual(first.response);
    expect(again.counts.TransactWriteItems ?? 0).toBe(0);
    expect((await requestItems()).length).toBe(items);
    const other = await run('/api/v2/test_counters/bulk_create', { data: [counter(label())] }, headers);
    expect(other.response.status).toBe(422);
    expect(other.document.errors[0]).toMatchObject({ code: 'idempotency_key_reused', source: { header: 'Idempotency-Key' } });
  });
});

describe('POST /api/v2/test_counters/tally (an action that reads, then changes one record)', () => {
  it('answers 200 with the record and records an updated event', async () => {
    const { document: created } = await run('/api/v2/test_counters/bulk_create', { data: [counter(label())] });
    const id = created.data[0].id;
    const events = await eventsOf(async () => {
      const { response, document } = await run('/api/v2/test_counters/tally', { data: { type: 'test_counters', id } });
      expect(response.status).toBe(200);
      expect(document.data).toMatchObject({ id, attributes: { count: 1 }, links: { self: `https://lts.test/api/v2/test_counters/${id}` } });
    });
    expect(events.map((e) => [e.type, e.resource.id])).toEqual([['test_counters.updated', id]]);
  });

  it('retries conflicting runs from fresh reads: 8 concurrent tallies of one record all count', async () => {
    const { document: created } = await run('/api/v2/test_counters/bulk_create', { data: [counter(label())] });
    const id = created.data[0].id;
    const results = await Promise.all(Array.from({ length: 8 }, () => run('/api/v2/test_counters/tally', { data: { type: 'test_counters', id } })));
    expect(results.map((r) => r.response.status)).toEqual(Array(8).fill(200));
    // More transactions than requests: some ran again after losing the race.
    expect(results.reduce((n, r) => n + (r.counts.TransactWriteItems ?? 0), 0)).toBeGreaterThan(8);
    const read = await direct('GET', `/api/v2/test_counters/${id}`, undefined, countersRegistry);
    expect(read.document.data.attributes.count).toBe(8);
  });

  it('answers a 404 from the action for a record that does not exist, writing nothing', async () => {
    const before = await tableSnapshot();
    const { response, document } = await run('/api/v2/test_counters/tally', { data: { type: 'test_counters', id: '999999' } });
    expect(response.status).toBe(404);
    expect(document.errors[0].source).toEqual({ pointer: '/data/id' });
    expect(await tableSnapshot()).toEqual(before);
  });
});
