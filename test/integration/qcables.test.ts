import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, type CallResult } from '../support/api.ts';
import { createPlate, createTube, rel } from '../support/fixtures.ts';
import { createQcable, lotId } from '../support/qc.ts';
import { expectError, idsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * qcables (interface.md, contract §2, reference-behaviour §2.7, client-usage §1.7): POST with `labware`
 * (or the deprecated `asset`) and `lot`, the initial state from the lot type; PATCH of `labware`/`asset`
 * and `lot`; `state`, `labware_barcode` and `uuid` refuse writes (400); one qcable per labware; filters
 * `barcode` (any form) and `uuid`. Every refused write is checked to leave the table as it was.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const post = (relationships: Record<string, unknown>, attributes: Record<string, unknown> = {}) =>
  call('POST', '/api/v2/qcables', { body: doc('qcables', attributes, relationships) });
const refusedPost = (relationships: Record<string, unknown>, attributes: Record<string, unknown> = {}) =>
  refused('POST', '/api/v2/qcables', doc('qcables', attributes, relationships));
const patch = (id: string, relationships: Record<string, unknown>, attributes: Record<string, unknown> = {}) =>
  call('PATCH', `/api/v2/qcables/${id}`, { body: doc('qcables', attributes, relationships, id) });
const refusedPatch = (id: string, relationships: Record<string, unknown>, attributes: Record<string, unknown> = {}) =>
  refused('PATCH', `/api/v2/qcables/${id}`, doc('qcables', attributes, relationships, id));

/** The qcables a barcode filter finds, by id. */
const byBarcode = async (barcode: string): Promise<string[]> => {
  const res = await call('GET', `/api/v2/qcables?filter[barcode]=${encodeURIComponent(barcode)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return idsOf(res);
};

const linkOf = async (id: string, relationship: string) => (await call('GET', `/api/v2/qcables/${id}/relationships/${relationship}`)).body.data;

let lot1: string;
let lot3: string;

beforeAll(async () => {
  lot1 = await lotId('LOT-0001');
  lot3 = await lotId('LOT-0003');
});

describe('POST /qcables', () => {
  it('creates a qcable on a tag plate of LOT-0001: state created, the plate barcode, uuid, timestamps; readable back', async () => {
    const plate = await createPlate('Tag Plate');
    const res = await post({ labware: rel('plates', plate.id), lot: rel('lots', lot1) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const qcable = res.body.data;
    expect(res.headers.Location).toBe(`${BASE}/qcables/${qcable.id}`);
    expect(qcable.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      state: 'created',
      labware_barcode: plate.attributes.labware_barcode,
      // Stamps are API v1, not served: no qcable is stamped (docs/decisions.md, "Qcables, state changes and lots").
      stamp_index: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(Object.keys(qcable.relationships).sort()).toEqual(['asset', 'labware', 'lot', 'qcable_creator']);
    expect((await call('GET', `/api/v2/qcables/${qcable.id}`)).body.data).toEqual(qcable);
    expect(await linkOf(qcable.id, 'labware')).toEqual({ type: 'plates', id: plate.id });
    expect(await linkOf(qcable.id, 'asset')).toEqual({ type: 'plates', id: plate.id });
    expect(await linkOf(qcable.id, 'lot')).toEqual({ type: 'lots', id: lot1 });
  });

  it('starts a QC Plates qcable (LOT-0003) pending', async () => {
    expect((await createQcable('LOT-0003')).qcable.attributes.state).toBe('pending');
  });

  it('takes any labware: a tube, and a linkage of type labware', async () => {
    const tube = await createTube();
    const onTube = await post({ labware: rel('tubes', tube.id), lot: rel('lots', lot3) });
    expect(onTube.status, JSON.stringify(onTube.body)).toBe(201);
    expect(onTube.body.data.attributes.labware_barcode).toEqual(tube.attributes.labware_barcode);
    const plate = await createPlate('Tag Plate');
    const generic = await post({ labware: rel('labware', plate.id), lot: rel('lots', lot1) });
    expect(generic.status, JSON.stringify(generic.body)).toBe(201);
    expect(await linkOf(generic.body.data.id, 'labware')).toEqual({ type: 'plates', id: plate.id });
  });

  it('accepts the deprecated asset relationship instead of labware', async () => {
    const plate = await createPlate('Tag Plate');
    const res = await post({ asset: rel('plates', plate.id), lot: rel('lots', lot1) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await linkOf(res.body.data.id, 'labware')).toEqual({ type: 'plates', id: plate.id });
  });

  it('labware wins over asset when both are sent (asset is then not taken)', async () => {
    const [kept, ignored] = [await createPlate('Tag Plate'), await createPlate('Tag Plate')];
    const res = await post({ labware: rel('plates', kept.id), asset: rel('plates', ignored.id), lot: rel('lots', lot1) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await linkOf(res.body.data.id, 'asset')).toEqual({ type: 'plates', id: kept.id });
    expect((await createQcable('LOT-0001', ignored)).qcable.attributes.state).toBe('created');
  });

  it('emits qcables.created with the qcable as rendered', async () => {
    const { qcable } = await createQcable('LOT-0001');
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'qcables' && e.resource.id === qcable.id);
    expect(events.map((e) => e.type)).toEqual(['qcables.created']);
    expect(events[0]!.data.attributes).toEqual(qcable.attributes);
  });

  it('requires labware (or asset) and lot: 422 at each, writing nothing', async () => {
    const plate = await createPlate('Tag Plate');
    expectError(await refusedPost({ lot: rel('lots', lot1) }), 422, 'required', '/data/relationships/labware');
    expectError(await refusedPost({ labware: { data: null }, lot: rel('lots', lot1) }), 422, 'required', '/data/relationships/labware');
    // labware wins even as null: the asset sent beside it does not count.
    expectError(await refusedPost({ labware: { data: null }, asset: rel('plates', plate.id), lot: rel('lots', lot1) }), 422, 'required');
    expectError(await refusedPost({ asset: { data: null }, lot: rel('lots', lot1) }), 422, 'required', '/data/relationships/asset');
    const noLot = await refusedPost({ labware: rel('plates', plate.id) });
    expect(expectError(noLot, 422, 'required', '/data/relationships/lot').detail).toBe("lot - can't be blank");
    const neither = await refusedPost({});
    expectError(neither, 422, 'required', '/data/relationships/labware');
    expectError(neither, 422, 'required', '/data/relationships/lot');
  });

  it('answers 404 with a pointer for an unknown lot or labware', async () => {
    const plate = await createPlate('Tag Plate');
    const lot = expectError(await refusedPost({ labware: rel('plates', plate.id), lot: rel('lots', 999999) }), 404, 'record_not_found');
    expect(lot.source).toEqual({ pointer: '/data/relationships/lot/data' });
    expect(lot.detail).toBe('lot - no lots with id 999999');
    const labware = expectError(await refusedPost({ labware: rel('plates', 999999), lot: rel('lots', lot1) }), 404, 'record_not_found');
    expect(labware.source).toEqual({ pointer: '/data/relationships/labware/data' });
    expectError(await refusedPost({ asset: rel('tubes', plate.id), lot: rel('lots', lot1) }), 404, 'record_not_found', '/data/relationships/asset/data');
  });

  it('refuses linkage of the wrong type (400)', async () => {
    const plate = await createPlate('Tag Plate');
    expectError(await refusedPost({ labware: rel('plates', plate.id), lot: rel('lot_types', 1) }), 400, 'type_mismatch');
    expectError(await refusedPost({ labware: rel('samples', 1), lot: rel('lots', lot1) }), 400, 'type_mismatch');
  });

  it('refuses state, labware_barcode and uuid (400, read-only), one error each', async () => {
    const plate = await createPlate('Tag Plate');
    const res = await refusedPost(
      { labware: rel('plates', plate.id), lot: rel('lots', lot1) },
      { state: 'available', labware_barcode: { human_barcode: 'DN1S' }, uuid: '00000000-0000-4000-8000-000000000000' },
    );
    expect(res.status).toBe(400);
    for (const name of ['state', 'labware_barcode', 'uuid']) {
      const error = expectError(res, 400, 'param_not_allowed', `/data/attributes/${name}`);
      expect(error.detail).toBe(`${name} is not allowed (it is read-only)`);
    }
  });

  it('refuses a second qcable on a labware (422 at the relationship sent), writing nothing', async () => {
    const { plate, qcable } = await createQcable('LOT-0001');
    const again = expectError(
      await refusedPost({ labware: rel('plates', plate.id), lot: rel('lots', lot3) }),
      422,
      'not_unique',
      '/data/relationships/labware',
    );
    expect(again.detail).toBe(`labware - "plates ${plate.id}" is already in use`);
    expectError(await refusedPost({ asset: rel('plates', plate.id), lot: rel('lots', lot1) }), 422, 'not_unique', '/data/relationships/asset');
    expect(await byBarcode(plate.attributes.labware_barcode.human_barcode)).toEqual([qcable.id]);
  });

  it('10 simultaneous POSTs for one labware: exactly one 201, the others 422 not_unique', async () => {
    const plate = await createPlate('Tag Plate');
    const results = await Promise.all(Array.from({ length: 10 }, () => post({ labware: rel('plates', plate.id), lot: rel('lots', lot1) })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 422, 'not_unique');
    const winner = results.find((r) => r.status === 201)!.body.data.id;
    expect(await byBarcode(plate.attributes.labware_barcode.human_barcode)).toEqual([winner]);
  });
});

describe('GET /qcables filters', () => {
  it('finds a qcable by any form of its labware barcode, in any case, and by comma lists', async () => {
    const { qcable, plate } = await createQcable('LOT-0001');
    const other = await createQcable('LOT-0001');
    const { human_barcode, machine_barcode, ean13_barcode } = plate.attributes.labware_barcode;
    for (const form of [human_barcode, machine_barcode, ean13_barcode, human_barcode.toLowerCase()]) expect(await byBarcode(form)).toEqual([qcable.id]);
    const both = await byBarcode(`${human_barcode},${other.plate.attributes.labware_barcode.machine_barcode}`);
    expect(both).toEqual([qcable.id, other.qcable.id]);
    expect(await byBarcode('DN9999999X')).toEqual([]);
  });

  it('finds a qcable on migrated labware by its given barcode', async () => {
    const plate = await createPlate('Tag Plate', { barcode: 'ext-qc-1' });
    const { qcable } = await createQcable('LOT-0003', plate);
    expect(qcable.attributes.labware_barcode.human_barcode).toBe('ext-qc-1');
    expect(await byBarcode('EXT-QC-1')).toEqual([qcable.id]);
  });

  it('finds by uuid (any case); a labware uuid finds nothing', async () => {
    const { qcable, plate } = await createQcable('LOT-0001');
    const res = await call('GET', `/api/v2/qcables?filter[uuid]=${qcable.attributes.uuid.toUpperCase()}`);
    expect(idsOf(res)).toEqual([qcable.id]);
    expect(idsOf(await call('GET', `/api/v2/qcables?filter[uuid]=${plate.attributes.uuid}`))).toEqual([]);
  });

  it("answers limber's tag-plate scan: include=labware,lot.lot_type.target_purpose,lot.template", async () => {
    const { qcable, plate } = await createQcable('LOT-0001');
    const barcode = plate.attributes.labware_barcode.machine_barcode;
    const res = await call('GET', `/api/v2/qcables?filter[barcode]=${barcode}&include=labware,lot.lot_type.target_purpose,lot.template`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((q: any) => [q.id, q.attributes.state])).toEqual([[qcable.id, 'created']]);
    const included = new Map(res.body.included.map((r: any) => [r.type, r]));
    expect((included.get('plates') as any).attributes.uuid).toBe(plate.attributes.uuid);
    expect((included.get('lots') as any).attributes.lot_number).toBe('LOT-0001');
    expect((included.get('lot_types') as any).attributes.name).toBe('Tag Plates');
    // As Limber's LotType and its frontend's resources.js type it: `purpose` (contract §7.4).
    expect((included.get('purposes') as any).attributes.name).toBe('Tag Plate');
    const template = (included.get('lots') as any).relationships.template.data;
    expect(template.type).toBe('tag_layout_templates');
    expect((included.get('tag_layout_templates') as any).attributes.name).toBe('Test i7 column');
  });

  it("answers limber's browser scan through the deprecated asset relationship", async () => {
    const { plate } = await createQcable('LOT-0002');
    const res = await call(
      'GET',
      `/api/v2/qcables?filter[barcode]=${plate.attributes.labware_barcode.human_barcode}&include=asset,lot,lot.tag_layout_template`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data[0].relationships.asset.data).toEqual({ type: 'plates', id: plate.id });
    expect(res.body.included.map((r: any) => r.type).sort()).toEqual(['lots', 'plates', 'tag_layout_templates']);
  });

  it('refuses other filters (400)', async () => {
    for (const filter of ['state', 'lot', 'purpose_name']) expectError(await call('GET', `/api/v2/qcables?filter[${filter}]=x`), 400, 'filter_not_allowed');
  });
});

describe('PATCH /qcables', () => {
  it('moves a qcable to another labware: the barcode follows, the old labware is free again', async () => {
    const { qcable, plate: old } = await createQcable('LOT-0001');
    const plate = await createPlate('Tag Plate');
    const res = await patch(qcable.id, { labware: rel('plates', plate.id) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.attributes.labware_barcode).toEqual(plate.attributes.labware_barcode);
    expect(res.body.data.attributes.state).toBe('created');
    expect(await linkOf(qcable.id, 'labware')).toEqual({ type: 'plates', id: plate.id });
    expect(await byBarcode(plate.attributes.labware_barcode.human_barcode)).toEqual([qcable.id]);
    expect(await byBarcode(old.attributes.labware_barcode.human_barcode)).toEqual([]);
    expect((await createQcable('LOT-0001', old)).qcable.id).not.toBe(qcable.id);
  });

  it('moves a qcable through the deprecated asset relationship, and changes its lot (the state stays)', async () => {
    const { qcable } = await createQcable('LOT-0001');
    const tube = await createTube();
    const res = await patch(qcable.id, { asset: rel('tubes', tube.id), lot: rel('lots', lot3) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ state: 'created', labware_barcode: tube.attributes.labware_barcode });
    expect(await linkOf(qcable.id, 'labware')).toEqual({ type: 'tubes', id: tube.id });
    expect(await linkOf(qcable.id, 'lot')).toEqual({ type: 'lots', id: lot3 });
  });

  it('a PATCH that names the same labware and lot writes nothing and answers 200', async () => {
    const { qcable, plate } = await createQcable('LOT-0001');
    const before = (await outboxEvents()).length;
    const res = await patch(qcable.id, { labware: rel('plates', plate.id), lot: rel('lots', lot1) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.attributes.updated_at).toBe(qcable.attributes.updated_at);
    expect((await outboxEvents()).length).toBe(before);
  });

  it('refuses a labware that has another qcable (422), a removed labware or lot (422), an unknown lot (404)', async () => {
    const { qcable } = await createQcable('LOT-0001');
    const taken = await createQcable('LOT-0001');
    expectError(await refusedPatch(qcable.id, { labware: rel('plates', taken.plate.id) }), 422, 'not_unique', '/data/relationships/labware');
    expectError(await refusedPatch(qcable.id, { asset: rel('plates', taken.plate.id) }), 422, 'not_unique', '/data/relationships/asset');
    expectError(await refusedPatch(qcable.id, { labware: { data: null } }), 422, 'required', '/data/relationships/labware');
    expectError(await refusedPatch(qcable.id, { lot: { data: null } }), 422, 'required', '/data/relationships/lot');
    expectError(await refusedPatch(qcable.id, { lot: rel('lots', 999999) }), 404, 'record_not_found', '/data/relationships/lot/data');
  });

  it('refuses state, labware_barcode and uuid (400), writing nothing', async () => {
    const { qcable } = await createQcable('LOT-0001');
    for (const [name, value] of [
      ['state', 'available'],
      ['labware_barcode', { human_barcode: 'DN1S' }],
      ['uuid', qcable.attributes.uuid],
    ] as const) {
      const res: CallResult = await refusedPatch(qcable.id, {}, { [name]: value });
      expect(expectError(res, 400, 'param_not_allowed', `/data/attributes/${name}`).detail).toBe(`${name} is not allowed (it is read-only)`);
    }
    expect((await call('GET', `/api/v2/qcables/${qcable.id}`)).body.data.attributes.state).toBe('created');
  });

  it('answers 404 for an unknown qcable and 405 for DELETE', async () => {
    expectError(await call('PATCH', '/api/v2/qcables/999999', { body: doc('qcables', {}, { lot: rel('lots', lot1) }, '999999') }), 404, 'record_not_found');
    expectError(await call('DELETE', '/api/v2/qcables/1'), 405, 'method_not_allowed');
  });
});
