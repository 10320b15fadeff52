import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { addAliquot, create, createSample, createTube, recordCount, rel, tubeOf, type Tube } from '../support/fixtures.ts';
import { barcodeNumber, sanger } from '../support/oracles.ts';
import { freshStore } from '../support/store.ts';

/**
 * tube_racks (interface.md "tube_racks", contract §2 tube_racks, reference-behaviour.md §2.4) and the
 * racked_tubes they hold: `size` 48 or 96, `name`, optional `purpose`, `tube_locations` and every rule on
 * them, computed fields refused on POST, barcodes, `state`, PATCH `size`, the filters, the relationships and
 * the compound documents limber and samples_extraction ask for (client-usage.md §1.4, W12). Every rejected
 * write is followed by a check that nothing was written.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let stockTube: string;
let rack96: string;
let rack48: string;
let studyA: string;
let stockPlate: string;

beforeAll(async () => {
  stockTube = await idOf('tube_purposes', 'name', 'Stock Tube');
  rack96 = await idOf('tube_rack_purposes', 'name', 'Tube Rack 96');
  rack48 = await idOf('tube_rack_purposes', 'name', 'Tube Rack 48');
  studyA = await idOf('studies', 'name', 'Study A');
  stockPlate = await idOf('plate_purposes', 'name', 'Stock Plate');
});

const locations = (entries: Record<string, Tube | string>) =>
  Object.fromEntries(Object.entries(entries).map(([k, t]) => [k, { uuid: typeof t === 'string' ? t : t.uuid }]));

/** `n` Stock Tubes, created all at once. */
const createTubes = (n: number): Promise<Tube[]> => Promise.all(Array.from({ length: n }, async () => tubeOf(await createTube())));

const postRack = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  call('POST', '/api/v2/tube_racks', { body: doc('tube_racks', attributes, relationships) });

const createRack = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => create('tube_racks', attributes, relationships);

const patchRack = (id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  call('PATCH', `/api/v2/tube_racks/${id}`, { body: doc('tube_racks', attributes, relationships, id) });

async function getRack(id: string, query = ''): Promise<any> {
  const res = await call('GET', `/api/v2/tube_racks/${id}${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** What a rejected rack POST must leave untouched: the counts, and each named tube as it was. */
async function snapshot(tubes: Tube[] = []) {
  const [racks, racked, labware] = await Promise.all([recordCount('tube_racks'), recordCount('racked_tubes'), recordCount('labware')]);
  const states = await Promise.all(tubes.map(async (t) => (await call('GET', `/api/v2/tubes/${t.id}?include=tube_rack`)).body.data));
  return { racks, racked, labware, states };
}

function expectErrors(res: CallResult, status: number, expected: { code?: string; pointer: string; detail?: RegExp }[]) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.data).toBeUndefined();
  const errors = res.body.errors as { status: string; code: string; detail: string; source?: { pointer?: string } }[];
  expect(errors.map((e) => e.source?.pointer).sort()).toEqual(expected.map((e) => e.pointer).sort());
  for (const want of expected) {
    const error = errors.find((e) => e.source?.pointer === want.pointer)!;
    expect(error.status).toBe(String(status));
    if (want.code) expect(error.code).toBe(want.code);
    if (want.detail) expect(error.detail).toMatch(want.detail);
  }
}

/** A rack's barcode in all its forms, computed independently of lib/domain from the number in its human form. */
function expectedBarcode(prefix: string, human_barcode: string) {
  const { human, machine } = sanger(prefix, barcodeNumber(prefix, human_barcode));
  return { human_barcode: human, machine_barcode: machine, ean13_barcode: machine };
}

/** Slot of a coordinate on the 96 grid, column order, 1-based: the racked tube's id is rack id × 1000 + slot. */
const slot96 = (coordinate: string) => (Number(coordinate.slice(1)) - 1) * 8 + (coordinate.charCodeAt(0) - 64);
const rackedId = (rackId: string | number, coordinate: string) => String(Number(rackId) * 1000 + slot96(coordinate));

describe('POST size', () => {
  it('creates a 96 rack from an integer size: 8 × 12, rendered as an integer, empty, with a TR barcode', async () => {
    const res = await postRack({ size: 96, name: 'Rack one' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const rack = res.body.data;
    expect(res.headers.Location).toBe(`${BASE}/tube_racks/${rack.id}`);
    expect(rack.type).toBe('tube_racks');
    expect(rack.links.self).toBe(`${BASE}/tube_racks/${rack.id}`);
    expect(rack.attributes).toMatchObject({ size: 96, number_of_rows: 8, number_of_columns: 12, name: 'Rack one', state: 'empty' });
    expect(rack.attributes.uuid).toMatch(UUID);
    expect(rack.attributes.labware_barcode).toEqual(expectedBarcode('TR', rack.attributes.labware_barcode.human_barcode));
    expect(rack.attributes.labware_barcode.human_barcode).toMatch(/^TR\d+[A-W]$/);
    expect(rack.attributes.labware_barcode.ean13_barcode).toMatch(/^558\d{10}$/);
    // Write-only and transient fields are never rendered.
    expect(rack.attributes).not.toHaveProperty('tube_locations');
    expect(typeof rack.attributes.created_at).toBe('string');
    // Relationships carry links and, not being included, no data (contract §1.4).
    for (const name of ['racked_tubes', 'tube_receptacles', 'purpose', 'comments', 'parents', 'custom_metadatum_collection']) {
      expect(rack.relationships[name], name).toEqual({
        links: { self: `${BASE}/tube_racks/${rack.id}/relationships/${name}`, related: `${BASE}/tube_racks/${rack.id}/${name}` },
      });
    }
    expect((await getRack(rack.id)).data).toEqual(rack);
  });

  it('creates a 48 rack from a numeric string: 6 × 8, size rendered as the integer 48', async () => {
    const rack = await createRack({ size: '48' });
    expect(rack.attributes.size).toBe(48);
    expect(rack.attributes).toMatchObject({ number_of_rows: 6, number_of_columns: 8, state: 'empty', name: null });
    const read = await getRack(rack.id);
    expect(read.data.attributes.size).toBe(48);
    expect((await createRack({ size: ' 96 ' })).attributes.size).toBe(96);
  });

  it('refuses a size other than 48 or 96 with a 422 naming the field and the value; nothing is created', async () => {
    const before = await snapshot();
    for (const [size, shown] of [
      [50, '50'],
      ['50', '"50"'],
      [384, '384'],
      [0, '0'],
      [-96, '-96'],
      [96.5, '96.5'],
      ['ninety-six', '"ninety-six"'],
      ['96.0', '"96.0"'],
    ] as const) {
      const res = await postRack({ size });
      expectErrors(res, 422, [{ pointer: '/data/attributes/size', detail: /^size - / }]);
      expect(res.body.errors[0].detail, String(size)).toContain(shown);
    }
    const fifty = await postRack({ size: 50 });
    expect(fifty.body.errors[0]).toMatchObject({ code: 'invalid_value', title: 'Invalid value', detail: 'size - must be 48 or 96, got 50' });
    // A value of the wrong JSON type is a 422 too.
    for (const size of [true, { n: 96 }, [96]]) expectErrors(await postRack({ size }), 422, [{ pointer: '/data/attributes/size', detail: /^size - / }]);
    expect(await snapshot()).toEqual(before);
  });

  it('requires size (missing or null → 422)', async () => {
    const before = await snapshot();
    expectErrors(await postRack({ name: 'no size' }), 422, [{ code: 'required', pointer: '/data/attributes/size', detail: /^size - / }]);
    expectErrors(await postRack({ size: null }), 422, [{ code: 'required', pointer: '/data/attributes/size' }]);
    expectErrors(await postRack({}), 422, [{ code: 'required', pointer: '/data/attributes/size' }]);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses number_of_rows, number_of_columns and labware_barcode on POST (400, one error each); nothing is created', async () => {
    const before = await snapshot();
    expectErrors(await postRack({ size: 96, number_of_rows: 8 }), 400, [
      { code: 'param_not_allowed', pointer: '/data/attributes/number_of_rows', detail: /number_of_rows/ },
    ]);
    expectErrors(await postRack({ size: 96, number_of_columns: 12 }), 400, [{ code: 'param_not_allowed', pointer: '/data/attributes/number_of_columns' }]);
    expectErrors(await postRack({ size: 96, labware_barcode: { human_barcode: 'TR1A' } }), 400, [
      { code: 'param_not_allowed', pointer: '/data/attributes/labware_barcode' },
    ]);
    expectErrors(await postRack({ size: 48, number_of_rows: 6, number_of_columns: 8, labware_barcode: null }), 400, [
      { pointer: '/data/attributes/number_of_rows' },
      { pointer: '/data/attributes/number_of_columns' },
      { pointer: '/data/attributes/labware_barcode' },
    ]);
    // Other read-only fields and unknown ones are 400 as well.
    expectErrors(await postRack({ size: 96, state: 'passed' }), 400, [{ code: 'param_not_allowed', pointer: '/data/attributes/state' }]);
    expectErrors(await postRack({ size: 96, barcode: 'X1' }), 400, [{ code: 'param_not_allowed', pointer: '/data/attributes/barcode' }]);
    expect(await snapshot()).toEqual(before);
  });

  it('takes name (write-once, a non-empty string) and an optional purpose of type tube_rack_purposes', async () => {
    const named = await createRack({ size: 96, name: 'My rack' }, { purpose: rel('tube_rack_purposes', rack96) });
    expect(named.attributes.name).toBe('My rack');
    const purpose = await call('GET', `/api/v2/tube_racks/${named.id}/purpose`);
    expect(purpose.status).toBe(200);
    expect(purpose.body.data).toMatchObject({ type: 'tube_rack_purposes', id: rack96, attributes: { name: 'Tube Rack 96' } });
    expect(named.attributes.labware_barcode).toEqual(expectedBarcode('TR', named.attributes.labware_barcode.human_barcode));

    const without = await createRack({ size: 48 });
    expect((await call('GET', `/api/v2/tube_racks/${without.id}/purpose`)).body.data).toBeNull();
    expect((await call('GET', `/api/v2/tube_racks/${without.id}/relationships/purpose`)).body.data).toBeNull();

    const before = await snapshot();
    expectErrors(await postRack({ size: 96, name: '' }), 422, [{ pointer: '/data/attributes/name', detail: /^name - / }]);
    expectErrors(await postRack({ size: 96, name: 7 }), 422, [{ code: 'invalid_type', pointer: '/data/attributes/name' }]);
    expectErrors(await postRack({ size: 96 }, { purpose: rel('tube_purposes', stockTube) }), 400, [
      { code: 'type_mismatch', pointer: '/data/relationships/purpose/data/type' },
    ]);
    expectErrors(await postRack({ size: 96 }, { purpose: rel('tube_rack_purposes', '999999') }), 404, [
      { code: 'record_not_found', pointer: '/data/relationships/purpose/data' },
    ]);
    expect(await snapshot()).toEqual(before);
  });
});

describe('POST tube_locations', () => {
  it('places tubes at coordinates: racked_tubes with coordinate and tube, each tube pointing back at the rack', async () => {
    const [a, b, c] = await createTubes(3);
    const rack = await createRack({ size: 96, name: 'placed', tube_locations: locations({ A1: a!, h12: b!, C5: c! }) });
    // With tubes, the rack's state is its tubes' common state (new tubes: pending); without, `empty`.
    const tubeState = (await call('GET', `/api/v2/tubes/${a!.id}`)).body.data.attributes.state;
    expect(tubeState).toBe('pending');
    expect(rack.attributes.state).toBe(tubeState);
    expect(rack.attributes).not.toHaveProperty('tube_locations');

    const body = await getRack(rack.id, '?include=racked_tubes.tube');
    const linkage = body.data.relationships.racked_tubes.data as { type: string; id: string }[];
    expect(linkage.map((l) => l.type)).toEqual(['racked_tubes', 'racked_tubes', 'racked_tubes']);
    expect(linkage.map((l) => l.id).sort()).toEqual([rackedId(rack.id, 'A1'), rackedId(rack.id, 'C5'), rackedId(rack.id, 'H12')].sort());
    const racked = (body.included as any[]).filter((r) => r.type === 'racked_tubes');
    const byCoordinate = Object.fromEntries(racked.map((r) => [r.attributes.coordinate, r]));
    // Keys are stored in their canonical spelling (h12 → H12).
    expect(Object.keys(byCoordinate).sort()).toEqual(['A1', 'C5', 'H12']);
    expect(byCoordinate.A1.id).toBe(rackedId(rack.id, 'A1'));
    expect(byCoordinate.A1.relationships.tube.data).toEqual({ type: 'tubes', id: a!.id });
    expect(byCoordinate.H12.relationships.tube.data).toEqual({ type: 'tubes', id: b!.id });
    expect(byCoordinate.C5.relationships.tube.data).toEqual({ type: 'tubes', id: c!.id });
    expect(Number(byCoordinate.H12.id)).toBe(Number(rack.id) * 1000 + 96);
    expect(Number(byCoordinate.C5.id)).toBe(Number(rack.id) * 1000 + 35);
    expect(
      (body.included as any[])
        .filter((r) => r.type === 'tubes')
        .map((t) => t.id)
        .sort(),
    ).toEqual([a!.id, b!.id, c!.id].sort());

    for (const [tube, coordinate] of [
      [a!, 'A1'],
      [b!, 'H12'],
      [c!, 'C5'],
    ] as const) {
      const inRack = await call('GET', `/api/v2/tubes/${tube.id}/tube_rack`);
      expect(inRack.status).toBe(200);
      expect(inRack.body.data).toMatchObject({ type: 'tube_racks', id: rack.id });
      const position = await call('GET', `/api/v2/tubes/${tube.id}/racked_tube`);
      expect(position.status).toBe(200);
      expect(position.body.data).toMatchObject({ type: 'racked_tubes', id: rackedId(rack.id, coordinate), attributes: { coordinate } });
    }
  });

  it('places tubes in a 48 rack up to F8', async () => {
    const [a, b] = await createTubes(2);
    const rack = await createRack({ size: 48, tube_locations: locations({ A1: a!, F8: b! }) });
    const listed = await call('GET', `/api/v2/tube_racks/${rack.id}/racked_tubes`);
    expect(listed.body.data.map((r: any) => r.attributes.coordinate)).toEqual(['A1', 'F8']);
    expect(listed.body.data.map((r: any) => r.id)).toEqual([rackedId(rack.id, 'A1'), rackedId(rack.id, 'F8')]);
  });

  it('an empty tube_locations map (or null) makes an empty rack', async () => {
    expect((await createRack({ size: 96, tube_locations: {} })).attributes.state).toBe('empty');
    const rack = await createRack({ size: 96, tube_locations: null });
    expect((await call('GET', `/api/v2/tube_racks/${rack.id}/racked_tubes`)).body.data).toEqual([]);
  });

  it('refuses coordinates outside the rack with a 422 per key, pointer at the key; nothing is written', async () => {
    const tubes = await createTubes(6);
    const before = await snapshot(tubes);
    const [t0, t1, t2, t3, t4, t5] = tubes as [Tube, Tube, Tube, Tube, Tube, Tube];
    // On a 48 rack (6 × 8): row G and I, column 9 are outside.
    expectErrors(await postRack({ size: 48, tube_locations: locations({ A1: t0, I1: t1 }) }), 422, [
      { code: 'invalid_value', pointer: '/data/attributes/tube_locations/I1', detail: /tube_locations.*"I1".*48/ },
    ]);
    expectErrors(await postRack({ size: 48, tube_locations: locations({ A9: t1 }) }), 422, [{ pointer: '/data/attributes/tube_locations/A9', detail: /"A9"/ }]);
    expectErrors(await postRack({ size: 48, tube_locations: locations({ G1: t1, H12: t2 }) }), 422, [
      { pointer: '/data/attributes/tube_locations/G1' },
      { pointer: '/data/attributes/tube_locations/H12' },
    ]);
    // On a 96 rack (8 × 12): column 13 and row I are outside.
    expectErrors(await postRack({ size: 96, tube_locations: locations({ A13: t1 }) }), 422, [
      { pointer: '/data/attributes/tube_locations/A13', detail: /"A13"/ },
    ]);
    expectErrors(await postRack({ size: 96, tube_locations: locations({ I1: t1 }) }), 422, [{ pointer: '/data/attributes/tube_locations/I1' }]);
    // Junk keys: one error each.
    expectErrors(await postRack({ size: 96, tube_locations: locations({ X: t0, '11': t1, A0: t2, A01: t3, 'A 1': t4, AA1: t5 }) }), 422, [
      { pointer: '/data/attributes/tube_locations/X' },
      { pointer: '/data/attributes/tube_locations/11' },
      { pointer: '/data/attributes/tube_locations/A0' },
      { pointer: '/data/attributes/tube_locations/A01' },
      { pointer: '/data/attributes/tube_locations/A 1' },
      { pointer: '/data/attributes/tube_locations/AA1' },
    ]);
    expectErrors(await postRack({ size: 96, tube_locations: locations({ '': t0 }) }), 422, [{ pointer: '/data/attributes/tube_locations/' }]);
    expect(await snapshot(tubes)).toEqual(before);
  });

  it('escapes "/" and "~" of a junk key in the JSON pointer (RFC 6901)', async () => {
    const [a, b] = await createTubes(2);
    const res = await postRack({ size: 96, tube_locations: locations({ 'A/1': a!, 'B~2': b! }) });
    expectErrors(res, 422, [
      { pointer: '/data/attributes/tube_locations/A~11', detail: /"A\/1"/ },
      { pointer: '/data/attributes/tube_locations/B~02', detail: /"B~2"/ },
    ]);
  });

  it('escapes "/" in the pointer of a malformed entry too (the schema errors of the engine)', async () => {
    const res = await postRack({ size: 96, tube_locations: { 'A/1': 'not an object' } });
    expectErrors(res, 422, [{ pointer: '/data/attributes/tube_locations/A~11' }]);
  });

  it('refuses malformed entries (422 at the entry)', async () => {
    const [t] = await createTubes(1);
    const before = await snapshot([t!]);
    expectErrors(await postRack({ size: 96, tube_locations: { A1: t!.uuid } }), 422, [{ pointer: '/data/attributes/tube_locations/A1' }]);
    expectErrors(await postRack({ size: 96, tube_locations: { A1: { uuid: 42 } } }), 422, [{ pointer: '/data/attributes/tube_locations/A1/uuid' }]);
    expectErrors(await postRack({ size: 96, tube_locations: { A1: {} } }), 422, [{ pointer: '/data/attributes/tube_locations/A1/uuid' }]);
    const extra = await postRack({ size: 96, tube_locations: { A1: { uuid: t!.uuid, barcode: 'x' } } });
    expect(extra.status).toBe(422);
    expect(extra.body.errors[0].source.pointer).toMatch(/^\/data\/attributes\/tube_locations\/A1/);
    expectErrors(await postRack({ size: 96, tube_locations: [{ uuid: t!.uuid }] }), 422, [{ pointer: '/data/attributes/tube_locations' }]);
    expectErrors(await postRack({ size: 96, tube_locations: 'A1' }), 422, [{ pointer: '/data/attributes/tube_locations' }]);
    expect(await snapshot([t!])).toEqual(before);
  });

  it('refuses the same tube twice, and the same coordinate twice (A1 and a1) — 422; nothing is written', async () => {
    const [a, b] = await createTubes(2);
    const before = await snapshot([a!, b!]);
    const twice = await postRack({ size: 96, tube_locations: locations({ A1: a!, B1: a! }) });
    expectErrors(twice, 422, [
      { code: 'invalid_value', pointer: '/data/attributes/tube_locations/B1/uuid', detail: new RegExp(`${a!.uuid}.*twice|twice.*${a!.uuid}`) },
    ]);
    // The same uuid in another case is the same tube.
    expectErrors(await postRack({ size: 96, tube_locations: { A1: { uuid: a!.uuid }, B1: { uuid: a!.uuid.toUpperCase() } } }), 422, [
      { pointer: '/data/attributes/tube_locations/B1/uuid' },
    ]);
    expectErrors(await postRack({ size: 96, tube_locations: locations({ A1: a!, a1: b! }) }), 422, [
      { pointer: '/data/attributes/tube_locations/a1', detail: /A1/ },
    ]);
    expect(await snapshot([a!, b!])).toEqual(before);
  });

  it('refuses a tube already in another rack (422 at its uuid); nothing is written', async () => {
    const [a, b] = await createTubes(2);
    const first = await createRack({ size: 96, tube_locations: locations({ A1: a! }) });
    const before = await snapshot([a!, b!]);
    const res = await postRack({ size: 96, tube_locations: locations({ B1: b!, D4: a! }) });
    expectErrors(res, 422, [
      { code: 'invalid_value', pointer: '/data/attributes/tube_locations/D4/uuid', detail: new RegExp(`${a!.uuid}.*already in tube rack ${first.id}`) },
    ]);
    expect(await snapshot([a!, b!])).toEqual(before);
    expect((await call('GET', `/api/v2/tubes/${b!.id}/tube_rack`)).body.data).toBeNull();
    expect((await call('GET', `/api/v2/tubes/${a!.id}/tube_rack`)).body.data.id).toBe(first.id);
  });

  it('answers an unknown tube uuid with 404 at the uuid, and creates nothing (no record, no id used, tubes unchanged)', async () => {
    const [a] = await createTubes(1);
    const plate = await call('POST', '/api/v2/plates', { body: doc('plates', {}, { purpose: rel('plate_purposes', stockPlate) }) });
    expect(plate.status).toBe(201);
    const previous = await createRack({ size: 96 });
    const before = await snapshot([a!]);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = await postRack({ size: 96, tube_locations: locations({ A1: a!, B2: unknown }) });
    expectErrors(res, 404, [{ code: 'record_not_found', pointer: '/data/attributes/tube_locations/B2/uuid', detail: new RegExp(unknown) }]);
    // A uuid of labware that is not a tube, and a string that is no uuid at all, are unknown tubes too.
    expectErrors(await postRack({ size: 96, tube_locations: locations({ A1: a!, C3: plate.body.data.attributes.uuid }) }), 404, [
      { pointer: '/data/attributes/tube_locations/C3/uuid' },
    ]);
    expectErrors(await postRack({ size: 96, tube_locations: locations({ A1: 'not-a-uuid' }) }), 404, [{ pointer: '/data/attributes/tube_locations/A1/uuid' }]);
    expect(await snapshot([a!])).toEqual(before);
    // No labware id was used by the failed requests: the next rack takes the next id.
    const next = await createRack({ size: 96 });
    expect(Number(next.id)).toBe(Number(previous.id) + 1);
  });
});

describe('PATCH', () => {
  it('changes size 96 → 48 when every tube fits, and back; racked tube ids and coordinates stay the same', async () => {
    const [a, b] = await createTubes(2);
    const rack = await createRack({ size: 96, tube_locations: locations({ A1: a!, F8: b! }) });
    const idsBefore = (await call('GET', `/api/v2/tube_racks/${rack.id}/racked_tubes`)).body.data.map((r: any) => [r.id, r.attributes.coordinate]);

    const res = await patchRack(rack.id, { size: 48 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ size: 48, number_of_rows: 6, number_of_columns: 8 });
    expect((await getRack(rack.id)).data.attributes).toMatchObject({ size: 48, number_of_rows: 6, number_of_columns: 8 });
    const idsAfter = (await call('GET', `/api/v2/tube_racks/${rack.id}/racked_tubes`)).body.data.map((r: any) => [r.id, r.attributes.coordinate]);
    expect(idsAfter).toEqual(idsBefore);
    expect(idsAfter).toEqual([
      [rackedId(rack.id, 'A1'), 'A1'],
      [rackedId(rack.id, 'F8'), 'F8'],
    ]);
    const position = await call('GET', `/api/v2/tubes/${b!.id}/racked_tube`);
    expect(position.body.data).toMatchObject({ id: rackedId(rack.id, 'F8'), attributes: { coordinate: 'F8' } });
    expect((await call('GET', `/api/v2/racked_tubes/${rackedId(rack.id, 'F8')}`)).body.data.relationships).toBeDefined();

    const back = await patchRack(rack.id, { size: '96' });
    expect(back.status).toBe(200);
    expect(back.body.data.attributes).toMatchObject({ size: 96, number_of_rows: 8, number_of_columns: 12 });
    expect((await call('GET', `/api/v2/tube_racks/${rack.id}/racked_tubes`)).body.data.map((r: any) => r.id)).toEqual(idsBefore.map((p: string[]) => p[0]));
  });

  it('refuses 96 → 48 when a tube sits outside the smaller rack (H12, A9): 422 naming the coordinates; nothing changes', async () => {
    for (const coordinate of ['H12', 'A9', 'G1']) {
      const [t] = await createTubes(1);
      const rack = await createRack({ size: 96, tube_locations: locations({ A1: (await createTubes(1))[0]!, [coordinate]: t! }) });
      const before = await getRack(rack.id);
      const res = await patchRack(rack.id, { size: 48 });
      expectErrors(res, 422, [{ code: 'invalid_value', pointer: '/data/attributes/size', detail: new RegExp(`^size - .*48.*${coordinate}`) }]);
      expect(res.body.errors[0].detail).not.toMatch(/A1\b/);
      expect(await getRack(rack.id)).toEqual(before);
    }
  });

  it('refuses sizes other than 48 or 96, and a null size, with a 422', async () => {
    const rack = await createRack({ size: 96 });
    const before = await getRack(rack.id);
    expectErrors(await patchRack(rack.id, { size: 50 }), 422, [{ pointer: '/data/attributes/size', detail: /^size - must be 48 or 96, got 50$/ }]);
    expectErrors(await patchRack(rack.id, { size: 'x' }), 422, [{ pointer: '/data/attributes/size' }]);
    expectErrors(await patchRack(rack.id, { size: null }), 422, [{ pointer: '/data/attributes/size', detail: /^size - / }]);
    expect(await getRack(rack.id)).toEqual(before);
  });

  it('refuses write-once, read-only and create-only fields on PATCH (400 per key)', async () => {
    const [t] = await createTubes(1);
    const rack = await createRack({ size: 96, name: 'fixed' }, { purpose: rel('tube_rack_purposes', rack96) });
    const before = await getRack(rack.id);
    expectErrors(await patchRack(rack.id, { name: 'renamed' }), 400, [{ code: 'param_not_allowed', pointer: '/data/attributes/name', detail: /name/ }]);
    expectErrors(await patchRack(rack.id, { tube_locations: locations({ A1: t! }) }), 400, [
      { code: 'param_not_allowed', pointer: '/data/attributes/tube_locations' },
    ]);
    expectErrors(await patchRack(rack.id, { number_of_rows: 6, number_of_columns: 8, labware_barcode: null }), 400, [
      { pointer: '/data/attributes/number_of_rows' },
      { pointer: '/data/attributes/number_of_columns' },
      { pointer: '/data/attributes/labware_barcode' },
    ]);
    expectErrors(await patchRack(rack.id, {}, { purpose: rel('tube_rack_purposes', rack48) }), 400, [
      { code: 'param_not_allowed', pointer: '/data/relationships/purpose' },
    ]);
    expectErrors(await patchRack(rack.id, {}, { racked_tubes: { data: [] } }), 400, [{ pointer: '/data/relationships/racked_tubes' }]);
    expect(await getRack(rack.id)).toEqual(before);
    expect((await call('GET', `/api/v2/tubes/${t!.id}/tube_rack`)).body.data).toBeNull();
  });
});

describe('filters', () => {
  const ids: { p96: string[]; p48: string[]; none: string[] } = { p96: [], p48: [], none: [] };
  let target: any;
  let other: any;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) ids.p96.push((await createRack({ size: 96 }, { purpose: rel('tube_rack_purposes', rack96) })).id);
    for (let i = 0; i < 3; i++) ids.p48.push((await createRack({ size: 48 }, { purpose: rel('tube_rack_purposes', rack48) })).id);
    target = await createRack({ size: 96, name: 'target' }, { purpose: rel('tube_rack_purposes', rack96) });
    ids.p96.push(target.id);
    other = await createRack({ size: 96 });
    ids.none.push(other.id);
  });

  const listIds = async (query: string): Promise<string[]> => {
    const res = await call('GET', `/api/v2/tube_racks?${query}&page[size]=500`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.record_count).toBe(res.body.data.length);
    for (const r of res.body.data) expect(r.type).toBe('tube_racks');
    return res.body.data.map((r: any) => r.id);
  };

  it('uuid: exact, any case, comma list, repeated keys', async () => {
    expect(await listIds(`filter[uuid]=${target.attributes.uuid}`)).toEqual([target.id]);
    expect(await listIds(`filter[uuid]=${target.attributes.uuid.toUpperCase()}`)).toEqual([target.id]);
    expect(await listIds(`filter[uuid]=${target.attributes.uuid},${other.attributes.uuid}`)).toEqual([target.id, other.id]);
    expect(await listIds(`filter[uuid][]=${target.attributes.uuid}&filter[uuid][]=${other.attributes.uuid}`)).toEqual([target.id, other.id]);
    expect(await listIds('filter[uuid]=00000000-0000-4000-8000-000000000000')).toEqual([]);
  });

  it('barcode: human (any case), machine and EAN-13 forms, comma lists', async () => {
    const { human_barcode, machine_barcode, ean13_barcode } = target.attributes.labware_barcode;
    for (const form of [human_barcode, human_barcode.toLowerCase(), machine_barcode, ean13_barcode]) {
      expect(await listIds(`filter[barcode]=${form}`), form).toEqual([target.id]);
    }
    expect(await listIds(`filter[barcode]=${ean13_barcode},${other.attributes.labware_barcode.human_barcode}`)).toEqual([target.id, other.id]);
    expect(await listIds(`filter[barcode]=TR999999X`)).toEqual([]);
    // The barcode of a tube is not a rack's.
    const [t] = await createTubes(1);
    const tube = await call('GET', `/api/v2/tubes/${t!.id}`);
    expect(await listIds(`filter[barcode]=${tube.body.data.attributes.labware_barcode.human_barcode}`)).toEqual([]);
  });

  it('purpose_id and purpose_name', async () => {
    // Every rack of this file's table with its purpose, to know exactly what each filter must return.
    const all = await call('GET', '/api/v2/tube_racks?include=purpose&page[size]=500');
    expect(all.status).toBe(200);
    const withPurpose = (purpose: string) => all.body.data.filter((r: any) => r.relationships.purpose.data?.id === purpose).map((r: any) => r.id);
    const all96 = withPurpose(rack96);
    const all48 = withPurpose(rack48);
    expect(all96).toEqual(expect.arrayContaining(ids.p96));
    expect(all48).toEqual(ids.p48);
    expect(all96.length + all48.length).toBeLessThan(all.body.data.length); // some racks have no purpose

    expect(await listIds(`filter[purpose_id]=${rack96}`)).toEqual(all96);
    expect(await listIds(`filter[purpose_id]=${rack48}`)).toEqual(ids.p48);
    expect(await listIds(`filter[purpose_id]=${rack48},${rack96}`)).toEqual([...all48, ...all96].sort((a, b) => Number(a) - Number(b)));
    expect(await listIds(`filter[purpose_name]=Tube Rack 48`)).toEqual(ids.p48);
    expect(await listIds(`filter[purpose_name]=${encodeURIComponent('Tube Rack 96')}`)).toEqual(all96);
    expect(await listIds(`filter[purpose_name]=tube rack 48`)).toEqual(ids.p48);
    expect(await listIds(`filter[purpose_name]=Tube Rack 48,Tube Rack 96`)).toEqual([...all48, ...all96].sort((a, b) => Number(a) - Number(b)));
    expect(await listIds(`filter[purpose_name]=Stock Plate`)).toEqual([]);
    expect(await listIds(`filter[purpose_id]=${stockPlate}`)).toEqual([]);
    expect(await listIds(`filter[purpose_id]=${rack48}&filter[uuid]=${target.attributes.uuid}`)).toEqual([]);
    expect(await listIds(`filter[purpose_id]=${rack96}&filter[uuid]=${target.attributes.uuid}`)).toEqual([target.id]);
  });

  it('refuses other filters (400 with source.parameter)', async () => {
    const res = await call('GET', '/api/v2/tube_racks?filter[name]=target');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'filter_not_allowed', source: { parameter: 'filter[name]' } });
  });
});

describe('relationships', () => {
  let tubes: Tube[];
  let rack: any;

  beforeAll(async () => {
    tubes = await createTubes(3);
    rack = await createRack(
      { size: 96, name: 'rels', tube_locations: locations({ B2: tubes[0]!, A1: tubes[1]!, H12: tubes[2]! }) },
      { purpose: rel('tube_rack_purposes', rack96) },
    );
  });

  it('GET /tube_racks/{id}/racked_tubes and /relationships/racked_tubes', async () => {
    const related = await call('GET', `/api/v2/tube_racks/${rack.id}/racked_tubes`);
    expect(related.status).toBe(200);
    expect(related.body.meta.record_count).toBe(3);
    expect(related.body.data.map((r: any) => [r.id, r.attributes.coordinate])).toEqual([
      [rackedId(rack.id, 'A1'), 'A1'],
      [rackedId(rack.id, 'B2'), 'B2'],
      [rackedId(rack.id, 'H12'), 'H12'],
    ]);
    const first = related.body.data[0];
    expect(first.type).toBe('racked_tubes');
    expect(first.links.self).toBe(`${BASE}/racked_tubes/${first.id}`);
    expect(first.relationships.tube.links.related).toBe(`${BASE}/racked_tubes/${first.id}/tube`);

    const linkage = await call('GET', `/api/v2/tube_racks/${rack.id}/relationships/racked_tubes`);
    expect(linkage.status).toBe(200);
    expect(linkage.body.data.map((r: any) => r.id).sort()).toEqual(related.body.data.map((r: any) => r.id).sort());
    expect(linkage.body.links).toEqual({
      self: `${BASE}/tube_racks/${rack.id}/relationships/racked_tubes`,
      related: `${BASE}/tube_racks/${rack.id}/racked_tubes`,
    });
  });

  it('GET /racked_tubes/{id}, its tube and its rack; an empty position is 404', async () => {
    const id = rackedId(rack.id, 'B2');
    const res = await call('GET', `/api/v2/racked_tubes/${id}?include=tube,tube_rack`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'racked_tubes', id, attributes: { coordinate: 'B2' } });
    expect(res.body.data.relationships.tube.data).toEqual({ type: 'tubes', id: tubes[0]!.id });
    expect(res.body.data.relationships.tube_rack.data).toEqual({ type: 'tube_racks', id: rack.id });
    expect(res.body.included.map((r: any) => `${r.type}:${r.id}`).sort()).toEqual([`tube_racks:${rack.id}`, `tubes:${tubes[0]!.id}`].sort());
    expect((await call('GET', `/api/v2/racked_tubes/${id}/tube`)).body.data).toMatchObject({ type: 'tubes', id: tubes[0]!.id });
    expect((await call('GET', `/api/v2/racked_tubes/${id}/tube_rack`)).body.data).toMatchObject({ type: 'tube_racks', id: rack.id });
    expect((await call('GET', `/api/v2/racked_tubes/${rackedId(rack.id, 'C3')}`)).status).toBe(404);
    // A tube's receptacle id is not a racked tube.
    expect((await call('GET', `/api/v2/racked_tubes/${Number(tubes[0]!.id) * 1000 + 1}`)).status).toBe(404);
  });

  it('GET /tubes/{id}/racked_tube and /tubes/{id}/tube_rack; null for a tube in no rack', async () => {
    const res = await call('GET', `/api/v2/tubes/${tubes[2]!.id}?include=racked_tube,tube_rack`);
    expect(res.status).toBe(200);
    expect(res.body.data.relationships.racked_tube.data).toEqual({ type: 'racked_tubes', id: rackedId(rack.id, 'H12') });
    expect(res.body.data.relationships.tube_rack.data).toEqual({ type: 'tube_racks', id: rack.id });
    const [loose] = await createTubes(1);
    const free = await call('GET', `/api/v2/tubes/${loose!.id}?include=racked_tube,tube_rack`);
    expect(free.body.data.relationships.racked_tube.data).toBeNull();
    expect(free.body.data.relationships.tube_rack.data).toBeNull();
    expect((await call('GET', `/api/v2/tubes/${loose!.id}/racked_tube`)).body.data).toBeNull();
  });

  it('tube_receptacles: the receptacles of the racked tubes', async () => {
    const res = await call('GET', `/api/v2/tube_racks/${rack.id}/tube_receptacles`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: any) => `${r.type}:${r.id}`).sort()).toEqual(tubes.map((t) => `receptacles:${Number(t.id) * 1000 + 1}`).sort());
    const viaInclude = await getRack(rack.id, '?include=tube_receptacles');
    expect(viaInclude.data.relationships.tube_receptacles.data).toHaveLength(3);
    expect(viaInclude.included.every((r: any) => r.type === 'receptacles')).toBe(true);
  });

  it('purpose, and racks reached through /labware render as tube_racks', async () => {
    const res = await getRack(rack.id, '?include=purpose');
    expect(res.data.relationships.purpose.data).toEqual({ type: 'tube_rack_purposes', id: rack96 });
    expect(res.included).toEqual([expect.objectContaining({ type: 'tube_rack_purposes', id: rack96 })]);
    const labware = await call(
      'GET',
      `/api/v2/labware?filter[barcode]=${rack.attributes.labware_barcode.ean13_barcode}&fields[tube_racks]=uuid,labware_barcode,purpose`,
    );
    expect(labware.status).toBe(200);
    expect(labware.body.data).toHaveLength(1);
    expect(labware.body.data[0]).toMatchObject({
      type: 'tube_racks',
      id: rack.id,
      attributes: { uuid: rack.attributes.uuid, labware_barcode: rack.attributes.labware_barcode },
    });
    expect(Object.keys(labware.body.data[0].attributes).sort()).toEqual(['labware_barcode', 'uuid']);
  });
});

describe('compound documents of real clients (client-usage.md §1.4, W12)', () => {
  let tubes: Tube[];
  let rack: any;
  let sample: any;
  let aliquot: any;

  beforeAll(async () => {
    tubes = await createTubes(2);
    rack = await createRack(
      { size: 96, name: 'clients', tube_locations: locations({ A1: tubes[0]!, B1: tubes[1]! }) },
      { purpose: rel('tube_rack_purposes', rack96) },
    );
    sample = await createSample();
    aliquot = await addAliquot({ type: 'receptacles', id: String(Number(tubes[0]!.id) * 1000 + 1) }, sample.id, { study: studyA });
  });

  const keys = (resources: any[]) => resources.map((r) => `${r.type}:${r.id}`).sort();

  it("limber's presenter include: purpose,racked_tubes.tube.purpose,racked_tubes.tube.receptacle.aliquots", async () => {
    const res = await call(
      'GET',
      `/api/v2/tube_racks?filter[uuid]=${rack.attributes.uuid}&include=purpose,racked_tubes.tube.purpose,racked_tubes.tube.receptacle.aliquots`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toHaveLength(1);
    const data = res.body.data[0];
    expect(data.relationships.purpose.data).toEqual({ type: 'tube_rack_purposes', id: rack96 });
    expect(data.relationships.racked_tubes.data.map((l: any) => l.id).sort()).toEqual([rackedId(rack.id, 'A1'), rackedId(rack.id, 'B1')].sort());
    const included = res.body.included as any[];
    const receptacle0 = String(Number(tubes[0]!.id) * 1000 + 1);
    const receptacle1 = String(Number(tubes[1]!.id) * 1000 + 1);
    expect(keys(included)).toEqual(
      [
        `tube_rack_purposes:${rack96}`,
        `racked_tubes:${rackedId(rack.id, 'A1')}`,
        `racked_tubes:${rackedId(rack.id, 'B1')}`,
        `tubes:${tubes[0]!.id}`,
        `tubes:${tubes[1]!.id}`,
        // A tube's purpose is typed `purposes`, as the reference's (contract §7.4); Limber has that class.
        `purposes:${stockTube}`,
        `receptacles:${receptacle0}`,
        `receptacles:${receptacle1}`,
        `aliquots:${aliquot.id}`,
      ].sort(),
    );
    // Each resource once, with the linkage of the path that reached it.
    expect(new Set(keys(included)).size).toBe(included.length);
    const find = (type: string, id: string) => included.find((r) => r.type === type && r.id === id);
    expect(find('racked_tubes', rackedId(rack.id, 'A1')).relationships.tube.data).toEqual({ type: 'tubes', id: tubes[0]!.id });
    expect(find('tubes', tubes[0]!.id).relationships.purpose.data).toEqual({ type: 'purposes', id: stockTube });
    expect(find('tubes', tubes[0]!.id).relationships.receptacle.data).toEqual({ type: 'receptacles', id: receptacle0 });
    expect(find('receptacles', receptacle0).relationships.aliquots.data).toEqual([{ type: 'aliquots', id: aliquot.id }]);
    expect(find('receptacles', receptacle1).relationships.aliquots.data).toEqual([]);
    // Relationships not on an included path carry no data.
    expect(find('tubes', tubes[0]!.id).relationships.aliquots.data).toBeUndefined();
    expect(find('aliquots', aliquot.id).relationships.sample.data).toBeUndefined();
  });

  it("samples_extraction's include: racked_tubes.tube.aliquots.sample.sample_metadata,racked_tubes.tube.aliquots.study,purpose (by barcode)", async () => {
    const barcode = rack.attributes.labware_barcode.human_barcode;
    const res = await call(
      'GET',
      `/api/v2/tube_racks?filter[barcode]=${barcode}&include=racked_tubes.tube.aliquots.sample.sample_metadata,racked_tubes.tube.aliquots.study,purpose`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((r: any) => r.id)).toEqual([rack.id]);
    const included = res.body.included as any[];
    const metadataId = sample.relationships.sample_metadata.data?.id ?? (await call('GET', `/api/v2/samples/${sample.id}/sample_metadata`)).body.data.id;
    expect(keys(included)).toEqual(
      [
        `tube_rack_purposes:${rack96}`,
        `racked_tubes:${rackedId(rack.id, 'A1')}`,
        `racked_tubes:${rackedId(rack.id, 'B1')}`,
        `tubes:${tubes[0]!.id}`,
        `tubes:${tubes[1]!.id}`,
        `aliquots:${aliquot.id}`,
        `samples:${sample.id}`,
        `sample_metadata:${metadataId}`,
        `studies:${studyA}`,
      ].sort(),
    );
    const find = (type: string, id: string) => included.find((r) => r.type === type && r.id === id);
    expect(find('tubes', tubes[0]!.id).relationships.aliquots.data).toEqual([{ type: 'aliquots', id: aliquot.id }]);
    expect(find('tubes', tubes[1]!.id).relationships.aliquots.data).toEqual([]);
    expect(find('aliquots', aliquot.id).relationships.sample.data).toEqual({ type: 'samples', id: sample.id });
    expect(find('aliquots', aliquot.id).relationships.study.data).toEqual({ type: 'studies', id: studyA });
    expect(find('samples', sample.id).relationships.sample_metadata.data).toEqual({ type: 'sample_metadata', id: metadataId });
    expect(find('samples', sample.id).attributes.name).toBe(sample.attributes.name);
  });

  it('limber default: include=purpose,racked_tubes,racked_tubes.tube with filter[uuid][]', async () => {
    const res = await call('GET', `/api/v2/tube_racks?filter[uuid][]=${rack.attributes.uuid}&include=purpose,racked_tubes,racked_tubes.tube`);
    expect(res.status).toBe(200);
    expect(keys(res.body.included)).toEqual(
      [
        `tube_rack_purposes:${rack96}`,
        `racked_tubes:${rackedId(rack.id, 'A1')}`,
        `racked_tubes:${rackedId(rack.id, 'B1')}`,
        `tubes:${tubes[0]!.id}`,
        `tubes:${tubes[1]!.id}`,
      ].sort(),
    );
  });

  it('the racked tube of a sample-holding tube keeps its id after the rack is resized', async () => {
    const before = await call('GET', `/api/v2/tubes/${tubes[0]!.id}/racked_tube`);
    expect((await patchRack(rack.id, { size: 48 })).status).toBe(200);
    const after = await call('GET', `/api/v2/tubes/${tubes[0]!.id}/racked_tube`);
    expect(after.body.data.id).toBe(before.body.data.id);
    expect(after.body.data.id).toBe(rackedId(rack.id, 'A1'));
    expect((await getRack(rack.id, '?include=racked_tubes')).data.relationships.racked_tubes.data.map((l: any) => l.id).sort()).toEqual(
      [rackedId(rack.id, 'A1'), rackedId(rack.id, 'B1')].sort(),
    );
  });
});
