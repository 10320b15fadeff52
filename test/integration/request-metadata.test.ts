import { beforeAll, describe, expect, it } from 'vitest';
import { slotId } from '#lib/domain/labware-ids.ts';
import { call, doc } from '../support/api.ts';
import { createPlate, rel } from '../support/fixtures.ts';
import { createRequest, workIds, type WorkIds } from '../support/requests.ts';
import { expectError, idsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused, tableSnapshot } from '../support/table.ts';

/**
 * request_metadata (contract §2, reference-behaviour.md §2.12): POST with `request` and the two
 * integers (write-once), at most one per request; PATCH may only move the record to another request;
 * `allowance_band` read-only. The request renders the values as `options`. Every refused write is
 * checked to leave the table as it was.
 */

beforeAll(freshStore);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const metadataDoc = (request: string | undefined, attributes: Record<string, unknown> = {}) =>
  doc('request_metadata', attributes, request === undefined ? undefined : { request: rel('requests', request) });
const post = (request: string | undefined, attributes?: Record<string, unknown>) =>
  call('POST', '/api/v2/request_metadata', { body: metadataDoc(request, attributes) });
const refusedPost = (body: unknown) => refused('POST', '/api/v2/request_metadata', body);
const patch = (id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  call('PATCH', `/api/v2/request_metadata/${id}`, { body: doc('request_metadata', attributes, relationships, id) });

let ids: WorkIds;
let plate: any;
let slot = 0;

/** A new request on the next well of the file's plate; its id. */
async function newRequest(): Promise<string> {
  return (await createRequest({ asset: { type: 'wells', id: String(slotId(Number(plate.id), ++slot)) }, requestType: ids.sequencing })).id;
}

/** Creates metadata for a request, failing the test unless it is created; returns its `data`. */
async function createMetadata(request: string, attributes: Record<string, unknown> = { number_of_pools: 2, cells_per_chip_well: 5 }): Promise<any> {
  const res = await post(request, attributes);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

const requestOf = async (id: string) => (await call('GET', `/api/v2/requests/${id}?include=request_metadata`)).body;

beforeAll(async () => {
  ids = await workIds();
  plate = await createPlate();
});

describe('POST /request_metadata', () => {
  it('creates the metadata of a request; the request links it and renders its values as options', async () => {
    const request = await newRequest();
    const res = await post(request, { number_of_pools: 2, cells_per_chip_well: 5 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const metadata = res.body.data;
    expect(res.headers.Location).toBe(`https://lts.test/api/v2/request_metadata/${metadata.id}`);
    expect(metadata.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      number_of_pools: 2,
      cells_per_chip_well: 5,
      allowance_band: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await call('GET', `/api/v2/request_metadata/${metadata.id}`)).body.data).toEqual(metadata);
    expect((await call('GET', `/api/v2/request_metadata/${metadata.id}/relationships/request`)).body.data).toEqual({ type: 'requests', id: request });

    const read = await requestOf(request);
    expect(read.data.attributes.options).toEqual({ number_of_pools: 2, cells_per_chip_well: 5 });
    expect(read.data.relationships.request_metadata.data).toEqual({ type: 'request_metadata', id: metadata.id });
    expect(read.included).toEqual([metadata]);
    expect(idsOf(await call('GET', '/api/v2/request_metadata?page[size]=500'))).toContain(metadata.id);

    const events = (await outboxEvents()).filter(
      (e) => (e.resource.type === 'request_metadata' && e.resource.id === metadata.id) || (e.resource.type === 'requests' && e.resource.id === request),
    );
    expect(events.map((e) => e.type).sort()).toEqual(['request_metadata.created', 'requests.created', 'requests.updated']);
    expect(events.find((e) => e.type === 'requests.updated')!.data.attributes.options).toEqual({ number_of_pools: 2, cells_per_chip_well: 5 });
  });

  it('needs only the request; options then hold what was given', async () => {
    const request = await newRequest();
    const metadata = await createMetadata(request, { number_of_pools: 4 });
    expect(metadata.attributes).toMatchObject({ number_of_pools: 4, cells_per_chip_well: null });
    expect((await requestOf(request)).data.attributes.options).toEqual({ number_of_pools: 4 });
  });

  it('is read through a plate’s wells, their requests and their metadata', async () => {
    const request = await newRequest();
    const metadata = await createMetadata(request);
    const res = await call('GET', `/api/v2/plates/${plate.id}?include=wells.requests_as_source.request_metadata`);
    expect(res.status).toBe(200);
    expect(res.body.included.filter((r: any) => r.type === 'request_metadata').map((r: any) => r.id)).toContain(metadata.id);
  });

  it('refuses a second record for a request (422 at request), writing nothing', async () => {
    const request = await newRequest();
    const first = await createMetadata(request);
    const error = expectError(await refusedPost(metadataDoc(request, { number_of_pools: 1 })), 422, 'not_unique', '/data/relationships/request');
    expect(error.detail).toBe(`request - ${request} is already in use by request_metadata ${first.id}`);
  });

  it('of 10 simultaneous POSTs for one request exactly one is created; the others are 422 (or 409), leaving nothing', async () => {
    const request = await newRequest();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post(request, { number_of_pools: i + 1 })));
    const created = results.filter((r) => r.status === 201);
    expect(created, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201))
      expect(['not_unique', 'concurrent_update'], JSON.stringify(r.body)).toContain(r.body.errors[0].code);
    const winner = created[0]!.body.data;
    expect((await requestOf(request)).data.relationships.request_metadata.data).toEqual({ type: 'request_metadata', id: winner.id });
    expect((await requestOf(request)).data.attributes.options.number_of_pools).toBe(winner.attributes.number_of_pools);
    const mine = (await call('GET', '/api/v2/request_metadata?page[size]=500&include=request')).body.data.filter(
      (m: any) => m.relationships.request.data.id === request,
    );
    expect(mine.map((m: any) => m.id)).toEqual([winner.id]);
  });

  it('requires the request (422), answers 404 for an unknown one and 400 for another type, 403 for a client id', async () => {
    expectError(await refusedPost(metadataDoc(undefined, { number_of_pools: 1 })), 422, 'required', '/data/relationships/request');
    expectError(await refusedPost(doc('request_metadata', {}, { request: { data: null } })), 422, 'required', '/data/relationships/request');
    const unknown = expectError(await refusedPost(metadataDoc('999999')), 404, 'record_not_found', '/data/relationships/request/data');
    expect(unknown.detail).toBe('request - no requests with id 999999');
    expectError(await refusedPost(doc('request_metadata', {}, { request: rel('wells', 1001) })), 400, 'type_mismatch');
    const request = await newRequest();
    expectError(await refusedPost({ data: { ...metadataDoc(request).data, id: '9' } }), 403, 'client_generated_id', '/data/id');
  });

  it('refuses numbers that are not positive integers (422) and allowance_band (400, read-only)', async () => {
    const request = await newRequest();
    for (const bad of [0, -1, 1.5]) {
      const error = expectError(await refusedPost(metadataDoc(request, { number_of_pools: bad })), 422, 'invalid_value', '/data/attributes/number_of_pools');
      expect(error.detail).toBe(`number_of_pools - must be a positive integer, got ${bad}`);
    }
    const text = expectError(
      await refusedPost(metadataDoc(request, { cells_per_chip_well: '5' })),
      422,
      'invalid_type',
      '/data/attributes/cells_per_chip_well',
    );
    expect(text.detail).toMatch(/^cells_per_chip_well - .*, got "5"$/);
    const band = expectError(await refusedPost(metadataDoc(request, { allowance_band: 'x' })), 400, 'param_not_allowed', '/data/attributes/allowance_band');
    expect(band.detail).toBe('allowance_band is not allowed (it is read-only)');
  });
});

describe('PATCH /request_metadata/{id}', () => {
  it('accepts an empty attributes object, changing nothing', async () => {
    const metadata = await createMetadata(await newRequest());
    const before = await tableSnapshot();
    const res = await patch(metadata.id, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual(metadata);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('moves the record to another request: the old one forgets it, and may have new metadata after', async () => {
    const [from, to] = [await newRequest(), await newRequest()];
    const metadata = await createMetadata(from, { number_of_pools: 3, cells_per_chip_well: 8 });
    const res = await patch(metadata.id, {}, { request: rel('requests', to) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await call('GET', `/api/v2/request_metadata/${metadata.id}/relationships/request`)).body.data).toEqual({ type: 'requests', id: to });
    const old = await requestOf(from);
    expect(old.data.relationships.request_metadata.data).toBeNull();
    expect(old.data.attributes.options).toEqual({});
    const moved = await requestOf(to);
    expect(moved.data.relationships.request_metadata.data).toEqual({ type: 'request_metadata', id: metadata.id });
    expect(moved.data.attributes.options).toEqual({ number_of_pools: 3, cells_per_chip_well: 8 });
    // The one-per-request guard moved with it.
    await createMetadata(from, { number_of_pools: 1 });
    expectError(await refusedPost(metadataDoc(to)), 422, 'not_unique', '/data/relationships/request');
  });

  it('refuses any attribute (400), removing the request (422), and a request that has metadata (422)', async () => {
    const metadata = await createMetadata(await newRequest());
    const path = `/api/v2/request_metadata/${metadata.id}`;
    for (const name of ['number_of_pools', 'cells_per_chip_well']) {
      const res = await refused('PATCH', path, doc('request_metadata', { [name]: 1 }, undefined, metadata.id));
      expect(expectError(res, 400, 'param_not_allowed', `/data/attributes/${name}`).detail).toBe(`${name} is not allowed (it can only be set on create)`);
    }
    expectError(await refused('PATCH', path, doc('request_metadata', { allowance_band: 'A' }, undefined, metadata.id)), 400, 'param_not_allowed');
    expectError(
      await refused('PATCH', path, doc('request_metadata', {}, { request: { data: null } }, metadata.id)),
      422,
      'required',
      '/data/relationships/request',
    );
    const taken = await newRequest();
    const other = await createMetadata(taken);
    const error = expectError(
      await refused('PATCH', path, doc('request_metadata', {}, { request: rel('requests', taken) }, metadata.id)),
      422,
      'not_unique',
      '/data/relationships/request',
    );
    expect(error.detail).toBe(`request - ${taken} is already in use by request_metadata ${other.id}`);
  });
});
