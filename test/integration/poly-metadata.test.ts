import { beforeAll, describe, expect, it } from 'vitest';
import { slotId } from '#lib/domain/labware-ids.ts';
import { MAX_POLY_METADATA_PER_WRITE } from '#lib/domain/budgets.ts';
import { call, doc, warmKeyCache } from '../support/api.ts';
import { direct } from '../support/engine.ts';
import { addAliquot, createPlate, createRack, createSample, createTube, uniqueName, type Linkage } from '../support/fixtures.ts';
import { createRequest, workIds } from '../support/requests.ts';
import { expectError, header, idsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * poly_metadata (contract §2, reference-behaviour.md §2.9): a key and a value on a request, well,
 * sample, plate, tube, tube rack or aliquot (`metadatable`), each key once per record ignoring case;
 * GET with filters `key`, `metadatable_id`, `metadatable_type`; PATCH; the records' own `poly_metadata`
 * relationships; `POST /poly_metadata/bulk_create`, all or nothing. Every refused write is checked to
 * leave the table as it was.
 */

beforeAll(freshStore);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const entry = (metadatable: Linkage | undefined, attributes: Record<string, unknown>) => ({
  type: 'poly_metadata',
  attributes,
  ...(metadatable ? { relationships: { metadatable: { data: metadatable } } } : {}),
});
const metadatumDoc = (metadatable: Linkage | undefined, attributes: Record<string, unknown>) => ({ data: entry(metadatable, attributes) });
const post = (metadatable: Linkage, key: string, value = 'v') => call('POST', '/api/v2/poly_metadata', { body: metadatumDoc(metadatable, { key, value }) });
const refusedPost = (body: unknown) => refused('POST', '/api/v2/poly_metadata', body);
const patchDoc = (id: string, attributes: Record<string, unknown>, metadatable?: Linkage | null) =>
  doc('poly_metadata', attributes, metadatable === undefined ? undefined : { metadatable: { data: metadatable } }, id);

/** Creates a metadatum, failing the test unless it is created; returns its `data`. */
async function createMetadatum(metadatable: Linkage, key: string, value = 'v'): Promise<any> {
  const res = await post(metadatable, key, value);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** One record of each metadatable type. */
const records: Record<string, Linkage> = {};
let request: Linkage;

beforeAll(async () => {
  const ids = await workIds();
  const plate = await createPlate();
  const tube = await createTube();
  const well = { type: 'wells', id: String(slotId(Number(plate.id), 1)) };
  const sample = await createSample();
  const aliquot = await addAliquot(well, sample.id);
  request = { type: 'requests', id: (await createRequest({ asset: well, requestType: ids.sequencing })).id };
  Object.assign(records, {
    requests: request,
    wells: well,
    samples: { type: 'samples', id: sample.id },
    plates: { type: 'plates', id: plate.id },
    tubes: { type: 'tubes', id: tube.id },
    tube_racks: { type: 'tube_racks', id: (await createRack()).id },
    aliquots: { type: 'aliquots', id: aliquot.id },
  });
});

describe('POST /poly_metadata', () => {
  it('puts a key and a value on a record of every metadatable type, each read back through its record', async () => {
    for (const [type, record] of Object.entries(records)) {
      const key = uniqueName('key');
      const res = await post(record, key, `on ${type}`);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const metadatum = res.body.data;
      expect(header(res, 'Location')).toBe(`https://lts.test/api/v2/poly_metadata/${metadatum.id}`);
      expect(metadatum.attributes).toEqual({
        uuid: expect.stringMatching(UUID_V4),
        key,
        value: `on ${type}`,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const read = await call('GET', `/api/v2/poly_metadata/${metadatum.id}?include=metadatable`);
      expect(read.body.data.relationships.metadatable.data).toEqual(record);
      expect(read.body.included.map((r: any) => ({ type: r.type, id: r.id }))).toEqual([record]);
      const own = await call('GET', `/api/v2/${type}/${record.id}/poly_metadata`);
      expect(own.status, type).toBe(200);
      expect(own.body.data.map((m: any) => m.attributes.value)).toContain(`on ${type}`);
    }
  });

  it('emits poly_metadata.created', async () => {
    const metadatum = await createMetadatum(request, uniqueName('evented'));
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'poly_metadata' && e.resource.id === metadatum.id);
    expect(events.map((e) => e.type)).toEqual(['poly_metadata.created']);
    expect(events[0]!.data.attributes.key).toBe(metadatum.attributes.key);
  });

  it('refuses a key the record already has, ignoring case (422 naming the holder), but takes it on another record', async () => {
    const key = uniqueName('pcr_cycles');
    const first = await createMetadatum(request, key);
    const error = expectError(await refusedPost(metadatumDoc(request, { key: key.toUpperCase(), value: 'x' })), 422, 'not_unique', '/data/attributes/key');
    expect(error.detail).toBe(
      `key - "${key.toUpperCase()}" is already in use by poly_metadata ${first.id} on requests ${request.id} (keys are unique per record, ignoring case)`,
    );
    await createMetadatum(records.wells!, key);
    await createMetadatum(records.samples!, key);
  });

  it('of 20 simultaneous POSTs of one key on one record exactly one is created; the others are 422, leaving nothing', async () => {
    const key = uniqueName('race');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(records.plates!, key, `value ${i}`)));
    const created = results.filter((r) => r.status === 201);
    expect(created, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.errors[0]).toMatchObject({ code: 'not_unique', source: { pointer: '/data/attributes/key' } });
    }
    const stored = await call('GET', `/api/v2/poly_metadata?filter[metadatable_type]=plates&filter[metadatable_id]=${records.plates!.id}&filter[key]=${key}`);
    expect(idsOf(stored)).toEqual([created[0]!.body.data.id]);
    const events = (await outboxEvents()).filter((e) => e.type === 'poly_metadata.created' && e.data.attributes.key === key);
    expect(events).toHaveLength(1);
  });

  it('answers 404 for a record that does not exist and 400 for a type that has no poly metadata', async () => {
    const missing = expectError(
      await refusedPost(metadatumDoc({ type: 'requests', id: '999999' }, { key: 'k', value: 'v' })),
      404,
      'record_not_found',
      '/data/relationships/metadatable/data',
    );
    expect(missing.detail).toBe('metadatable - no requests with id 999999');
    expectError(
      await refusedPost(metadatumDoc({ type: 'wells', id: String(Number(records.wells!.id) + 200) }, { key: 'k', value: 'v' })),
      404,
      'record_not_found',
    );
    expectError(
      await refusedPost(metadatumDoc({ type: 'studies', id: '1' }, { key: 'k', value: 'v' })),
      400,
      'type_mismatch',
      '/data/relationships/metadatable/data/type',
    );
  });

  it('requires key, value and metadatable; refuses blank or long keys, values of other types, unknown fields and a client id', async () => {
    const none = await refusedPost(metadatumDoc(undefined, {}));
    for (const at of ['/data/attributes/key', '/data/attributes/value', '/data/relationships/metadatable']) expectError(none, 422, 'required', at);
    const blank = expectError(await refusedPost(metadatumDoc(request, { key: '  ', value: 'v' })), 422, 'invalid_value', '/data/attributes/key');
    expect(blank.detail).toBe('key - must not be blank, got "  "');
    expectError(await refusedPost(metadatumDoc(request, { key: 'k', value: '' })), 422, 'invalid_value', '/data/attributes/value');
    const long = expectError(await refusedPost(metadatumDoc(request, { key: 'k'.repeat(256), value: 'v' })), 422, 'invalid_value', '/data/attributes/key');
    expect(long.detail).toMatch(/^key - must be at most 255 characters, got "k+\.\.\.$/);
    await createMetadatum(request, 'k'.repeat(255));
    expectError(await refusedPost(metadatumDoc(request, { key: 'k', value: 5 })), 422, 'invalid_type', '/data/attributes/value');
    expectError(await refusedPost(metadatumDoc(request, { key: 'k', value: 'v', colour: 'red' })), 400, 'param_not_allowed', '/data/attributes/colour');
    expectError(await refusedPost({ data: { ...entry(request, { key: 'k', value: 'v' }), id: '1' } }), 403, 'client_generated_id');
  });
});

describe('PATCH /poly_metadata/{id}', () => {
  it('changes the value (poly_metadata.updated), and the key’s case', async () => {
    const metadatum = await createMetadatum(request, uniqueName('size'));
    const res = await call('PATCH', `/api/v2/poly_metadata/${metadatum.id}`, { body: patchDoc(metadatum.id, { value: 'new' }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ key: metadatum.attributes.key, value: 'new' });
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'poly_metadata' && e.resource.id === metadatum.id);
    expect(events.map((e) => e.type).sort()).toEqual(['poly_metadata.created', 'poly_metadata.updated']);
    const upper = metadatum.attributes.key.toUpperCase();
    const recased = await call('PATCH', `/api/v2/poly_metadata/${metadatum.id}`, { body: patchDoc(metadatum.id, { key: upper }) });
    expect(recased.status, JSON.stringify(recased.body)).toBe(200);
    expect(recased.body.data.attributes.key).toBe(upper);
  });

  it('moves a metadatum to another record, which then lists it', async () => {
    const metadatum = await createMetadatum(records.tubes!, uniqueName('moving'));
    const res = await call('PATCH', `/api/v2/poly_metadata/${metadatum.id}`, { body: patchDoc(metadatum.id, {}, records.tube_racks!) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(idsOf(await call('GET', `/api/v2/tubes/${records.tubes!.id}/poly_metadata`))).not.toContain(metadatum.id);
    expect(idsOf(await call('GET', `/api/v2/tube_racks/${records.tube_racks!.id}/poly_metadata`))).toContain(metadatum.id);
  });

  it('refuses a key the record has, by key or by record (422 at what was sent), and removing key, value or record (422)', async () => {
    const [a, b] = [uniqueName('a'), uniqueName('b')];
    const holder = await createMetadatum(request, a);
    const metadatum = await createMetadatum(request, b);
    const path = `/api/v2/poly_metadata/${metadatum.id}`;
    const byKey = expectError(await refused('PATCH', path, patchDoc(metadatum.id, { key: a.toUpperCase() })), 422, 'not_unique', '/data/attributes/key');
    expect(byKey.detail).toContain(`by poly_metadata ${holder.id} on requests ${request.id}`);
    const elsewhere = await createMetadatum(records.samples!, b);
    expectError(
      await refused('PATCH', `/api/v2/poly_metadata/${elsewhere.id}`, patchDoc(elsewhere.id, {}, request)),
      422,
      'not_unique',
      '/data/relationships/metadatable',
    );
    expectError(await refused('PATCH', path, patchDoc(metadatum.id, { key: null })), 422, 'required', '/data/attributes/key');
    expectError(await refused('PATCH', path, patchDoc(metadatum.id, { value: null })), 422, 'required', '/data/attributes/value');
    expectError(await refused('PATCH', path, patchDoc(metadatum.id, { value: ' ' })), 422, 'invalid_value', '/data/attributes/value');
    expectError(await refused('PATCH', path, patchDoc(metadatum.id, {}, null)), 422, 'required', '/data/relationships/metadatable');
    expectError(await refused('PATCH', path, patchDoc(metadatum.id, { uuid: 'x' })), 400, 'param_not_allowed', '/data/attributes/uuid');
  });
});

describe('GET /poly_metadata', () => {
  it('filters by key (ignoring case), metadatable_id and metadatable_type (JSON:API type or class name)', async () => {
    const key = uniqueName('Filtered');
    const onRequest = await createMetadatum(request, key);
    const onWell = await createMetadatum(records.wells!, key.toLowerCase());
    const other = await createMetadatum(request, uniqueName('other'));
    const ids = async (query: string) => idsOf(await call('GET', `/api/v2/poly_metadata?page[size]=500&${query}`));

    expect(await ids(`filter[key]=${key.toUpperCase()}`)).toEqual([onRequest.id, onWell.id]);
    expect(await ids(`filter[metadatable_id]=${request.id}&filter[metadatable_type]=requests`)).toEqual(expect.arrayContaining([onRequest.id, other.id]));
    expect(await ids(`filter[metadatable_id]=${request.id}&filter[metadatable_type]=requests`)).not.toContain(onWell.id);
    for (const type of ['wells', 'Well']) expect(await ids(`filter[key]=${key}&filter[metadatable_type]=${type}`)).toEqual([onWell.id]);
    expect(await ids(`filter[key]=${key}&filter[metadatable_id]=${request.id}&filter[metadatable_type]=Request`)).toEqual([onRequest.id]);
    expect(await ids(`filter[key]=${key}&filter[metadatable_id]=${request.id},${records.wells!.id}`)).toEqual([onRequest.id, onWell.id]);
    const all = await call('GET', '/api/v2/poly_metadata?page[size]=500');
    expect(all.body.meta.record_count).toBe(all.body.data.length);
    expect((await call('GET', `/api/v2/poly_metadata/${onWell.id}`)).body.data).toEqual(onWell);
  });

  it('finds a record’s key with one Query (limber’s lookup): the record id’s index entries, then the few metadata they name', async () => {
    const key = uniqueName('lookup');
    const metadatum = await createMetadatum(request, key);
    await createMetadatum(request, uniqueName('noise'));
    for (const query of [
      `filter[key]=${key}&filter[metadatable_id]=${request.id}`,
      `filter[key]=${key}&filter[metadatable_id]=${request.id}&filter[metadatable_type]=requests`,
    ]) {
      const { document, counts } = await direct('GET', `/api/v2/poly_metadata?${query}`);
      expect(document.data.map((m: any) => m.id)).toEqual([metadatum.id]);
      expect(counts).toEqual({ Query: 1, BatchGetItem: 1 });
    }
  });

  it('refuses an unknown metadatable type (400 naming both lists) and unknown filters', async () => {
    const error = expectError(await call('GET', '/api/v2/poly_metadata?filter[metadatable_type]=Study'), 400, 'invalid_parameter');
    expect(error.source).toEqual({ parameter: 'filter[metadatable_type]' });
    expect(error.detail).toBe(
      'filter[metadatable_type] - "Study" names no type poly metadata belong to; use one of requests, wells, samples, plates, tubes, tube_racks, aliquots or Request, Well, Sample, Plate, Tube, TubeRack, Aliquot',
    );
    expectError(await call('GET', '/api/v2/poly_metadata?filter[value]=v'), 400, 'filter_not_allowed');
  });

  it('reads the metadata of every well of a plate with one Query', async () => {
    const plate = await createPlate();
    const wells = [1, 2, 96].map((slot) => ({ type: 'wells', id: String(slotId(Number(plate.id), slot)) }));
    for (const well of wells) await createMetadatum(well, 'under_represented', 'true');
    const { document, counts } = await direct('GET', `/api/v2/plates/${plate.id}?include=wells.poly_metadata`);
    const included = document.included.filter((r: any) => r.type === 'wells' && r.relationships.poly_metadata.data.length > 0);
    expect(included.map((w: any) => w.id)).toEqual(wells.map((w) => w.id));
    expect(counts).toEqual({ BatchGetItem: 2, Query: 1 });
  });
});

describe('POST /poly_metadata/bulk_create', () => {
  it('creates every entry in one transaction: 201 with the array, one event each', async () => {
    const keys = [uniqueName('bulk'), uniqueName('bulk'), uniqueName('bulk')];
    const targets = [records.aliquots!, records.aliquots!, records.samples!];
    const before = new Set((await outboxEvents()).map((e) => e.id));
    const { response, document, counts } = await direct('POST', '/api/v2/poly_metadata/bulk_create', {
      data: keys.map((key, i) => entry(targets[i], { key, value: `v${i}` })),
    });
    expect(response.status, response.body).toBe(201);
    expect(response.headers.Location).toBeUndefined();
    expect(counts.TransactWriteItems).toBe(1);
    expect(document.data.map((m: any) => [m.attributes.key, m.attributes.value])).toEqual(keys.map((key, i) => [key, `v${i}`]));
    for (const metadatum of document.data) expect((await call('GET', `/api/v2/poly_metadata/${metadatum.id}`)).body.data).toEqual(metadatum);
    expect(idsOf(await call('GET', `/api/v2/aliquots/${records.aliquots!.id}/poly_metadata`))).toEqual(
      expect.arrayContaining(document.data.slice(0, 2).map((m: any) => m.id)),
    );
    const events = (await outboxEvents()).filter((e) => !before.has(e.id));
    expect(events.map((e) => `${e.type} ${e.resource.id}`).sort()).toEqual(document.data.map((m: any) => `poly_metadata.created ${m.id}`).sort());
  });

  it('refuses an empty list (422 at /data), writing nothing', async () => {
    const res = await refused('POST', '/api/v2/poly_metadata/bulk_create', { data: [] });
    const error = expectError(res, 422, 'invalid_value', '/data');
    expect(error.detail).toBe('data - must hold at least one poly_metadata resource object; got an empty array');
  });

  it('is all or nothing: one bad entry refuses the request, the error pointing into that entry', async () => {
    const ok = () => entry(request, { key: uniqueName('ok'), value: 'v' });
    const refusedBulk = (entries: unknown[]) => refused('POST', '/api/v2/poly_metadata/bulk_create', { data: entries });

    const missing = expectError(
      await refusedBulk([ok(), entry({ type: 'requests', id: '999999' }, { key: 'k', value: 'v' }), ok()]),
      404,
      'record_not_found',
      '/data/1/relationships/metadatable/data',
    );
    expect(missing.detail).toBe('metadatable - no requests with id 999999');
    expectError(await refusedBulk([ok(), entry(request, { key: 'k' })]), 422, 'required', '/data/1/attributes/value');
    expectError(await refusedBulk([entry(request, { key: 'k', value: 'v', colour: 'red' })]), 400, 'param_not_allowed', '/data/0/attributes/colour');
    expectError(await refusedBulk([ok(), 'nonsense']), 400, 'invalid_member', '/data/1');
    expectError(await refusedBulk([{ ...ok(), id: '4' }]), 403, 'client_generated_id', '/data/0/id');
    expectError(await refusedBulk([{ ...ok(), type: 'samples' }]), 409, 'conflict', '/data/0/type');
    expectError(await refused('POST', '/api/v2/poly_metadata/bulk_create', { data: ok() }), 400, 'invalid_member', '/data');

    // Every entry's problems of the earliest kind of check: values (422) before references (404), as in one POST.
    const mixed = await refusedBulk([
      entry({ type: 'requests', id: '999999' }, { key: 'k', value: 'v' }),
      entry(request, { key: '', value: 'v' }),
      ok(),
      entry(request, { key: 'k', value: 7 }),
    ]);
    expect(mixed.status).toBe(422);
    expect(mixed.body.errors.map((e: any) => e.source.pointer)).toEqual(['/data/1/attributes/key', '/data/3/attributes/value']);
  });

  it('refuses a key given twice for one record, or one the record has (422 at the entry)', async () => {
    const key = uniqueName('twice');
    const refusedBulk = (entries: unknown[]) => refused('POST', '/api/v2/poly_metadata/bulk_create', { data: entries });
    const twice = expectError(
      await refusedBulk([
        entry(request, { key, value: '1' }),
        entry(records.wells!, { key, value: '2' }),
        entry(request, { key: key.toUpperCase(), value: '3' }),
      ]),
      422,
      'not_unique',
      '/data/2/attributes/key',
    );
    expect(twice.detail).toBe(
      `key - "${key.toUpperCase()}" is already in use by entry 0 of this request on requests ${request.id} (keys are unique per record, ignoring case)`,
    );
    const held = await createMetadatum(records.wells!, key);
    const taken = expectError(
      await refusedBulk([entry(request, { key, value: '1' }), entry(records.wells!, { key, value: '2' })]),
      422,
      'not_unique',
      '/data/1/attributes/key',
    );
    expect(taken.detail).toContain(`by poly_metadata ${held.id} on wells ${records.wells!.id}`);
    // A key the record has, in another case.
    const recased = expectError(
      await refusedBulk([entry(request, { key: uniqueName('other'), value: '1' }), entry(records.wells!, { key: key.toLowerCase(), value: '2' })]),
      422,
      'not_unique',
      '/data/1/attributes/key',
    );
    expect(recased.detail).toBe(
      `key - "${key.toLowerCase()}" is already in use by poly_metadata ${held.id} on wells ${records.wells!.id} (keys are unique per record, ignoring case)`,
    );
  });

  it('treats keys differing only in case as one key in every script (ß and SS, final ς and σ), in one request and across requests', async () => {
    const refusedBulk = (entries: unknown[]) => refused('POST', '/api/v2/poly_metadata/bulk_create', { data: entries });
    const prefix = uniqueName('unicode');
    for (const [stored, sent] of [
      ['Straße', 'STRASSE'],
      ['ΟΔΟΣ', 'οδοσ'],
      ['Cafe\u0301', 'CAFÉ'],
    ]) {
      const held = await createMetadatum(records.samples!, `${prefix}-${stored}`);
      const error = expectError(
        await refusedPost(metadatumDoc(records.samples!, { key: `${prefix}-${sent}`, value: 'x' })),
        422,
        'not_unique',
        '/data/attributes/key',
      );
      expect(error.detail).toContain(`${JSON.stringify(`${prefix}-${sent}`)} is already in use by poly_metadata ${held.id}`);
      const inOne = await refusedBulk([
        entry(records.plates!, { key: `${prefix}-${stored}`, value: '1' }),
        entry(records.plates!, { key: `${prefix}-${sent}`, value: '2' }),
      ]);
      expect(expectError(inOne, 422, 'not_unique', '/data/1/attributes/key').detail).toContain('by entry 0 of this request');
    }
    // filter[key] folds alike.
    const found = await call(
      'GET',
      `/api/v2/poly_metadata?filter[key]=${encodeURIComponent(`${prefix}-strasse`)}&filter[metadatable_id]=${records.samples!.id}`,
    );
    expect(found.body.data.map((m: any) => m.attributes.key)).toEqual([`${prefix}-Straße`]);
  });

  it('creates 24 entries in one transaction (98 items); 25 in several, still one write: 201 with all of them', async () => {
    const entries = (n: number) => Array.from({ length: n }, (_, i) => entry(records.tube_racks!, { key: uniqueName(`edge${i}`), value: String(i) }));
    const one = await direct('POST', '/api/v2/poly_metadata/bulk_create', { data: entries(24) });
    expect(one.response.status, one.response.body).toBe(201);
    expect(one.counts.TransactWriteItems).toBe(1);
    // Past one transaction: intent, stages, commit point, apply (lib/store/large-write.ts).
    const several = await direct('POST', '/api/v2/poly_metadata/bulk_create', { data: entries(25) });
    expect(several.response.status, several.response.body).toBe(201);
    expect(several.counts.TransactWriteItems).toBeGreaterThan(3);
    expect(several.document.data).toHaveLength(25);
    for (const metadatum of several.document.data) expect((await call('GET', `/api/v2/poly_metadata/${metadatum.id}`)).body.data).toEqual(metadatum);
  });

  it(`refuses more than ${MAX_POLY_METADATA_PER_WRITE} entries (the bound of one request) with a 422 naming it, before reading anything`, async () => {
    const entries = Array.from({ length: MAX_POLY_METADATA_PER_WRITE + 1 }, (_, i) => entry(records.tube_racks!, { key: `over${i}`, value: 'v' }));
    await warmKeyCache();
    const res = await call('POST', '/api/v2/poly_metadata/bulk_create', { body: { data: entries } });
    expectError(res, 422, 'too_large', '/data');
    expect(res.calls).toBe(0);
  });

  it('answers other methods with 405 and Allow: POST', async () => {
    const res = await call('GET', '/api/v2/poly_metadata/bulk_create');
    expectError(res, 405, 'method_not_allowed');
    expect(header(res, 'Allow')).toBe('POST');
  });
});
