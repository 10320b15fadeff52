import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, type CallResult } from '../support/api.ts';
import { recordCount } from '../support/fixtures.ts';
import { header } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, type Envelope } from '../support/table.ts';

/** Contract §1.6 (writes, idempotency, no lost updates) and §4 (the outbox written with every change). */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
/** Events written while `action` ran. */
async function eventsOf(action: () => Promise<unknown>): Promise<Envelope[]> {
  const before = new Set((await outboxEvents()).map((e) => e.id));
  await action();
  return (await outboxEvents()).filter((e) => !before.has(e.id));
}

let uniq = 0;
const name = (prefix: string) => `${prefix}-${++uniq}`;

describe('writes (§1.6)', () => {
  it('answers POST with 201, the resource and a Location', async () => {
    const res = await call('POST', '/api/v2/samples', {
      body: doc('samples', { name: name('w'), site_sample_id: 'S1', control: true, control_type: 'negative' }),
    });
    expect(res.status).toBe(201);
    const { id } = res.body.data;
    expect(header(res, 'location')).toBe(`${BASE}/samples/${id}`);
    expect(res.body.data.links.self).toBe(`${BASE}/samples/${id}`);
    expect(res.body.data.attributes).toMatchObject({ site_sample_id: 'S1', control: true, control_type: 'negative' });
    const read = await call('GET', `/api/v2/samples/${id}`);
    expect(read.body.data).toEqual(res.body.data);
  });

  it('answers PATCH with 200 and the changed resource', async () => {
    const created = await call('POST', '/api/v2/samples', { body: doc('samples', { name: name('w'), site_sample_id: 'before' }) });
    const { id } = created.body.data;
    const res = await call('PATCH', `/api/v2/samples/${id}`, { body: doc('samples', { site_sample_id: 'after' }, undefined, id) });
    expect(res.status).toBe(200);
    expect(header(res, 'location')).toBeUndefined();
    expect(res.body.data.attributes.site_sample_id).toBe('after');
    expect(res.body.data.attributes.uuid).toBe(created.body.data.attributes.uuid);
    expect((await call('GET', `/api/v2/samples/${id}`)).body.data.attributes.site_sample_id).toBe('after');
  });

  it('renders the response with the include of the write', async () => {
    const res = await call('POST', '/api/v2/samples?include=sample_metadata', { body: doc('samples', { name: name('w') }) });
    expect(res.status).toBe(201);
    expect(res.body.included.map((r: { type: string }) => r.type)).toEqual(['sample_metadata']);
    expect(res.body.data.relationships.sample_metadata.data).toEqual({ type: 'sample_metadata', id: res.body.included[0].id });
  });
});

describe('Idempotency-Key (§1.6)', () => {
  it('replays the first response to a repeat without acting again', async () => {
    const body = doc('samples', { name: name('idem') });
    const headers = { 'idempotency-key': `key-${uniq}` };
    const before = await recordCount('samples');
    const first = await call('POST', '/api/v2/samples', { body, headers });
    expect(first.status).toBe(201);
    const events = await eventsOf(async () => {
      const again = await call('POST', '/api/v2/samples', { body, headers });
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(header(again, 'location')).toBe(header(first, 'location'));
    });
    expect(events).toEqual([]);
    expect(await recordCount('samples')).toBe(before + 1);
  });

  it('answers 422 to the same key with a different body', async () => {
    const headers = { 'idempotency-key': 'reused-key' };
    expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: name('idem') }), headers })).status).toBe(201);
    const before = await recordCount('samples');
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: name('idem') }), headers });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ status: '422', code: 'idempotency_key_reused', source: { header: 'Idempotency-Key' } });
    expect(await recordCount('samples')).toBe(before);
  });

  it('creates one record per distinct key', async () => {
    const body = doc('samples', { site_sample_id: 'same-body' });
    const before = await recordCount('samples');
    const a = await call('POST', '/api/v2/samples', { body, headers: { 'idempotency-key': 'distinct-a' } });
    const b = await call('POST', '/api/v2/samples', { body, headers: { 'idempotency-key': 'distinct-b' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.id).not.toBe(b.body.data.id);
    expect(await recordCount('samples')).toBe(before + 2);
  });

  it('acts once for concurrent requests with the same key', async () => {
    const body = doc('samples', { name: name('idem-race') });
    const before = await recordCount('samples');
    const results = await Promise.all(Array.from({ length: 5 }, () => call('POST', '/api/v2/samples', { body, headers: { 'idempotency-key': 'race-key' } })));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(await recordCount('samples')).toBe(before + 1);
  });
});

describe('concurrent writes (§1.6: no lost updates)', () => {
  it('keeps every attribute of concurrent PATCHes to one record', async () => {
    const created = await call('POST', '/api/v2/samples?include=sample_metadata', { body: doc('samples', { name: name('race') }) });
    const metadataId: string = created.body.included[0].id;
    const values: Record<string, string> = {
      cohort: 'C1',
      collected_by: 'Lab 7',
      concentration: '12.5',
      donor_id: 'D-42',
      sample_common_name: 'Homo sapiens',
      sample_description: 'from the race test',
      supplier_name: 'Supplier X',
      volume: '30',
    };
    const results = await Promise.all(
      Object.entries(values).map(([field, value]) =>
        call('PATCH', `/api/v2/sample_metadata/${metadataId}`, { body: doc('sample_metadata', { [field]: value }, undefined, metadataId) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const read = await call('GET', `/api/v2/sample_metadata/${metadataId}`);
    expect(read.body.data.attributes).toMatchObject(values);
  });

  it('creates every one of concurrent POSTs with distinct ids', async () => {
    const before = await recordCount('samples');
    const results = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/api/v2/samples', { body: doc('samples', { name: name('burst') }) })));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(10);
    expect(await recordCount('samples')).toBe(before + 10);
    const listed = await call('GET', `/api/v2/samples?filter[name]=${results.map((r) => r.body.data.attributes.name).join(',')}`);
    expect(listed.body.data.map((r: { id: string }) => r.id).sort()).toEqual(results.map((r) => r.body.data.id).sort());
  });

  it('lets exactly one of concurrent POSTs with the same name win', async () => {
    const before = await recordCount('samples');
    const taken = name('unique');
    const results = await Promise.all(Array.from({ length: 4 }, () => call('POST', '/api/v2/samples', { body: doc('samples', { name: taken }) })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    for (const r of results.filter((r) => r.status === 422))
      expect(r.body.errors[0]).toMatchObject({ code: 'not_unique', source: { pointer: '/data/attributes/name' } });
    expect(await recordCount('samples')).toBe(before + 1);
  });
});

describe('events (§4)', () => {
  it('writes samples.created and sample_metadata.created envelopes with a POST', async () => {
    let created!: CallResult;
    const events = await eventsOf(async () => {
      created = await call('POST', '/api/v2/samples?include=sample_metadata', { body: doc('samples', { name: name('event'), site_sample_id: 'E1' }) });
    });
    expect(created.status).toBe(201);
    const sample = created.body.data;
    const metadata = created.body.included[0];
    expect(events.map((e) => e.type).sort()).toEqual(['sample_metadata.created', 'samples.created']);
    const sampleEvent = events.find((e) => e.type === 'samples.created')!;
    expect(Object.keys(sampleEvent).sort()).toEqual(['actor', 'data', 'id', 'occurred_at', 'resource', 'type']);
    expect(sampleEvent.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(sampleEvent.occurred_at))).toBe(false);
    expect(sampleEvent.resource).toEqual({ type: 'samples', id: sample.id, uuid: sample.attributes.uuid, version: 1 });
    expect(sampleEvent.data).toMatchObject({ type: 'samples', id: sample.id, attributes: sample.attributes });
    expect(sampleEvent.actor).toMatchObject({ api_key: 'test-write' });
    const metadataEvent = events.find((e) => e.type === 'sample_metadata.created')!;
    expect(metadataEvent.resource).toMatchObject({ type: 'sample_metadata', id: metadata.id });
    expect(metadataEvent.occurred_at).toBe(sampleEvent.occurred_at);
  });

  it('writes <type>.updated with the new state on PATCH', async () => {
    const created = await call('POST', '/api/v2/samples', { body: doc('samples', { name: name('event') }) });
    const { id } = created.body.data;
    const events = await eventsOf(() => call('PATCH', `/api/v2/samples/${id}`, { body: doc('samples', { site_sample_id: 'E2' }, undefined, id) }));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'samples.updated', resource: { type: 'samples', id, version: 2 }, data: { attributes: { site_sample_id: 'E2' } } });
  });

  it('writes no event for a rejected write', async () => {
    const taken = name('event');
    expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: taken }) })).status).toBe(201);
    const before = await recordCount('samples');
    const events = await eventsOf(async () => {
      expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: taken }) })).status).toBe(422);
      expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: name('event'), control: 'no' }) })).status).toBe(422);
      expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: name('event'), colour: 'red' }) })).status).toBe(400);
      expect(
        (await call('POST', '/api/v2/samples', { body: doc('samples', { name: name('event') }, { studies: { data: [{ type: 'studies', id: '99999' }] } }) }))
          .status,
      ).toBe(404);
    });
    expect(events).toEqual([]);
    expect(await recordCount('samples')).toBe(before);
  });
});
