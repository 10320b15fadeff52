import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { aliquotDoc, createPlate as newPlate, createSample, createTube as newTube, rel, type Linkage } from '../support/fixtures.ts';
import { expectError, idsOf, pathOf, typedIdsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { refused as refusedWrite, requestItems, type RequestItem } from '../support/table.ts';

/** The relationships every receptacle has (wells add their plate and poly metadata, a tube's its labware). */
const RECEPTACLE_RELATIONSHIPS = [
  'aliquots',
  'downstream_assets',
  'downstream_plates',
  'downstream_tubes',
  'downstream_wells',
  'qc_results',
  'requests_as_source',
  'requests_as_target',
  'transfer_requests_as_source',
  'transfer_requests_as_target',
  'upstream_assets',
  'upstream_plates',
  'upstream_tubes',
  'upstream_wells',
];

/**
 * The receptacle level (contract §3): wells and tube receptacles as records derived from their labware
 * (ids labware id × 1000 + slot, uuids the labware's with the slot in the last four hex digits), aliquots
 * put into them with POST (contract §2 "Tag clash"), the lists of all three with their counts and cursor
 * paging, and the events a POSTed aliquot writes to the outbox. Rejected writes are checked to change
 * nothing in the table.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';

// ---------------------------------------------------------------------------------------------------------
// Helpers

/** An aliquot POST that must be refused: checks that it wrote nothing at all. */
const refused = (body: unknown) => refusedWrite('POST', '/api/v2/aliquots', body);

const wellId = (plate: any, slot: number) => String(Number(plate.id) * 1000 + slot);
const receptacleId = (tube: any) => String(Number(tube.id) * 1000 + 1);
const slotUuid = (labware: any, slot: number) => `${labware.attributes.uuid.slice(0, 32)}${slot.toString(16).padStart(4, '0')}`;

let study: string;

/** Everything this file created, to compute the expected lists. */
const plates: any[] = [];
const tubes: any[] = [];
const aliquots: any[] = [];

beforeAll(async () => {
  study = await idOf('studies', 'name', 'Study A');
});

/** A plate (of a purpose, by name), kept in `plates`. */
async function createPlate(purpose?: string): Promise<any> {
  const plate = await newPlate(purpose);
  plates.push(plate);
  return plate;
}

/** A Stock Tube, kept in `tubes`. */
async function createTube(): Promise<any> {
  const tube = await newTube();
  tubes.push(tube);
  return tube;
}

/** Puts a sample into a receptacle, keeping the aliquot in `aliquots`; the whole response, for its headers. */
async function addAliquot(receptacle: Linkage, sample: string, extra: { study?: string; library_type?: string } = {}): Promise<CallResult> {
  const res = await call('POST', '/api/v2/aliquots', { body: aliquotDoc(receptacle, sample, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  aliquots.push(res.body.data);
  return res;
}

/** Request items (outbox) written while `action` ran. */
async function requestsOf(action: () => Promise<unknown>): Promise<RequestItem[]> {
  const before = new Set((await requestItems()).map((item) => item.key));
  await action();
  return (await requestItems()).filter((item) => !before.has(item.key));
}

// ---------------------------------------------------------------------------------------------------------

describe('wells', () => {
  let plate: any;
  let tube: any;

  beforeAll(async () => {
    plate = await createPlate();
    tube = await createTube();
  });

  it("includes through a well's labware (wells.labware.purpose): the plate as `labware`, once, with its purpose as `purposes`", async () => {
    const res = await call('GET', `/api/v2/plates/${plate.id}?include=wells.labware.purpose`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const wells = res.body.included.filter((r: any) => r.type === 'wells');
    expect(wells).toHaveLength(96);
    for (const well of wells) expect(well.relationships.labware.data).toEqual({ type: 'labware', id: plate.id });
    const [labware, ...more] = res.body.included.filter((r: any) => r.type === 'labware');
    expect(more).toEqual([]);
    expect(labware.attributes.labware_barcode).toEqual(plate.attributes.labware_barcode);
    expect(labware.relationships.purpose.data.type).toBe('purposes');
    expect(res.body.included.filter((r: any) => r.type === 'purposes').map((r: any) => r.id)).toEqual([labware.relationships.purpose.data.id]);
  });

  it('reads a well by its derived id, with position, uuid, state and its relationships', async () => {
    const res = await call('GET', `/api/v2/wells/${wellId(plate, 1)}`);
    expect(res.status).toBe(200);
    const well = res.body.data;
    expect(well).toMatchObject({ type: 'wells', id: wellId(plate, 1), links: { self: `${BASE}/wells/${wellId(plate, 1)}` } });
    expect(well.attributes).toEqual({ uuid: slotUuid(plate, 1), position: { name: 'A1' }, state: 'pending', current_volume: null });
    expect(Object.keys(well.relationships).sort()).toEqual([...RECEPTACLE_RELATIONSHIPS, 'labware', 'plate', 'poly_metadata'].sort());
    for (const [name, relationship] of Object.entries<any>(well.relationships)) {
      expect(relationship).toEqual({ links: { self: `${BASE}/wells/${well.id}/relationships/${name}`, related: `${BASE}/wells/${well.id}/${name}` } });
    }
    expect((await call('GET', `/api/v2/wells/${wellId(plate, 9)}`)).body.data.attributes).toEqual({
      uuid: slotUuid(plate, 9),
      position: { name: 'A2' },
      state: 'pending',
      current_volume: null,
    });
    expect((await call('GET', `/api/v2/wells/${wellId(plate, 96)}`)).body.data.attributes.position).toEqual({ name: 'H12' });
    expect((await call('GET', `/api/v2/wells/${wellId(plate, 1)}/aliquots`)).body.data).toEqual([]);
    for (const name of ['requests_as_source', 'qc_results', 'poly_metadata']) {
      const empty = await call('GET', `/api/v2/wells/${wellId(plate, 1)}/${name}`);
      expect(empty.status, name).toBe(200);
      expect(empty.body.data).toEqual([]);
    }
  });

  it('answers 404 for slots a plate does not have and for a tube receptacle, 400 for malformed ids', async () => {
    expectError(await call('GET', `/api/v2/wells/${wellId(plate, 97)}`), 404, 'record_not_found');
    expectError(await call('GET', `/api/v2/wells/${wellId(plate, 0)}`), 404);
    expectError(await call('GET', `/api/v2/wells/${receptacleId(tube)}`), 404);
    expectError(await call('GET', '/api/v2/wells/999999001'), 404);
    expectError(await call('GET', '/api/v2/wells/A1'), 400, 'invalid_id');
  });

  it('leads back to its plate through /wells/{id}/plate and the relationship endpoint', async () => {
    const res = await call('GET', `/api/v2/wells/${wellId(plate, 42)}/plate`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      type: 'plates',
      id: plate.id,
      attributes: { uuid: plate.attributes.uuid, labware_barcode: plate.attributes.labware_barcode },
    });
    expect((await call('GET', `/api/v2/wells/${wellId(plate, 42)}/relationships/plate`)).body.data).toEqual({ type: 'plates', id: plate.id });
    const included = await call('GET', `/api/v2/wells/${wellId(plate, 42)}?include=plate`);
    expect(included.body.data.relationships.plate.data).toEqual({ type: 'plates', id: plate.id });
    expect(included.body.included.map((r: any) => `${r.type}/${r.id}`)).toEqual([`plates/${plate.id}`]);
  });

  it('finds a well by its uuid (any case, comma lists) on wells and receptacles, and only wells that exist', async () => {
    const uuid = slotUuid(plate, 12);
    for (const value of [uuid, uuid.toUpperCase()]) {
      const res = await call('GET', `/api/v2/wells?filter[uuid]=${value}`);
      expect(typedIdsOf(res)).toEqual([`wells/${wellId(plate, 12)}`]);
      expect(res.body.meta.record_count).toBe(1);
      expect(res.body.data[0].attributes.position).toEqual({ name: 'D2' });
    }
    expect(typedIdsOf(await call('GET', `/api/v2/receptacles?filter[uuid]=${uuid}`))).toEqual([`wells/${wellId(plate, 12)}`]);
    const two = await call('GET', `/api/v2/wells?filter[uuid]=${slotUuid(plate, 96)},${slotUuid(plate, 3)}`);
    expect(idsOf(two)).toEqual([wellId(plate, 3), wellId(plate, 96)]);
    expect(two.body.meta.record_count).toBe(2);

    // Not wells: the plate's own uuid, a tube receptacle's uuid, a slot past the plate's size, garbage.
    for (const value of [plate.attributes.uuid, slotUuid(tube, 1), slotUuid(plate, 97), slotUuid(plate, 200), 'not-a-uuid']) {
      const res = await call('GET', `/api/v2/wells?filter[uuid]=${value}`);
      expect(res.status).toBe(200);
      expect(res.body.data, value).toEqual([]);
      expect(res.body.meta.record_count, value).toBe(0);
    }
    // A slot the tube does not have is no receptacle either.
    const missing = await call('GET', `/api/v2/receptacles?filter[uuid]=${slotUuid(tube, 2)}`);
    expect(missing.body.data).toEqual([]);
    expect(missing.body.meta.record_count).toBe(0);
    expect(typedIdsOf(await call('GET', `/api/v2/receptacles?filter[uuid]=${slotUuid(tube, 1)}`))).toEqual([`receptacles/${receptacleId(tube)}`]);
  });

  it("lists a plate's wells through /plates/{id}/wells, in column order, filtered and paged in memory", async () => {
    const res = await call('GET', `/api/v2/plates/${plate.id}/wells`);
    expect(res.status).toBe(200);
    expect(res.body.meta.record_count).toBe(96);
    expect(idsOf(res)).toEqual(Array.from({ length: 96 }, (_, i) => wellId(plate, i + 1)));
    expect(res.body.data.slice(0, 10).map((w: any) => w.attributes.position.name)).toEqual(['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'G1', 'H1', 'A2', 'B2']);
    const filtered = await call('GET', `/api/v2/plates/${plate.id}/wells?filter[uuid]=${slotUuid(plate, 5)}`);
    expect(idsOf(filtered)).toEqual([wellId(plate, 5)]);
    const page = await call('GET', `/api/v2/plates/${plate.id}/wells?page[number]=2&page[size]=10&sort=-id`);
    expect(idsOf(page)).toEqual(Array.from({ length: 10 }, (_, i) => wellId(plate, 86 - i)));
    expect(page.body.links.last).toContain('page%5Bnumber%5D=10');
  });
});

describe('receptacles', () => {
  let plate: any;
  let tube: any;

  beforeAll(async () => {
    plate = await createPlate();
    tube = await createTube();
  });

  it("reads a tube's receptacle, with its relationships, and leads back to the tube", async () => {
    const res = await call('GET', `/api/v2/receptacles/${receptacleId(tube)}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'receptacles', id: receptacleId(tube), links: { self: `${BASE}/receptacles/${receptacleId(tube)}` } });
    expect(res.body.data.attributes).toEqual({ uuid: slotUuid(tube, 1), state: 'pending', current_volume: null });
    expect(Object.keys(res.body.data.relationships).sort()).toEqual([...RECEPTACLE_RELATIONSHIPS, 'labware'].sort());
    expect((await call('GET', `/api/v2/tubes/${tube.id}/receptacle`)).body.data).toEqual(res.body.data);
    const labware = await call('GET', `/api/v2/receptacles/${receptacleId(tube)}/labware`);
    // The reference's `has_one :labware` is not polymorphic: the tube is rendered as `labware`, with what every labware has (contract §7.4).
    expect(labware.body.data).toMatchObject({ type: 'labware', id: tube.id, links: { self: `${BASE}/labware/${tube.id}` } });
    expect(labware.body.data.attributes).toEqual({ ...tube.attributes, retention_instruction: null });
    expect((await call('GET', `/api/v2/receptacles/${receptacleId(tube)}/relationships/labware`)).body.data).toEqual({ type: 'labware', id: tube.id });
  });

  it('serves a well under /receptacles/{id}, rendered as wells', async () => {
    const res = await call('GET', `/api/v2/receptacles/${wellId(plate, 2)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.type).toBe('wells');
    expect(res.body.data.links.self).toBe(`${BASE}/wells/${wellId(plate, 2)}`);
    expect(res.body.data).toEqual((await call('GET', `/api/v2/wells/${wellId(plate, 2)}`)).body.data);
    expect((await call('GET', `/api/v2/receptacles/${wellId(plate, 2)}/plate`)).body.data).toMatchObject({ type: 'plates', id: plate.id });
  });

  it('answers 404 for receptacle ids that hold nothing', async () => {
    expectError(await call('GET', `/api/v2/receptacles/${wellId(plate, 97)}`), 404);
    expectError(await call('GET', `/api/v2/receptacles/${Number(tube.id) * 1000 + 2}`), 404);
    expectError(await call('GET', `/api/v2/receptacles/${tube.id}`), 404);
  });
});

describe('POST /aliquots', () => {
  let plate: any;
  let tube: any;
  let s1: any;
  let s2: any;
  let s3: any;

  beforeAll(async () => {
    plate = await createPlate();
    tube = await createTube();
    s1 = await createSample();
    s2 = await createSample();
    s3 = await createSample();
  });

  it('puts a sample into a well (linkage type wells), with study and library type: 201 aliquots', async () => {
    const res = await addAliquot({ type: 'wells', id: wellId(plate, 1) }, s1.id, { study, library_type: 'Standard' });
    const aliquot = res.body.data;
    expect(aliquot.type).toBe('aliquots');
    expect(aliquot.id).toBe(String(Number(plate.id) * 1_000_000 + 1));
    expect(res.headers.Location).toBe(`${BASE}/aliquots/${aliquot.id}`);
    expect(aliquot.links.self).toBe(`${BASE}/aliquots/${aliquot.id}`);
    expect(aliquot.attributes).toEqual({
      tag_oligo: null,
      tag_index: null,
      tag2_oligo: null,
      tag2_index: null,
      library_type: 'Standard',
      insert_size_to: null,
    });
    expect(Object.keys(aliquot.relationships).sort()).toEqual([
      'bait_library',
      'library',
      'poly_metadata',
      'project',
      'receptacle',
      'request',
      'sample',
      'study',
      'tag',
      'tag2',
    ]);

    const read = await call('GET', `/api/v2/aliquots/${aliquot.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(aliquot);
    expect((await call('GET', `/api/v2/aliquots/${aliquot.id}/sample`)).body.data).toMatchObject({ type: 'samples', id: s1.id });
    expect((await call('GET', `/api/v2/aliquots/${aliquot.id}/study`)).body.data).toMatchObject({ type: 'studies', id: study });
    expect((await call('GET', `/api/v2/aliquots/${aliquot.id}/receptacle`)).body.data).toMatchObject({
      type: 'wells',
      id: wellId(plate, 1),
      attributes: { position: { name: 'A1' } },
    });
    expect((await call('GET', `/api/v2/aliquots/${aliquot.id}/request`)).body.data).toBeNull();
  });

  it('shows the aliquot in /wells/{id}/aliquots and in include=wells.aliquots.sample of its plate', async () => {
    const aliquotId = String(Number(plate.id) * 1_000_000 + 1);
    const inWell = await call('GET', `/api/v2/wells/${wellId(plate, 1)}/aliquots`);
    expect(idsOf(inWell)).toEqual([aliquotId]);
    expect(inWell.body.meta.record_count).toBe(1);
    expect((await call('GET', `/api/v2/wells/${wellId(plate, 2)}/aliquots`)).body.data).toEqual([]);

    const res = await call('GET', `/api/v2/plates/${plate.id}?include=wells.aliquots.sample`);
    expect(res.status).toBe(200);
    expect(res.body.data.relationships.wells.data).toHaveLength(96);
    const included: any[] = res.body.included;
    const a1 = included.find((r) => r.type === 'wells' && r.id === wellId(plate, 1));
    expect(a1.relationships.aliquots.data).toEqual([{ type: 'aliquots', id: aliquotId }]);
    const aliquot = included.find((r) => r.type === 'aliquots');
    expect(aliquot).toMatchObject({ id: aliquotId, attributes: { library_type: 'Standard' } });
    expect(aliquot.relationships.sample.data).toEqual({ type: 'samples', id: s1.id });
    expect(included.filter((r) => r.type === 'samples').map((r) => r.id)).toEqual([s1.id]);
    expect(included.filter((r) => r.type === 'aliquots')).toHaveLength(1);
    expect(included).toHaveLength(96 + 1 + 1);
  });

  it('accepts the linkage type receptacles for a well (limber W9), without a study', async () => {
    const res = await addAliquot({ type: 'receptacles', id: wellId(plate, 2) }, s1.id);
    expect(res.body.data.id).toBe(String(Number(plate.id) * 1_000_000 + 2));
    expect(res.body.data.attributes.library_type).toBeNull();
    expect((await call('GET', `/api/v2/aliquots/${res.body.data.id}/study`)).body.data).toBeNull();
    expect((await call('GET', `/api/v2/aliquots/${res.body.data.id}/receptacle`)).body.data).toMatchObject({ type: 'wells', id: wellId(plate, 2) });
    expect(idsOf(await call('GET', `/api/v2/wells/${wellId(plate, 2)}/aliquots`))).toEqual([res.body.data.id]);
  });

  it("puts a sample into a tube's receptacle; it shows in /tubes/{id}/aliquots and /receptacles/{id}/aliquots", async () => {
    const res = await addAliquot({ type: 'receptacles', id: receptacleId(tube) }, s2.id, { study });
    const id = String(Number(tube.id) * 1_000_000 + 1);
    expect(res.body.data.id).toBe(id);
    expect(idsOf(await call('GET', `/api/v2/tubes/${tube.id}/aliquots`))).toEqual([id]);
    expect(idsOf(await call('GET', `/api/v2/receptacles/${receptacleId(tube)}/aliquots`))).toEqual([id]);
    expect((await call('GET', `/api/v2/aliquots/${id}/receptacle`)).body.data).toMatchObject({ type: 'receptacles', id: receptacleId(tube) });
    const included = await call('GET', `/api/v2/tubes/${tube.id}?include=receptacle.aliquots.sample`);
    expect(included.body.included.map((r: any) => `${r.type}/${r.id}`).sort()).toEqual(
      [`aliquots/${id}`, `receptacles/${receptacleId(tube)}`, `samples/${s2.id}`].sort(),
    );
  });

  it("gives a labware's aliquots consecutive ids, whatever receptacle they go into", async () => {
    const res = await addAliquot({ type: 'wells', id: wellId(plate, 96) }, s3.id);
    expect(res.body.data.id).toBe(String(Number(plate.id) * 1_000_000 + 3));
    expect((await call('GET', `/api/v2/aliquots/${res.body.data.id}/receptacle`)).body.data.attributes.position).toEqual({ name: 'H12' });
  });

  it('requires sample and receptacle (422), writing nothing', async () => {
    const noSample = await refused(aliquotDoc({ type: 'wells', id: wellId(plate, 10) }, undefined));
    expect(expectError(noSample, 422, 'required', '/data/relationships/sample').detail).toContain('sample');
    expectError(await refused(aliquotDoc(undefined, s1.id)), 422, 'required', '/data/relationships/receptacle');
    expectError(await refused(doc('aliquots', {}, { receptacle: { data: null }, sample: { data: null } })), 422, 'required', '/data/relationships/sample');
  });

  it('answers 404 at the reference for an unknown receptacle, sample or study, writing nothing', async () => {
    for (const receptacle of [
      { type: 'wells', id: wellId(plate, 97) },
      { type: 'wells', id: receptacleId(tube) },
      { type: 'receptacles', id: String(Number(tube.id) * 1000 + 2) },
      { type: 'wells', id: '999999001' },
    ]) {
      const res = await refused(aliquotDoc(receptacle, s1.id));
      expectError(res, 404, 'record_not_found', '/data/relationships/receptacle/data');
    }
    expectError(await refused(aliquotDoc({ type: 'wells', id: wellId(plate, 10) }, '999999')), 404, 'record_not_found', '/data/relationships/sample/data');
    expectError(
      await refused(aliquotDoc({ type: 'wells', id: wellId(plate, 10) }, s1.id, { study: '999999' })),
      404,
      'record_not_found',
      '/data/relationships/study/data',
    );
  });

  it('refuses linkage of the wrong type (400) and read-only attributes (400), writing nothing', async () => {
    expectError(await refused(aliquotDoc({ type: 'plates', id: plate.id }, s1.id)), 400, 'type_mismatch', '/data/relationships/receptacle/data/type');
    expectError(await refused(aliquotDoc({ type: 'tubes', id: tube.id }, s1.id)), 400, 'type_mismatch', '/data/relationships/receptacle/data/type');
    expectError(
      await refused(doc('aliquots', {}, { receptacle: rel('wells', wellId(plate, 10)), sample: rel('studies', study) })),
      400,
      'type_mismatch',
      '/data/relationships/sample/data/type',
    );
    const readOnly = await refused(
      doc('aliquots', { tag_oligo: 'ACGT', tag_index: 1 }, { receptacle: rel('wells', wellId(plate, 10)), sample: rel('samples', s1.id) }),
    );
    expectError(readOnly, 400, 'param_not_allowed', '/data/attributes/tag_oligo');
    expectError(readOnly, 400, 'param_not_allowed', '/data/attributes/tag_index');
    expectError(
      await refused(doc('aliquots', {}, { receptacle: rel('wells', wellId(plate, 10)), sample: rel('samples', s1.id), request: rel('requests', 1) })),
      400,
      'param_not_allowed',
      '/data/relationships/request',
    );
    expectError(
      await refused(aliquotDoc({ type: 'wells', id: wellId(plate, 10) }, s1.id, { library_type: '' })),
      422,
      'invalid_value',
      '/data/attributes/library_type',
    );
  });

  it('refuses the same sample again in the same well (422), writing nothing', async () => {
    const res = await refused(aliquotDoc({ type: 'wells', id: wellId(plate, 1) }, s1.id));
    const error = expectError(res, 422, 'invalid_value', '/data/relationships/sample');
    expect(error.detail).toContain(`sample ${s1.id}`);
    // Also when the well is named through the receptacles type, and with a study.
    expectError(await refused(aliquotDoc({ type: 'receptacles', id: wellId(plate, 1) }, s1.id, { study })), 422, 'invalid_value', '/data/relationships/sample');
    expect(idsOf(await call('GET', `/api/v2/wells/${wellId(plate, 1)}/aliquots`))).toEqual([String(Number(plate.id) * 1_000_000 + 1)]);
  });

  it('refuses a different untagged sample in an occupied receptacle: a tag clash (422), writing nothing', async () => {
    const res = await refused(aliquotDoc({ type: 'wells', id: wellId(plate, 1) }, s2.id));
    const error = expectError(res, 422, 'invalid_value', '/data/relationships/sample');
    expect(error.detail).toMatch(/tag clash/i);
    expect(error.detail).toContain(`sample ${s1.id}`);
    expectError(await refused(aliquotDoc({ type: 'receptacles', id: receptacleId(tube) }, s3.id)), 422, 'invalid_value', '/data/relationships/sample');
    expect(idsOf(await call('GET', `/api/v2/tubes/${tube.id}/aliquots`))).toEqual([String(Number(tube.id) * 1_000_000 + 1)]);
  });

  it('loses no update when aliquots go into one plate concurrently, and lets only one of two clashing samples in', async () => {
    const target = await createPlate();
    const post = (slot: number, sample: string) => call('POST', '/api/v2/aliquots', { body: aliquotDoc({ type: 'wells', id: wellId(target, slot) }, sample) });
    const spread = await Promise.all([post(1, s1.id), post(2, s2.id), post(3, s3.id)]);
    expect(spread.map((r) => r.status)).toEqual([201, 201, 201]);
    aliquots.push(...spread.map((r) => r.body.data));
    expect(spread.map((r) => Number(r.body.data.id)).sort()).toEqual([1, 2, 3].map((n) => Number(target.id) * 1_000_000 + n));
    for (const [i, res] of spread.entries()) {
      expect(idsOf(await call('GET', `/api/v2/wells/${wellId(target, i + 1)}/aliquots`))).toEqual([res.body.data.id]);
    }

    const clash = await Promise.all([post(4, s1.id), post(4, s2.id)]);
    expect(clash.map((r) => r.status).sort()).toEqual([201, 422]);
    const winner = clash.find((r) => r.status === 201)!;
    aliquots.push(winner.body.data);
    expect(idsOf(await call('GET', `/api/v2/wells/${wellId(target, 4)}/aliquots`))).toEqual([winner.body.data.id]);
  });

  it('puts the same sample into different wells and labware', async () => {
    const other = await createPlate();
    await addAliquot({ type: 'wells', id: wellId(other, 1) }, s1.id);
    await addAliquot({ type: 'wells', id: wellId(plate, 3) }, s1.id);
    expect((await call('GET', `/api/v2/wells/${wellId(other, 1)}/aliquots`)).body.data[0].relationships.sample).toBeDefined();
  });
});

describe('outbox', () => {
  let plate: any;
  let tube: any;
  let sample: any;

  beforeAll(async () => {
    plate = await createPlate();
    tube = await createTube();
    sample = await createSample();
  });

  it('writes one request item with aliquots.created and plates.updated for an aliquot put into a well', async () => {
    let res: CallResult | undefined;
    const requests = await requestsOf(async () => {
      res = await addAliquot({ type: 'wells', id: wellId(plate, 5) }, sample.id, { study });
    });
    expect(requests).toHaveLength(1);
    const events = requests[0]!.events;
    expect(events.map((e) => e.type).sort()).toEqual(['aliquots.created', 'plates.updated']);
    const created = events.find((e) => e.type === 'aliquots.created')!;
    // The aliquot lives in the plate's item: it carries the plate's version after the write.
    expect(created.resource).toEqual({ type: 'aliquots', id: res!.body.data.id, uuid: null, version: 2 });
    expect(created.data).toMatchObject({ type: 'aliquots', id: res!.body.data.id, attributes: res!.body.data.attributes });
    const updated = events.find((e) => e.type === 'plates.updated')!;
    expect(updated.resource).toEqual({ type: 'plates', id: plate.id, uuid: plate.attributes.uuid, version: 2 });
    expect(updated.data).toMatchObject({ type: 'plates', id: plate.id, attributes: { labware_barcode: plate.attributes.labware_barcode } });
  });

  it('writes aliquots.created and tubes.updated for an aliquot put into a tube', async () => {
    const requests = await requestsOf(() => addAliquot({ type: 'receptacles', id: receptacleId(tube) }, sample.id));
    expect(requests).toHaveLength(1);
    expect(requests[0]!.events.map((e) => e.type).sort()).toEqual(['aliquots.created', 'tubes.updated']);
    expect(requests[0]!.events.find((e) => e.type === 'tubes.updated')!.resource).toEqual({
      type: 'tubes',
      id: tube.id,
      uuid: tube.attributes.uuid,
      version: 2,
    });
  });

  it('writes no request item for a refused aliquot', async () => {
    const requests = await requestsOf(async () => {
      const res = await call('POST', '/api/v2/aliquots', { body: aliquotDoc({ type: 'wells', id: wellId(plate, 5) }, sample.id) });
      expect(res.status).toBe(422);
    });
    expect(requests).toEqual([]);
  });
});

describe('lists: /aliquots, /wells, /receptacles', () => {
  beforeAll(async () => {
    // A 384-well plate and one more tube, so the lists cross several parents of each kind.
    await createPlate('Stock Plate 384');
    await createTube();
  });

  const wellCount = () => plates.reduce((n, p) => n + Number(p.attributes.size), 0);

  /** Follows `links.next` from `first` to the end; returns every record's type/id and the number of pages. */
  async function walk(first: string): Promise<{ seen: string[]; pages: number; counts: number[] }> {
    const seen: string[] = [];
    const counts: number[] = [];
    let res = await call('GET', first);
    let pages = 0;
    for (;;) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages += 1;
      counts.push(res.body.meta.record_count);
      seen.push(...typedIdsOf(res));
      if (!res.body.links.next) break;
      expect(pages).toBeLessThan(200);
      res = await call('GET', pathOf(res.body.links.next));
    }
    return { seen, pages, counts };
  }

  it('counts and lists every aliquot created in this file, in id order', async () => {
    const res = await call('GET', '/api/v2/aliquots?page[size]=500');
    expect(res.status).toBe(200);
    const expected = aliquots
      .map((a) => Number(a.id))
      .sort((a, b) => a - b)
      .map(String);
    expect(res.body.meta.record_count).toBe(aliquots.length);
    expect(idsOf(res)).toEqual(expected);
    expect(expected.length).toBeGreaterThanOrEqual(8);

    const { seen, pages, counts } = await walk('/api/v2/aliquots?page[size]=3');
    expect(seen).toEqual(expected.map((id) => `aliquots/${id}`));
    expect(pages).toBe(Math.ceil(expected.length / 3));
    expect(new Set(counts)).toEqual(new Set([aliquots.length]));
  });

  it('counts and lists every well of every plate, and walks them once each', async () => {
    const expected = plates.flatMap((p) => Array.from({ length: Number(p.attributes.size) }, (_, i) => `wells/${wellId(p, i + 1)}`));
    const first = await call('GET', '/api/v2/wells?page[size]=50');
    expect(first.status).toBe(200);
    expect(first.body.meta.record_count).toBe(wellCount());
    expect(first.body.links.last).toContain(`page%5Bnumber%5D=${Math.ceil(wellCount() / 50)}`);
    const { seen, pages } = await walk('/api/v2/wells?page[size]=50');
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(expected.length / 50));
    // A bare page number reaches the same records as the cursor.
    const third = await call('GET', '/api/v2/wells?page[number]=3&page[size]=50');
    expect(typedIdsOf(third)).toEqual(expected.slice(100, 150));
  });

  it("walks wells by update time (their plate's), each once, through links.next", async () => {
    const current = await Promise.all(plates.map(async (p) => (await call('GET', `/api/v2/plates/${p.id}`)).body.data));
    const order = [...current].sort((a, b) =>
      a.attributes.updated_at === b.attributes.updated_at ? Number(a.id) - Number(b.id) : a.attributes.updated_at < b.attributes.updated_at ? -1 : 1,
    );
    // Aliquots were added to some plates after later plates were created, so this is not id order.
    expect(order.map((p) => p.id)).not.toEqual(current.map((p) => p.id));
    const expected = order.flatMap((p) => Array.from({ length: Number(p.attributes.size) }, (_, i) => `wells/${wellId(p, i + 1)}`));
    const ascending = await walk('/api/v2/wells?sort=updated_at&page[size]=70');
    expect(ascending.seen).toEqual(expected);
    const descending = await walk('/api/v2/wells?sort=-updated_at&page[size]=70');
    expect(descending.seen).toEqual([...expected].reverse());
  });

  it('counts and lists receptacles: every well and every tube receptacle, in id order', async () => {
    const expected = [
      ...plates.flatMap((p) =>
        Array.from({ length: Number(p.attributes.size) }, (_, i) => ({ key: `wells/${wellId(p, i + 1)}`, id: Number(wellId(p, i + 1)) })),
      ),
      ...tubes.map((t) => ({ key: `receptacles/${receptacleId(t)}`, id: Number(receptacleId(t)) })),
    ]
      .sort((a, b) => a.id - b.id)
      .map((r) => r.key);
    const first = await call('GET', '/api/v2/receptacles?page[size]=1');
    expect(first.body.meta.record_count).toBe(wellCount() + tubes.length);
    const { seen, pages } = await walk('/api/v2/receptacles?page[size]=64');
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 64));

    const descending = await walk('/api/v2/receptacles?page[size]=100&sort=-id');
    expect(descending.seen).toEqual([...expected].reverse());
  });
});
