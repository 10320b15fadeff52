import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { create, createPlate, createRack, createTube, rel } from '../support/fixtures.ts';
import { expectError, typedIdsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { refused as refusedAnyStatus } from '../support/table.ts';

/**
 * custom_metadatum_collections (interface.md, contract §2, client-usage.md §1.8 and W8): POST with
 * `user_id`, `asset_id` (integer ids, or numeric strings) and `metadata`; PATCH replaces the whole map;
 * one collection per labware; keys unique ignoring case; values non-empty strings; reachable from plates,
 * tubes, tube racks and `labware` through `custom_metadatum_collection`. Every refused write is checked to
 * leave the table exactly as it was.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
const TYPE = 'custom_metadatum_collections';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// ---------------------------------------------------------------------------------------------------------
// Helpers

/** A write that must be refused with a client error (4xx): checks that it wrote nothing at all. */
async function refused(method: 'POST' | 'PATCH', path: string, body: unknown): Promise<CallResult> {
  const res = await refusedAnyStatus(method, path, body);
  expect(res.status).toBeLessThan(500);
  return res;
}

const refusedPost = (attributes: Record<string, unknown>) => refused('POST', `/api/v2/${TYPE}`, doc(TYPE, attributes));
const refusedPatch = (id: string, attributes: Record<string, unknown>) => refused('PATCH', `/api/v2/${TYPE}/${id}`, doc(TYPE, attributes, undefined, id));

let admin: string;
let tech1: string;

beforeAll(async () => {
  admin = await idOf('users', 'login', 'admin');
  tech1 = await idOf('users', 'login', 'tech1');
});

const createCollection = (attributes: Record<string, unknown>) => create(TYPE, attributes);

async function patch(id: string, attributes: Record<string, unknown>): Promise<CallResult> {
  return call('PATCH', `/api/v2/${TYPE}/${id}`, { body: doc(TYPE, attributes, undefined, id) });
}

const metadataOf = async (id: string) => (await call('GET', `/api/v2/${TYPE}/${id}`)).body.data.attributes.metadata;

// ---------------------------------------------------------------------------------------------------------

describe('POST /custom_metadatum_collections', () => {
  it('creates a collection from integer ids and renders uuid, user_id, asset_id and the flat metadata map', async () => {
    const plate = await createPlate();
    const metadata = { created_with_robot: 'robot-bed-1', stock_barcode: plate.attributes.labware_barcode.human_barcode };
    const res = await call('POST', `/api/v2/${TYPE}`, { body: doc(TYPE, { user_id: Number(admin), asset_id: Number(plate.id), metadata }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const collection = res.body.data;
    expect(collection.type).toBe(TYPE);
    expect(collection.id).toMatch(/^[1-9]\d*$/);
    expect(res.headers.Location).toBe(`${BASE}/${TYPE}/${collection.id}`);
    expect(collection.links.self).toBe(`${BASE}/${TYPE}/${collection.id}`);
    expect(collection.attributes).toEqual({ uuid: expect.stringMatching(UUID_V4), user_id: Number(admin), asset_id: Number(plate.id), metadata });
    expect(Object.keys(collection.relationships).sort()).toEqual(['asset', 'user']);

    const read = await call('GET', `/api/v2/${TYPE}/${collection.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(collection);
    expect((await call('GET', `/api/v2/${TYPE}/${collection.id}/user`)).body.data).toMatchObject({ type: 'users', id: admin, attributes: { login: 'admin' } });
    expect((await call('GET', `/api/v2/${TYPE}/${collection.id}/asset`)).body.data).toMatchObject({ type: 'plates', id: plate.id });
    expect(typedIdsOf(await call('GET', `/api/v2/${TYPE}?filter[uuid]=${collection.attributes.uuid}`))).toEqual([`${TYPE}/${collection.id}`]);
  });

  it('accepts the ids as numeric strings and renders them as integers', async () => {
    const tube = await createTube();
    const collection = await createCollection({ user_id: String(tech1), asset_id: String(tube.id), metadata: { a: 'b' } });
    expect(collection.attributes.user_id).toBe(Number(tech1));
    expect(collection.attributes.asset_id).toBe(Number(tube.id));
    expect(typeof collection.attributes.user_id).toBe('number');
  });

  it('gives an empty map when no metadata is sent', async () => {
    const plate = await createPlate();
    const collection = await createCollection({ user_id: admin, asset_id: plate.id });
    expect(collection.attributes.metadata).toEqual({});
  });

  it('keeps metadata keys exactly as sent (case, surrounding spaces), losing no entry', async () => {
    const plate = await createPlate();
    const metadata = { Robot: 'r1', ' padded ': 'p1', padded: 'p2', stock_barcode_q0: 'DN1S' };
    const collection = await createCollection({ user_id: admin, asset_id: plate.id, metadata });
    expect(collection.attributes.metadata).toEqual(metadata);
    expect(await metadataOf(collection.id)).toEqual(metadata);
  });

  it('requires user_id and asset_id (422 at each), writing nothing', async () => {
    const plate = await createPlate();
    const noUser = await refusedPost({ asset_id: plate.id, metadata: { a: 'b' } });
    expect(expectError(noUser, 422, 'required', '/data/attributes/user_id').detail).toContain('user_id');
    expect(noUser.body.errors).toHaveLength(1);
    const noAsset = await refusedPost({ user_id: admin, metadata: { a: 'b' } });
    expect(expectError(noAsset, 422, 'required', '/data/attributes/asset_id').detail).toContain('asset_id');
    const neither = await refusedPost({ metadata: { a: 'b' } });
    expectError(neither, 422, 'required', '/data/attributes/user_id');
    expectError(neither, 422, 'required', '/data/attributes/asset_id');
    expectError(await refusedPost({ user_id: null, asset_id: plate.id }), 422, 'required', '/data/attributes/user_id');
    expectError(await refusedPost({ user_id: admin, asset_id: null }), 422, 'required', '/data/attributes/asset_id');
    // Unknown ids do not hide the missing one.
    expectError(await refusedPost({ asset_id: 999999 }), 422, 'required', '/data/attributes/user_id');
    expectError(await refusedPost({}), 422, 'required');
  });

  it('refuses ids that are not positive integers (422), writing nothing', async () => {
    const plate = await createPlate();
    for (const bad of [0, -1, 1.5, '01', 'abc', '', '1e3']) {
      expectError(await refusedPost({ user_id: bad, asset_id: plate.id }), 422, undefined, '/data/attributes/user_id');
      expectError(await refusedPost({ user_id: admin, asset_id: bad }), 422, undefined, '/data/attributes/asset_id');
    }
    expectError(await refusedPost({ user_id: true, asset_id: plate.id }), 422, undefined, '/data/attributes/user_id');
    expectError(await refusedPost({ user_id: admin, asset_id: [plate.id] }), 422, undefined, '/data/attributes/asset_id');
  });

  it('answers 404 with a pointer for an unknown user or labware, writing nothing', async () => {
    const plate = await createPlate();
    const user = expectError(
      await refusedPost({ user_id: 999999, asset_id: plate.id, metadata: { a: 'b' } }),
      404,
      'record_not_found',
      '/data/attributes/user_id',
    );
    expect(user.detail).toContain('999999');
    const asset = expectError(
      await refusedPost({ user_id: admin, asset_id: '999999', metadata: { a: 'b' } }),
      404,
      'record_not_found',
      '/data/attributes/asset_id',
    );
    expect(asset.detail).toContain('999999');
    const both = await refusedPost({ user_id: 999998, asset_id: 999999 });
    expect(both.status).toBe(404);
    expect(both.body.errors.map((e: any) => e.source.pointer).sort()).toEqual(['/data/attributes/asset_id', '/data/attributes/user_id']);
    // A well's id is not a labware id.
    expectError(await refusedPost({ user_id: admin, asset_id: Number(plate.id) * 1000 + 1 }), 404, 'record_not_found', '/data/attributes/asset_id');
  });

  it('refuses a second collection for the same labware (422 not_unique), writing nothing', async () => {
    const plate = await createPlate();
    const first = await createCollection({ user_id: admin, asset_id: plate.id, metadata: { a: 'b' } });
    const res = await refusedPost({ user_id: tech1, asset_id: Number(plate.id), metadata: { c: 'd' } });
    const error = expectError(res, 422, 'not_unique', '/data/attributes/asset_id');
    expect(error.detail).toContain('asset_id');
    expectError(await refusedPost({ user_id: admin, asset_id: String(plate.id) }), 422, 'not_unique', '/data/attributes/asset_id');
    expect(await metadataOf(first.id)).toEqual({ a: 'b' });
    expect((await call('GET', `/api/v2/plates/${plate.id}/custom_metadatum_collection`)).body.data.id).toBe(first.id);
  });

  it('refuses keys equal ignoring case (422 at the later key), writing nothing', async () => {
    const plate = await createPlate();
    const res = await refusedPost({ user_id: admin, asset_id: plate.id, metadata: { Robot: 'a', robot: 'b' } });
    const error = expectError(res, 422, 'invalid_value', '/data/attributes/metadata/robot');
    expect(error.detail).toContain('Robot');
    expect(error.detail).toContain('robot');
    const three = await refusedPost({ user_id: admin, asset_id: plate.id, metadata: { KEY: 'a', other: 'x', key: 'b', Key: 'c' } });
    expect(three.status).toBe(422);
    expect(three.body.errors.map((e: any) => e.source.pointer).sort()).toEqual(['/data/attributes/metadata/Key', '/data/attributes/metadata/key']);
  });

  it('refuses empty keys and empty or blank values (422 at the entry), writing nothing', async () => {
    const plate = await createPlate();
    expectError(await refusedPost({ user_id: admin, asset_id: plate.id, metadata: { a: '' } }), 422, 'invalid_value', '/data/attributes/metadata/a');
    expectError(
      await refusedPost({ user_id: admin, asset_id: plate.id, metadata: { ok: 'fine', blank: '   ' } }),
      422,
      'invalid_value',
      '/data/attributes/metadata/blank',
    );
    expect((await refusedPost({ user_id: admin, asset_id: plate.id, metadata: { '': 'x' } })).status).toBe(422);
    expect((await refusedPost({ user_id: admin, asset_id: plate.id, metadata: { '  ': 'x' } })).status).toBe(422);
  });

  it('refuses values that are not strings, and metadata that is not a map (422 invalid_type), writing nothing', async () => {
    const plate = await createPlate();
    for (const value of [1, 0, true, false, null, { nested: 'x' }, ['x']]) {
      const res = await refusedPost({ user_id: admin, asset_id: plate.id, metadata: { ok: 'fine', bad: value } });
      expectError(res, 422, 'invalid_type', '/data/attributes/metadata/bad');
    }
    for (const metadata of ['a=b', ['a', 'b'], 42, true, null]) {
      expectError(await refusedPost({ user_id: admin, asset_id: plate.id, metadata }), 422, 'invalid_type', '/data/attributes/metadata');
    }
    expect((await call('GET', `/api/v2/plates/${plate.id}/custom_metadatum_collection`)).body.data).toBeNull();
  });

  it('refuses read-only, unknown and relationship members (400 param_not_allowed), and a client id (403), writing nothing', async () => {
    const plate = await createPlate();
    expectError(
      await refusedPost({ user_id: admin, asset_id: plate.id, uuid: '00000000-0000-4000-8000-000000000000' }),
      400,
      'param_not_allowed',
      '/data/attributes/uuid',
    );
    expectError(await refusedPost({ user_id: admin, asset_id: plate.id, colour: 'red' }), 400, 'param_not_allowed', '/data/attributes/colour');
    const viaRelationship = await refused(
      'POST',
      `/api/v2/${TYPE}`,
      doc(TYPE, { metadata: { a: 'b' } }, { user: rel('users', admin), asset: rel('plates', plate.id) }),
    );
    expectError(viaRelationship, 400, 'param_not_allowed', '/data/relationships/user');
    expectError(viaRelationship, 400, 'param_not_allowed', '/data/relationships/asset');
    expectError(await refused('POST', `/api/v2/${TYPE}`, doc(TYPE, { user_id: admin, asset_id: plate.id }, undefined, '5')), 403, 'client_generated_id');
  });
});

describe('PATCH /custom_metadatum_collections/{id}', () => {
  let plate: any;
  let collection: any;

  beforeAll(async () => {
    plate = await createPlate();
    collection = await createCollection({ user_id: admin, asset_id: plate.id, metadata: { a: '1', b: '2', stock_barcode: 'X' } });
  });

  it('replaces the whole map, keeping uuid, user_id and asset_id', async () => {
    const res = await patch(collection.id, { metadata: { b: '3', c: '4' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.Location).toBeUndefined();
    expect(res.body.data.attributes).toEqual({
      uuid: collection.attributes.uuid,
      user_id: Number(admin),
      asset_id: Number(plate.id),
      metadata: { b: '3', c: '4' },
    });
    expect(await metadataOf(collection.id)).toEqual({ b: '3', c: '4' });
    // Keys differing only in case from the previous map are fine: the old map is gone.
    expect((await patch(collection.id, { metadata: { B: '5' } })).status).toBe(200);
    expect(await metadataOf(collection.id)).toEqual({ B: '5' });
    const empty = await patch(collection.id, { metadata: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.data.attributes.metadata).toEqual({});
    expect(await metadataOf(collection.id)).toEqual({});
    // A PATCH without metadata changes nothing.
    expect((await patch(collection.id, { metadata: { x: 'y' } })).status).toBe(200);
    const untouched = await patch(collection.id, {});
    expect(untouched.status).toBe(200);
    expect(untouched.body.data.attributes.metadata).toEqual({ x: 'y' });
  });

  it('refuses user_id, asset_id and uuid (400 param_not_allowed at each), writing nothing', async () => {
    const other = await createPlate();
    const res = await refusedPatch(collection.id, { user_id: tech1, asset_id: other.id, metadata: { z: 'z' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => [e.code, e.source.pointer]).sort()).toEqual([
      ['param_not_allowed', '/data/attributes/asset_id'],
      ['param_not_allowed', '/data/attributes/user_id'],
    ]);
    expectError(await refusedPatch(collection.id, { user_id: admin }), 400, 'param_not_allowed', '/data/attributes/user_id');
    expectError(await refusedPatch(collection.id, { asset_id: plate.id }), 400, 'param_not_allowed', '/data/attributes/asset_id');
    expectError(await refusedPatch(collection.id, { uuid: collection.attributes.uuid }), 400, 'param_not_allowed', '/data/attributes/uuid');
    expect((await call('GET', `/api/v2/plates/${other.id}/custom_metadatum_collection`)).body.data).toBeNull();
  });

  it('applies the metadata rules on PATCH too (422), writing nothing', async () => {
    expectError(await refusedPatch(collection.id, { metadata: { Robot: 'a', ROBOT: 'b' } }), 422, 'invalid_value', '/data/attributes/metadata/ROBOT');
    expectError(await refusedPatch(collection.id, { metadata: { a: '' } }), 422, 'invalid_value', '/data/attributes/metadata/a');
    expectError(await refusedPatch(collection.id, { metadata: { a: 1 } }), 422, 'invalid_type', '/data/attributes/metadata/a');
    expectError(await refusedPatch(collection.id, { metadata: 'a' }), 422, 'invalid_type', '/data/attributes/metadata');
    expectError(await refusedPatch(collection.id, { metadata: null }), 422, 'invalid_type', '/data/attributes/metadata');
  });

  it('answers 404 for an unknown collection and 409 for a mismatched id, writing nothing', async () => {
    expectError(await refusedPatch('999999', { metadata: { a: 'b' } }), 404, 'record_not_found');
    expectError(await refused('PATCH', `/api/v2/${TYPE}/${collection.id}`, doc(TYPE, { metadata: { a: 'b' } }, undefined, '999999')), 409, 'conflict');
  });
});

describe('reaching a collection from its labware', () => {
  it('is reachable from a plate: related link, relationship endpoint, include (limber W8 browser) and /labware', async () => {
    const plate = await createPlate();
    const none = await call('GET', `/api/v2/plates/${plate.id}/custom_metadatum_collection`);
    expect(none.status).toBe(200);
    expect(none.body.data).toBeNull();
    expect((await call('GET', `/api/v2/labware/${plate.id}?include=custom_metadatum_collection`)).body).not.toHaveProperty('included');

    const collection = await createCollection({ user_id: admin, asset_id: plate.id, metadata: { created_with_robot: 'bed-7' } });
    const related = await call('GET', `/api/v2/plates/${plate.id}/custom_metadatum_collection`);
    expect(related.body.data).toEqual(collection);
    expect((await call('GET', `/api/v2/plates/${plate.id}/relationships/custom_metadatum_collection`)).body.data).toEqual({ type: TYPE, id: collection.id });
    expect((await call('GET', `/api/v2/labware/${plate.id}/custom_metadatum_collection`)).body.data).toEqual(collection);

    // The browser reads included[0].id and included[0].attributes.metadata.
    const included = await call('GET', `/api/v2/labware/${plate.id}?include=custom_metadatum_collection`);
    expect(included.status).toBe(200);
    expect(included.body.data.type).toBe('plates');
    expect(included.body.data.relationships.custom_metadatum_collection.data).toEqual({ type: TYPE, id: collection.id });
    expect(included.body.included).toHaveLength(1);
    expect(included.body.included[0].id).toBe(collection.id);
    expect(included.body.included[0].attributes.metadata).toEqual({ created_with_robot: 'bed-7' });

    // After a PATCH the include shows the new map.
    expect((await patch(collection.id, { metadata: { created_with_robot: 'bed-7', stock_barcode: 'DN9' } })).status).toBe(200);
    const again = await call('GET', `/api/v2/labware/${plate.id}?include=custom_metadatum_collection`);
    expect(again.body.included[0].attributes.metadata).toEqual({ created_with_robot: 'bed-7', stock_barcode: 'DN9' });
  });

  it('is reachable from a tube and from a tube rack', async () => {
    const tube = await createTube();
    const rack = await createRack();
    const onTube = await createCollection({ user_id: admin, asset_id: tube.id, metadata: { tube_key: 'v' } });
    const onRack = await createCollection({ user_id: admin, asset_id: rack.id, metadata: { created_with_robot: 'r' } });
    expect((await call('GET', `/api/v2/tubes/${tube.id}/custom_metadatum_collection`)).body.data).toEqual(onTube);
    expect((await call('GET', `/api/v2/tube_racks/${rack.id}/custom_metadatum_collection`)).body.data).toEqual(onRack);
    expect((await call('GET', `/api/v2/${TYPE}/${onRack.id}/asset`)).body.data).toMatchObject({ type: 'tube_racks', id: rack.id });
    const list = await call('GET', `/api/v2/labware?filter[uuid]=${tube.attributes.uuid},${rack.attributes.uuid}&include=custom_metadatum_collection`);
    expect(list.body.included.map((r: any) => r.id).sort()).toEqual([onTube.id, onRack.id].sort());
  });

  it('supports the limber robot workflow (W8): look up, POST when absent, then PATCH the merged map', async () => {
    const plate = await createPlate();
    const userUuid = (await call('GET', '/api/v2/users?filter[login]=tech1')).body.data[0].attributes.uuid;
    const user = (await call('GET', `/api/v2/users?filter[uuid]=${userUuid}`)).body.data[0];
    const found = (await call('GET', `/api/v2/labware?filter[barcode]=${plate.attributes.labware_barcode.machine_barcode}`)).body.data[0];
    expect(found).toMatchObject({ type: 'plates', id: plate.id });

    const absent = await call('GET', `/api/v2/${found.type}/${found.id}/custom_metadatum_collection`);
    expect(absent.body.data).toBeNull();
    const posted = await call('POST', `/api/v2/${TYPE}`, {
      body: doc(TYPE, { user_id: Number(user.id), asset_id: Number(found.id), metadata: { stock_barcode: 'DN1S' } }),
    });
    expect(posted.status).toBe(201);

    const present = (await call('GET', `/api/v2/${found.type}/${found.id}/custom_metadatum_collection`)).body.data;
    const merged = { ...present.attributes.metadata, created_with_robot: 'robot-1' };
    const ok = await patch(present.id, { metadata: merged });
    expect(ok.status).toBe(200);

    // asset_audits: plates by barcode, then the quadrant keys.
    const viaPlates = (await call('GET', `/api/v2/plates?filter[barcode]=${plate.attributes.labware_barcode.human_barcode}`)).body.data[0];
    const collection = (await call('GET', `/api/v2/plates/${viaPlates.id}/custom_metadatum_collection`)).body.data;
    expect(collection.attributes.metadata).toEqual({ stock_barcode: 'DN1S', created_with_robot: 'robot-1' });
    expect(collection.attributes.user_id).toBe(Number(tech1));
  });

  it('counts collections in the list', async () => {
    const res = await call('GET', `/api/v2/${TYPE}?page[size]=500`);
    expect(res.status).toBe(200);
    expect(res.body.meta.record_count).toBe(res.body.data.length);
    const assets = res.body.data.map((c: any) => c.attributes.asset_id);
    // One collection per labware.
    expect(new Set(assets).size).toBe(assets.length);
  });
});
