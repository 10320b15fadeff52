import { beforeAll, describe, expect, it } from 'vitest';
import { externalBarcode } from '#lib/domain/barcode.ts';
import {
  auditedTransactionItems,
  LARGE_WRITE_ITEM_LIMIT,
  labwareCreationItems,
  mostInOneTransaction,
  rackCreationItems,
  TRANSACTION_ITEM_LIMIT,
  writtenItems,
} from '#lib/domain/budgets.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, createTube, inBatches, purposeId, rel, rels, uniqueName } from '../support/fixtures.ts';
import { adminUuid, contentsOf, filledPlate, uuidOf } from '../support/lab.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { expectError } from '../support/responses.ts';
import { seedTubes } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * Limber's labware creators (issue 21, contract §6): plate, pooled plate, tube from tube, specific tube and
 * specific tube rack creations, sent as Limber's classes send them (`*_uuid(s)` attributes; the
 * relationships work too) and read back as Limber reads them next: the new labware under `child` /
 * `children`, `pending`, of its purpose, a child of its parents, owned by the user, and `<type>.created`
 * events. Nothing moves at creation: the transfer that follows moves the material. A creation that fits one
 * transaction is one; a larger one is one write of several (lib/store/large-write.ts); each kind is tested at
 * the most one transaction holds and at the bound of one request. Limber's full sizes: limber-full-size.test.ts.
 */

beforeAll(freshStore);

let user: string;
let userId: string;
const purposes: Record<string, string> = {};
beforeAll(async () => {
  [user, userId] = await Promise.all([adminUuid(), idOf('users', 'login', 'admin')]);
  const named = [
    ['plate_purposes', 'Library Plate'],
    ['plate_purposes', 'Stock Plate 384'],
    ['tube_purposes', 'MX Tube'],
    ['tube_purposes', 'Library Tube'],
    ['tube_rack_purposes', 'Tube Rack 96'],
    ['tube_rack_purposes', 'Tube Rack 48'],
  ];
  for (const [type, name] of named) purposes[name!] = await uuidOf(type!, 'name', name!);
});

/** POSTs a creation as Limber's `Model.create!(attributes)` does, with the user's uuid. */
const post = (type: string, attributes: Record<string, unknown>) => call('POST', `/api/v2/${type}`, { body: doc(type, { user_uuid: user, ...attributes }) });

/** POSTs a creation by its relationships only, the user's among them. */
const postLinked = (type: string, relationships: Record<string, unknown>) =>
  call('POST', `/api/v2/${type}`, { body: doc(type, {}, { user: rel('users', userId), ...relationships }) });

/** A creation's related labware, as Limber reads `.child` / `.children`. */
const related = async (type: string, id: string, name: string) => (await call('GET', `/api/v2/${type}/${id}/${name}?page[size]=100`)).body.data;

const idsOf = (records: any[]) => records.map((r) => r.id).sort();

/**
 * Tubes made from one parent: each is 4 items (the tube, its barcode guard, its link, its audit entry), beside the
 * parent's audit entry (docs/decisions.md, "Audit trail"); and the most one transaction holds.
 */
const tubesFromOneParent = (tubes: number) => auditedTransactionItems(labwareCreationItems(tubes, 1), tubes + 1);
const ONE_TRANSACTION_OF_TUBES = mostInOneTransaction(tubesFromOneParent);

/** A rack as Limber's plate split sends it: tubes at the rack's positions in column order, each with a barcode of its own. */
const rackOf = (name: string, tubes: number, { purpose = 'Tube Rack 96', barcode = uniqueName('FR') } = {}) => ({
  tube_rack_name: name,
  tube_rack_barcode: barcode,
  tube_rack_purpose_uuid: purposes[purpose],
  racked_tubes: Array.from({ length: tubes }, (_, i) => ({
    tube_barcode: uniqueName('FX'),
    tube_name: `${name}:${i + 1}`,
    tube_purpose_uuid: purposes['MX Tube'],
    tube_position: `${'ABCDEFGH'[i % 8]}${Math.floor(i / 8) + 1}`,
    parent_uuids: [],
  })),
});

describe('plate_creations (the default stamped-plate creator)', () => {
  it("makes an empty, pending plate of the child purpose under `child`, the parent's child, owned by the user; events plates.created and plate_creations.created", async () => {
    const parent = await createPlate();
    const res = await post('plate_creations', { child_purpose_uuid: purposes['Library Plate'], parent_uuid: parent.attributes.uuid });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const child = await related('plate_creations', res.body.data.id, 'child');
    expect(child).toMatchObject({ type: 'plates', attributes: { state: 'pending', size: 96 } });
    expect(child.attributes.labware_barcode.human_barcode).toMatch(/^DN\d+[A-Z]$/);
    expect((await related('plates', child.id, 'purpose')).attributes.name).toBe('Library Plate');
    expect(idsOf(await related('plates', child.id, 'parents'))).toEqual([parent.id]);
    expect(idsOf(await related('plates', parent.id, 'child_plates'))).toEqual([child.id]);
    expect(await contentsOf('plates', child.id)).toEqual(new Map());
    const owned = await call('GET', `/api/v2/plates?filter[user_uuid]=${user}&filter[purpose_name]=Library%20Plate`);
    expect(owned.body.data.map((p: any) => p.id)).toContain(child.id);
    const mine = new Set([`plates/${child.id}`, `plate_creations/${res.body.data.id}`]);
    const events = (await outboxEvents()).filter((e) => mine.has(`${e.resource.type}/${e.resource.id}`));
    expect(events.map((e) => `${e.type} ${e.resource.id}`).sort()).toEqual([`plate_creations.created ${res.body.data.id}`, `plates.created ${child.id}`]);
  });

  it('by relationships; the child has the size of its purpose (384)', async () => {
    const parent = await createPlate('Stock Plate 384');
    const res = await postLinked('plate_creations', {
      child_purpose: rel('plate_purposes', await purposeId('plate_purposes', 'Stock Plate 384')),
      parent: rel('plates', parent.id),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.relationships.child.data).toBeUndefined();
    expect((await related('plate_creations', res.body.data.id, 'child')).attributes.size).toBe(384);
    expect((await related('plate_creations', res.body.data.id, 'user')).id).toBe(userId);
  });

  it('refuses, writing nothing: an unknown parent (404), a tube purpose (404: no plate purpose), a tube as parent (400), no user (422)', async () => {
    const parent = await createPlate();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const bad = (attributes: Record<string, unknown>) => refused('POST', '/api/v2/plate_creations', doc('plate_creations', attributes));
    const ok = { child_purpose_uuid: purposes['Library Plate'], parent_uuid: parent.attributes.uuid, user_uuid: user };
    const error = expectError(await bad({ ...ok, parent_uuid: unknown }), 404, 'record_not_found', '/data/attributes/parent_uuid');
    expect(error.detail).toBe(`parent_uuid - no plates with uuid "${unknown}"`);
    expect(expectError(await bad({ ...ok, child_purpose_uuid: purposes['MX Tube'] }), 404, undefined, '/data/attributes/child_purpose_uuid').detail).toContain(
      'no plate_purposes with uuid',
    );
    const tube = await createTube();
    expectError(await bad({ ...ok, parent_uuid: tube.attributes.uuid }), 404, undefined, '/data/attributes/parent_uuid');
    expectError(
      await refused(
        'POST',
        '/api/v2/plate_creations',
        doc('plate_creations', { child_purpose_uuid: purposes['Library Plate'], user_uuid: user }, { parent: rel('tubes', tube.id) }),
      ),
      400,
      'type_mismatch',
    );
    expectError(await bad({ ...ok, user_uuid: undefined }), 422, 'required', '/data/relationships/user');
  });

  it('50 at once from one parent: all 201, 50 distinct children, and the parent finds all 50', { timeout: 180_000 }, async () => {
    const parent = await createPlate();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => post('plate_creations', { child_purpose_uuid: purposes['Library Plate'], parent_uuid: parent.attributes.uuid })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const children = await Promise.all(results.map((r) => related('plate_creations', r.body.data.id, 'child')));
    const ids = new Set(children.map((c) => c.id));
    expect(ids.size).toBe(50);
    expect(idsOf(await related('plates', parent.id, 'child_plates'))).toEqual([...ids].sort());
  });
});

describe('tube_from_tube_creations (the default tube creator)', () => {
  it("makes an empty, pending tube of the child purpose under `child`, the parent tube's child; by attributes and by relationships", async () => {
    const parent = await createTube();
    const res = await post('tube_from_tube_creations', { child_purpose_uuid: purposes['MX Tube'], parent_uuid: parent.attributes.uuid });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const child = await related('tube_from_tube_creations', res.body.data.id, 'child');
    expect(child).toMatchObject({ type: 'tubes', attributes: { state: 'pending' } });
    expect(child.attributes.labware_barcode.human_barcode).toMatch(/^NT\d+[A-Z]$/);
    expect((await related('tubes', child.id, 'purpose')).attributes.name).toBe('MX Tube');
    const byRelationships = await postLinked('tube_from_tube_creations', {
      child_purpose: rel('tube_purposes', await purposeId('tube_purposes', 'MX Tube')),
      parent: rel('tubes', parent.id),
    });
    expect(byRelationships.status, JSON.stringify(byRelationships.body)).toBe(201);
    const other = await related('tube_from_tube_creations', byRelationships.body.data.id, 'child');
    expect(idsOf(await related('tubes', parent.id, 'child_tubes'))).toEqual(idsOf([child, other]));
    expect(await contentsOf('tubes', child.id)).toEqual(new Map());
  });

  it('refuses a plate as parent (404: no tube with that uuid) and a plate purpose (404), writing nothing', async () => {
    const [plate, tube] = await Promise.all([createPlate(), createTube()]);
    const bad = (attributes: Record<string, unknown>) =>
      refused('POST', '/api/v2/tube_from_tube_creations', doc('tube_from_tube_creations', { user_uuid: user, ...attributes }));
    expectError(
      await bad({ child_purpose_uuid: purposes['MX Tube'], parent_uuid: plate.attributes.uuid }),
      404,
      'record_not_found',
      '/data/attributes/parent_uuid',
    );
    expectError(
      await bad({ child_purpose_uuid: purposes['Library Plate'], parent_uuid: tube.attributes.uuid }),
      404,
      'record_not_found',
      '/data/attributes/child_purpose_uuid',
    );
  });
});

describe('pooled_plate_creations (multi-stamp, quadrant, merged and custom tagged plates)', () => {
  it('makes one plate under `child`, a child of every parent (plates and tubes, as multi-stamp from tubes sends them)', async () => {
    const [a, b, tube] = await Promise.all([createPlate(), createPlate(), createTube()]);
    const res = await post('pooled_plate_creations', {
      child_purpose_uuid: purposes['Library Plate'],
      parent_uuids: [a.attributes.uuid, b.attributes.uuid, tube.attributes.uuid],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const child = await related('pooled_plate_creations', res.body.data.id, 'child');
    expect(child.attributes.state).toBe('pending');
    expect((await related('plates', child.id, 'parents')).map((p: any) => `${p.type}/${p.id}`).sort()).toEqual(
      [`plates/${a.id}`, `plates/${b.id}`, `tubes/${tube.id}`].sort(),
    );
    for (const parent of [a, b]) expect(idsOf(await related('plates', parent.id, 'child_plates'))).toEqual([child.id]);
    expect(idsOf(await related('tubes', tube.id, 'child_plates'))).toEqual([child.id]);
    expect(idsOf(await related('pooled_plate_creations', res.body.data.id, 'parents'))).toEqual(idsOf([a, b, tube]));
  });

  it(`from four 384-well plates into a 384-well plate: one transaction of ${auditedTransactionItems(labwareCreationItems(1, 4), 5)} items`, async () => {
    const parents = await inBatches(4, 4, () => createPlate('Stock Plate 384'));
    const { result: res, transactions } = await observeCalls(() =>
      post('pooled_plate_creations', {
        child_purpose_uuid: purposes['Stock Plate 384'],
        parent_uuids: parents.map((p) => p.attributes.uuid),
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The child, its barcode guard, four links to parents, the creation, two count shards, the request item; an
    // audit entry for the child and for each parent.
    expect(transactions).toEqual([auditedTransactionItems(labwareCreationItems(1, 4), 5)]);
    expect((await related('pooled_plate_creations', res.body.data.id, 'child')).attributes.size).toBe(384);
  });

  it('refuses, writing nothing: an unknown parent (404 at its entry), parent_uuids not a list of strings (422), no parents (422)', async () => {
    const plate = await createPlate();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const bad = (attributes: Record<string, unknown>) =>
      refused(
        'POST',
        '/api/v2/pooled_plate_creations',
        doc('pooled_plate_creations', { child_purpose_uuid: purposes['Library Plate'], user_uuid: user, ...attributes }),
      );
    const error = expectError(await bad({ parent_uuids: [plate.attributes.uuid, unknown] }), 404, 'record_not_found', '/data/attributes/parent_uuids/1');
    expect(error.detail).toContain(`parent_uuids - no labware with uuid "${unknown}"`);
    expectError(await bad({ parent_uuids: plate.attributes.uuid }), 422, 'invalid_type', '/data/attributes/parent_uuids');
    expectError(await bad({ parent_uuids: [plate.attributes.uuid, 1] }), 422, 'invalid_type', '/data/attributes/parent_uuids/1');
    expectError(await bad({ parent_uuids: [] }), 422, 'required', '/data/relationships/parents');
  });
});

describe('specific_tube_creations (every pool and MX tube)', () => {
  it("makes one tube per child purpose, named by tube_attributes, each a child of the parent: Limber's pooled tubes, read back by name", async () => {
    const parent = await createPlate();
    const names = ['DN1 A1:H1', 'DN1 A2:H2', 'DN1 A3:H3'];
    const res = await post('specific_tube_creations', {
      child_purpose_uuids: [purposes['MX Tube'], purposes['MX Tube'], purposes['Library Tube']],
      parent_uuids: [parent.attributes.uuid],
      tube_attributes: names.map((name) => ({ name })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const children = await related('specific_tube_creations', res.body.data.id, 'children');
    // Limber indexes the children by name.
    expect(children.map((t: any) => t.attributes.name)).toEqual(names);
    for (const tube of children) expect(tube.attributes).toMatchObject({ state: 'pending' });
    expect((await related('tubes', children[2].id, 'purpose')).attributes.name).toBe('Library Tube');
    expect(idsOf(await related('plates', parent.id, 'children'))).toEqual(idsOf(children));
    const events = (await outboxEvents()).filter((e) => e.type === 'tubes.created' && children.some((c: any) => c.id === e.resource.id));
    expect(events).toHaveLength(3);
  });

  it("by relationships, without tube_attributes; a foreign barcode (tubes scanned from a rack) is the tube's barcode", async () => {
    const [plate, buffer] = await Promise.all([createPlate(), createTube()]);
    const mx = await purposeId('tube_purposes', 'MX Tube');
    const plain = await postLinked('specific_tube_creations', {
      child_purposes: rels('tube_purposes', [mx, mx]),
      parents: { data: [rel('plates', plate.id).data, rel('tubes', buffer.id).data] },
    });
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    const tubes = await related('specific_tube_creations', plain.body.data.id, 'children');
    expect(tubes.map((t: any) => t.attributes.name)).toEqual([null, null]);
    expect(idsOf(await related('tubes', tubes[0].id, 'parents'))).toEqual(idsOf([plate, buffer]));
    const barcode = uniqueName('FX');
    const scanned = await post('specific_tube_creations', {
      child_purpose_uuids: [purposes['MX Tube']],
      parent_uuids: [plate.attributes.uuid],
      tube_attributes: [{ name: 'pool', foreign_barcode: barcode }],
    });
    expect(scanned.status, JSON.stringify(scanned.body)).toBe(201);
    const [tube] = await related('specific_tube_creations', scanned.body.data.id, 'children');
    expect(tube.attributes.labware_barcode.human_barcode).toBe(barcode);
    expect((await call('GET', `/api/v2/tubes?filter[barcode]=${barcode}`)).body.data.map((t: any) => t.id)).toEqual([tube.id]);
  });

  it('refuses, writing nothing: tube_attributes not one per tube, an unknown member, a barcode taken or given twice, a plate purpose', async () => {
    const plate = await createPlate();
    const bad = (attributes: Record<string, unknown>) =>
      refused(
        'POST',
        '/api/v2/specific_tube_creations',
        doc('specific_tube_creations', {
          parent_uuids: [plate.attributes.uuid],
          user_uuid: user,
          child_purpose_uuids: [purposes['MX Tube'], purposes['MX Tube']],
          ...attributes,
        }),
      );
    const count = expectError(await bad({ tube_attributes: [{ name: 'one' }] }), 422, 'invalid_value', '/data/attributes/tube_attributes');
    expect(count.detail).toBe('tube_attributes - 1 entries for 2 tubes (child_purpose_uuids): one entry per tube');
    expectError(await bad({ tube_attributes: [{ name: 'a' }, { colour: 'red' }] }), 422, undefined, '/data/attributes/tube_attributes/1');
    const taken = plate.attributes.labware_barcode.human_barcode;
    const inUse = expectError(
      await bad({ tube_attributes: [{ name: 'a' }, { name: 'b', foreign_barcode: taken }] }),
      422,
      'not_unique',
      '/data/attributes/tube_attributes/1/foreign_barcode',
    );
    expect(inUse.detail).toBe(`tube_attributes - "${taken}" is already in use by plates ${plate.id}`);
    expectError(
      await bad({ tube_attributes: [{ foreign_barcode: 'FX-TWICE' }, { foreign_barcode: 'fx-twice' }] }),
      422,
      'invalid_value',
      '/data/attributes/tube_attributes/1/foreign_barcode',
    );
    expectError(
      await bad({ child_purpose_uuids: [purposes['MX Tube'], purposes['Library Plate']] }),
      404,
      'record_not_found',
      '/data/attributes/child_purpose_uuids/1',
    );
    expectError(await bad({ child_purpose_uuids: [] }), 422, 'required', '/data/relationships/child_purposes');
  });

  it(`at its limits: ${ONE_TRANSACTION_OF_TUBES} tubes from one parent are one transaction of ${tubesFromOneParent(ONE_TRANSACTION_OF_TUBES)} items; one more is several, still one write; past the bound of one request, a 422 naming it`, {
    timeout: 180_000,
  }, async () => {
    const parent = await createPlate();
    const body = (n: number) =>
      doc('specific_tube_creations', { child_purpose_uuids: Array(n).fill(purposes['MX Tube']), parent_uuids: [parent.attributes.uuid], user_uuid: user });
    expect(tubesFromOneParent(ONE_TRANSACTION_OF_TUBES + 1)).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    for (const n of [ONE_TRANSACTION_OF_TUBES, ONE_TRANSACTION_OF_TUBES + 1]) {
      const { result: res, transactions } = await observeCalls(() => call('POST', '/api/v2/specific_tube_creations', { body: body(n) }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      if (n === ONE_TRANSACTION_OF_TUBES) expect(transactions).toEqual([tubesFromOneParent(n)]);
      else expect(transactions.length).toBeGreaterThan(1);
      expect(await related('specific_tube_creations', res.body.data.id, 'children')).toHaveLength(n);
    }
    // 1 + 3n records and index entries: 1,333 tubes are the bound's 4,000, 1,334 past it, refused before anything is read or written.
    const over = Math.floor((LARGE_WRITE_ITEM_LIMIT - 1) / 3) + 1;
    const error = expectError(await refused('POST', '/api/v2/specific_tube_creations', body(over)), 422, 'too_large', '/data/attributes/child_purpose_uuids');
    expect(error.detail).toBe(
      `child_purpose_uuids - ${over} tubes from 1 parent(s) would write ${1 + 3 * over} records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}`,
    );
  });
});

/** A rack creation from the plate that must be refused and write nothing. */
const refusedRacks = (plate: any, racks: unknown) =>
  refused(
    'POST',
    '/api/v2/specific_tube_rack_creations',
    doc('specific_tube_rack_creations', { parent_uuids: [plate.attributes.uuid], user_uuid: user, tube_rack_attributes: racks }),
  );

describe('specific_tube_rack_creations (plate split to tube racks)', () => {
  it("makes Limber's sequencing and contingency racks of new tubes at their positions with their barcodes, children of the plate; the tubes then take the plate's material by a transfer request collection", async () => {
    const { plate } = await filledPlate(2);
    const [seq, spare] = [rackOf('SEQ', 2), rackOf('SPR', 2, { purpose: 'Tube Rack 48' })];
    const res = await post('specific_tube_rack_creations', { parent_uuids: [plate.attributes.uuid], tube_rack_attributes: [seq, spare] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const racks = await related('specific_tube_rack_creations', res.body.data.id, 'children');
    // Limber indexes the racks by name, then maps each racked tube's barcode to its uuid.
    expect(racks.map((r: any) => [r.attributes.name, r.attributes.size, r.attributes.state])).toEqual([
      ['SEQ', 96, 'pending'],
      ['SPR', 48, 'pending'],
    ]);
    expect(racks[0].attributes.labware_barcode.human_barcode).toBe(seq.tube_rack_barcode);
    expect(idsOf(await related('plates', plate.id, 'children'))).toEqual(idsOf(racks));
    const read = await call('GET', `/api/v2/tube_racks/${racks[0].id}?include=racked_tubes.tube.purpose`);
    const included = new Map<string, any>(read.body.included.map((r: any) => [`${r.type}/${r.id}`, r]));
    const racked = read.body.data.relationships.racked_tubes.data.map((l: any) => included.get(`racked_tubes/${l.id}`));
    const byBarcode = new Map<string, any>(
      racked.map((r: any) => {
        const tube = included.get(`tubes/${r.relationships.tube.data.id}`);
        return [tube.attributes.labware_barcode.human_barcode, { tube, coordinate: r.attributes.coordinate }];
      }),
    );
    for (const given of seq.racked_tubes) {
      const { tube, coordinate } = byBarcode.get(given.tube_barcode);
      expect(coordinate).toBe(given.tube_position);
      expect(tube.attributes).toMatchObject({ name: given.tube_name, state: 'pending' });
      expect(included.get(`purposes/${tube.relationships.purpose.data.id}`).attributes.name).toBe('MX Tube');
    }
    const [a1] = seq.racked_tubes;
    const tube = byBarcode.get(a1!.tube_barcode).tube;
    expect((await call('GET', `/api/v2/tubes/${tube.id}/tube_rack`)).body.data.id).toBe(racks[0].id);
    const events = (await outboxEvents()).filter((e) => e.type === 'tube_racks.created' || e.type === 'specific_tube_rack_creations.created');
    expect(events.map((e) => e.resource.id).sort()).toEqual([...idsOf(racks), res.body.data.id].sort());

    // Limber's next call: a transfer request collection from the wells into the tubes (nothing moved before it).
    expect(await contentsOf('tubes', tube.id)).toEqual(new Map());
    const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=1`)).body.data;
    const moved = await post('transfer_request_collections', {
      transfer_requests_attributes: [{ source_asset: wells[0].attributes.uuid, target_asset: tube.attributes.uuid }],
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect((await contentsOf('tubes', tube.id)).get('tube')).toHaveLength(1);
  });

  it('refuses, writing nothing: positions repeated or off the rack, barcodes taken or given twice, an unknown purpose, no racks', async () => {
    const plate = await createPlate();
    const bad = (racks: unknown) => refusedRacks(plate, racks);
    const twice = rackOf('R', 2);
    twice.racked_tubes[1]!.tube_position = 'a1';
    const at = (i: number, j: number, member: string) => `/data/attributes/tube_rack_attributes/${i}/racked_tubes/${j}/${member}`;
    expect(expectError(await bad([twice]), 422, 'invalid_value', at(0, 1, 'tube_position')).detail).toBe('tube_rack_attributes - A1 is given twice');
    const small = rackOf('R', 1, { purpose: 'Tube Rack 48' });
    small.racked_tubes[0]!.tube_position = 'H12';
    expect(expectError(await bad([small]), 422, 'invalid_value', at(0, 0, 'tube_position')).detail).toContain('"H12" is not a coordinate of a 48-tube rack');
    const taken = plate.attributes.labware_barcode.human_barcode;
    expectError(await bad([rackOf('R', 1, { barcode: taken })]), 422, 'not_unique', '/data/attributes/tube_rack_attributes/0/tube_rack_barcode');
    const [first, second] = [rackOf('R', 1), rackOf('S', 1)];
    second.racked_tubes[0]!.tube_barcode = first.racked_tubes[0]!.tube_barcode;
    expect(expectError(await bad([first, second]), 422, 'invalid_value', at(1, 0, 'tube_barcode')).detail).toContain(
      'is also given at tube_rack_attributes.0.racked_tubes.0.tube_barcode',
    );
    const unknown = rackOf('R', 1);
    unknown.racked_tubes[0]!.tube_purpose_uuid = purposes['Tube Rack 96'];
    expectError(await bad([unknown]), 404, 'record_not_found', at(0, 0, 'tube_purpose_uuid'));
    expectError(await bad([]), 422, 'invalid_value', '/data/attributes/tube_rack_attributes');
    expectError(await bad([{ ...rackOf('R', 0), racked_tubes: 'A1' }]), 422, 'invalid_type', '/data/attributes/tube_rack_attributes/0/racked_tubes');
    expectError(
      await refused(
        'POST',
        '/api/v2/specific_tube_rack_creations',
        doc('specific_tube_rack_creations', { parent_uuids: [plate.attributes.uuid], user_uuid: user }),
      ),
      422,
      'required',
      '/data/attributes/tube_rack_attributes',
    );
  });

  it('racks existing tubes named by barcode as they are (with new ones); refuses one already racked or of another purpose, and a barcode of a plate', async () => {
    const plate = await createPlate();
    const [first, second] = await Promise.all([createTube('MX Tube', { barcode: uniqueName('FX') }), createTube('MX Tube', { barcode: uniqueName('FX') })]);
    const rack = rackOf('MIXED', 3);
    rack.racked_tubes[0]!.tube_barcode = first.attributes.labware_barcode.human_barcode;
    rack.racked_tubes[2]!.tube_barcode = second.attributes.labware_barcode.human_barcode.toLowerCase();
    const { result: res, transactions } = await observeCalls(() =>
      post('specific_tube_rack_creations', { parent_uuids: [plate.attributes.uuid], tube_rack_attributes: [rack] }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The rack, its guard and link; two existing tubes; one new tube and its guard; the creation, two count shards, the request item;
    // an audit entry for the rack, each of its three tubes and the plate.
    expect(transactions).toEqual([auditedTransactionItems(rackCreationItems(1, 1, 1, 2), 5)]);
    const [made] = await related('specific_tube_rack_creations', res.body.data.id, 'children');
    const racked = (await call('GET', `/api/v2/tube_racks/${made.id}/racked_tubes?include=tube`)).body;
    const tubeAt = new Map<string, string>(racked.data.map((r: any) => [r.attributes.coordinate, r.relationships.tube.data.id]));
    expect([tubeAt.get('A1'), tubeAt.get('C1')]).toEqual([first.id, second.id]);
    expect(tubeAt.get('B1')).not.toBe(first.id);
    expect((await call('GET', `/api/v2/tubes/${first.id}/tube_rack`)).body.data.id).toBe(made.id);
    // The existing tube keeps its name; it is the rack's, not the plate's child.
    expect((await call('GET', `/api/v2/tubes/${first.id}`)).body.data.attributes.name).toBe(first.attributes.name);
    expect(idsOf(await related('plates', plate.id, 'children'))).toEqual([made.id]);

    const bad = (racks: unknown) => refusedRacks(plate, racks);
    const again = rackOf('AGAIN', 1);
    again.racked_tubes[0]!.tube_barcode = first.attributes.labware_barcode.human_barcode;
    const racked2 = expectError(await bad([again]), 422, 'invalid_value', '/data/attributes/tube_rack_attributes/0/racked_tubes/0/tube_barcode');
    expect(racked2.detail).toBe(`tube_rack_attributes - tube ${first.id} is already in tube rack ${made.id}`);
    const other = await createTube('Library Tube', { barcode: uniqueName('FX') });
    const purpose = rackOf('PURPOSE', 1);
    purpose.racked_tubes[0]!.tube_barcode = other.attributes.labware_barcode.human_barcode;
    expect(expectError(await bad([purpose]), 422, 'invalid_value', '/data/attributes/tube_rack_attributes/0/racked_tubes/0/tube_barcode').detail).toContain(
      `tube ${other.id} is of purpose ${await purposeId('tube_purposes', 'Library Tube')}, not of the purpose named for it (${await purposeId('tube_purposes', 'MX Tube')})`,
    );
    const plateBarcode = rackOf('PLATE', 1);
    plateBarcode.racked_tubes[0]!.tube_barcode = plate.attributes.labware_barcode.human_barcode;
    expectError(await bad([plateBarcode]), 422, 'not_unique', '/data/attributes/tube_rack_attributes/0/racked_tubes/0/tube_barcode');
  });

  // A rack from one plate: its new tubes 3 items each (the tube, its guard, its audit entry), its existing ones 2 (the tube's
  // update, its audit entry), beside the rack's and the plate's audit entries (docs/decisions.md, "Audit trail").
  const rackOfNew = (tubes: number) => auditedTransactionItems(rackCreationItems(1, tubes, 1), 2 + tubes);
  const rackOfExisting = (tubes: number) => auditedTransactionItems(rackCreationItems(1, 0, 1, tubes), 2 + tubes);
  const [NEW_TUBES, EXISTING_TUBES] = [mostInOneTransaction(rackOfNew), mostInOneTransaction(rackOfExisting)];
  it(`at its limits: a rack of ${NEW_TUBES} new tubes from one plate is one transaction of ${rackOfNew(NEW_TUBES)} items, ${EXISTING_TUBES} existing tubes one of ${rackOfExisting(EXISTING_TUBES)}; one more of either is several; past the bound of one request, a 422 naming it`, {
    timeout: 180_000,
  }, async () => {
    const plate = await createPlate();
    const mx = Number(await purposeId('tube_purposes', 'MX Tube'));
    const rackOfSeeded = async (name: string, tubes: number) => {
      const seeded = await seedTubes(tubes, mx, () => ({ barcode: externalBarcode(uniqueName('FX')) }));
      const rack = rackOf(name, tubes);
      for (const [k, tube] of seeded.entries()) rack.racked_tubes[k]!.tube_barcode = labwareAttrs(tube).barcode.human_barcode;
      return rack;
    };
    const racked = (rack: unknown) =>
      observeCalls(() => post('specific_tube_rack_creations', { parent_uuids: [plate.attributes.uuid], tube_rack_attributes: [rack] }));
    for (const [rack, items] of [
      [rackOf('FULL', NEW_TUBES), rackOfNew(NEW_TUBES)],
      [await rackOfSeeded('EXISTING', EXISTING_TUBES), rackOfExisting(EXISTING_TUBES)],
    ] as const) {
      const { result: res, transactions } = await racked(rack);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(transactions).toEqual([items]);
    }
    for (const rack of [rackOf('MORE', NEW_TUBES + 1), await rackOfSeeded('MORE_EXISTING', EXISTING_TUBES + 1)]) {
      const { result: res, transactions } = await racked(rack);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(transactions.length).toBeGreaterThan(1);
      const [made] = await related('specific_tube_rack_creations', res.body.data.id, 'children');
      expect(await related('tube_racks', made.id, 'racked_tubes')).toHaveLength(rack.racked_tubes.length);
    }

    // 20 racks of 96 new tubes are 3,901 records and index entries; 21 are 4,096, refused once their barcodes are read,
    // and 42 racks (4,159 even were every tube an existing one) before any read.
    expect(writtenItems(rackCreationItems(20, 20 * 96, 1))).toBeLessThanOrEqual(LARGE_WRITE_ITEM_LIMIT);
    for (const [racks, what, items] of [
      [21, `${21 * 96} new tubes`, '4096'],
      [42, `${42 * 96} tubes (one item each at least)`, '4159'],
    ] as const) {
      const body = doc('specific_tube_rack_creations', {
        parent_uuids: [plate.attributes.uuid],
        user_uuid: user,
        tube_rack_attributes: Array.from({ length: racks }, (_, i) => rackOf(`OVER${i}`, 96)),
      });
      const error = expectError(await refused('POST', '/api/v2/specific_tube_rack_creations', body), 422, 'too_large', '/data/attributes/tube_rack_attributes');
      expect(error.detail).toBe(
        `tube_rack_attributes - ${racks} rack(s) of ${what} in all, from 1 parent(s) (parent_uuids), would write ${items} records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}`,
      );
    }
  });

  it("gives a rack sent without a barcode a generated one and the rack after it its own; the racks' ids follow their new tubes'", async () => {
    const { plate } = await filledPlate(2);
    const { tube_rack_barcode: _none, ...unbarcoded } = rackOf('SEQ', 2);
    const given = rackOf('SPR', 2);
    const res = await post('specific_tube_rack_creations', { parent_uuids: [plate.attributes.uuid], tube_rack_attributes: [unbarcoded, given] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const racks = (await related('specific_tube_rack_creations', res.body.data.id, 'children')).sort((a: any, b: any) => Number(a.id) - Number(b.id));
    expect(racks.map((r: any) => r.attributes.name)).toEqual(['SEQ', 'SPR']);
    const [generated, kept] = racks.map((r: any) => r.attributes.labware_barcode.human_barcode);
    expect(kept).toBe(given.tube_rack_barcode);
    expect(generated).toMatch(/\d/);
    expect(generated).not.toBe(kept);
    const tubeIds: number[] = [];
    for (const rack of racks) {
      const read = await call('GET', `/api/v2/tube_racks/${rack.id}?include=racked_tubes.tube`);
      tubeIds.push(...read.body.included.filter((r: any) => r.type === 'tubes').map((r: any) => Number(r.id)));
    }
    expect(tubeIds).toHaveLength(4);
    expect(Math.min(...racks.map((r: any) => Number(r.id)))).toBeGreaterThan(Math.max(...tubeIds));
  });
});

describe('20 at once', () => {
  const WRITERS = 20;

  it('specific tube creations and rack creations of new tubes from one parent: all 201, every tube and rack its own, the parent finds them all', {
    timeout: 180_000,
  }, async () => {
    const parent = await createPlate();
    const tubes = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        post('specific_tube_creations', {
          child_purpose_uuids: [purposes['MX Tube'], purposes['MX Tube']],
          parent_uuids: [parent.attributes.uuid],
          tube_attributes: [{ name: `P${i}:1` }, { name: `P${i}:2` }],
        }),
      ),
    );
    const racks = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        post('specific_tube_rack_creations', { parent_uuids: [parent.attributes.uuid], tube_rack_attributes: [rackOf(`R${i}`, 2)] }),
      ),
    );
    expect([...tubes, ...racks].map((r) => r.status)).toEqual(Array(2 * WRITERS).fill(201));
    const made = await Promise.all(tubes.map((r) => related('specific_tube_creations', r.body.data.id, 'children')));
    expect(new Set(made.flat().map((t: any) => t.id)).size).toBe(2 * WRITERS);
    const rackIds = (await Promise.all(racks.map((r) => related('specific_tube_rack_creations', r.body.data.id, 'children')))).flat().map((r: any) => r.id);
    expect(new Set(rackIds).size).toBe(WRITERS);
    expect(idsOf(await related('plates', parent.id, 'children'))).toEqual([...made.flat().map((t: any) => t.id), ...rackIds].sort());
  });

  it('rack creations racking ONE existing tube: exactly one 201, the others refused (422, or 409 past their retries); the tube is in that rack only', {
    timeout: 180_000,
  }, async () => {
    const parent = await createPlate();
    const tube = await createTube('MX Tube', { barcode: uniqueName('FX') });
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => {
        const rack = rackOf(`ONE${i}`, 1);
        rack.racked_tubes[0]!.tube_barcode = tube.attributes.labware_barcode.human_barcode;
        return post('specific_tube_rack_creations', { parent_uuids: [parent.attributes.uuid], tube_rack_attributes: [rack] });
      }),
    );
    const won = results.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201 && r.status !== 422 && r.status !== 409).map((r) => r.status)).toEqual([]);
    const [rack] = await related('specific_tube_rack_creations', won[0]!.body.data.id, 'children');
    expect((await call('GET', `/api/v2/tubes/${tube.id}/tube_rack`)).body.data.id).toBe(rack.id);
    expect(idsOf(await related('plates', parent.id, 'children'))).toEqual([rack.id]);
  });
});
