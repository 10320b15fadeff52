import { beforeAll, describe, expect, it } from 'vitest';
import { decodeBarcode, encodeBarcode } from '#lib/domain/barcode.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import { registry } from '#lib/resources/index.ts';
import { parentsOf } from '#lib/operations/labware-records.ts';
import { getRecords, type Ref } from '#lib/store/records.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { call, doc, idOf, warmKeyCache } from '../support/api.ts';
import { addAliquot, create, createPlate, createRack, createTube, purposeId, rel } from '../support/fixtures.ts';
import { columnOrder, barcodeNumber, sanger } from '../support/oracles.ts';
import { expectError, idsOf, pathOf, typedIdsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { refused } from '../support/table.ts';

/**
 * Labware through the API (issue 3; contract §3, reference-behaviour.md §5): POST plates and tubes with
 * their receptacles and barcodes (generated in the Sanger format, or external), the barcode, uuid and
 * purpose filters on `labware`, `plates` and `tubes`, the polymorphic `labware` type, the traction-ui and
 * limber lookups, and the family links (parents, children, ancestors, descendants). Every rejected write
 * is checked to leave the table exactly as it was.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

// ---------------------------------------------------------------------------------------------------------
// Helpers

const purposes: Record<string, string> = {};

beforeAll(async () => {
  for (const name of ['Stock Plate', 'Stock Plate 384', 'Working Dilution', 'Library Plate', 'Tag Plate'])
    purposes[name] = await purposeId('plate_purposes', name);
  for (const name of ['Stock Tube', 'Library Tube', 'MX Tube']) purposes[name] = await purposeId('tube_purposes', name);
  for (const name of ['Tube Rack 96', 'Tube Rack 48']) purposes[name] = await purposeId('tube_rack_purposes', name);
});

/** A sample of a name, with its metadata's sample_common_name set when given. */
async function createSample(name: string, commonName?: string): Promise<any> {
  const sample = await create('samples', { name });
  if (commonName) {
    const metadata = (await call('GET', `/api/v2/samples/${sample.id}/sample_metadata`)).body.data;
    const patched = await call('PATCH', `/api/v2/sample_metadata/${metadata.id}`, {
      body: doc('sample_metadata', { sample_common_name: commonName }, undefined, metadata.id),
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  }
  return sample;
}

/**
 * Links labware as parent → child directly in the store (no API makes children yet), as a write that makes
 * a child does: each child records its parents (lib/domain/lineage.ts); the parents are not written.
 */
async function link(pairs: [Ref, Ref][]): Promise<void> {
  const childIds = [...new Set(pairs.map(([, child]) => child.id))];
  const records = await getRecords(childIds.map((id) => ({ family: 'labware', id })));
  const uow = new UnitOfWork(registry, new Date().toISOString());
  for (const id of childIds) {
    const child = records.get(`labware:${id}`)!;
    const linked = linkParents(
      child,
      parentsOf(child),
      pairs.filter(([, c]) => c.id === id).map(([parent]) => parent),
    );
    if (!linked.ok) throw new Error(JSON.stringify(linked.problems));
    uow.update(child, { rels: { parents: linked.value } });
  }
  await uow.commit();
}

const refOf = (resource: any): Ref => ({ type: resource.type, id: Number(resource.id) });

// ---------------------------------------------------------------------------------------------------------

describe('barcode format (the test oracle)', () => {
  it('reproduces the reference example DN12345U ↔ 1220012345855 and agrees with lib/domain/barcode.ts', () => {
    expect(sanger('DN', 12345)).toEqual({ human: 'DN12345U', machine: '1220012345855' });
    for (const [prefix, n] of [
      ['DN', 1],
      ['NT', 2],
      ['TR', 3],
      ['DN', 9_999_999],
      ['NT', 4711],
    ] as const) {
      const encoded = encodeBarcode(prefix, n);
      expect({ human: encoded.human_barcode, machine: encoded.machine_barcode }).toEqual(sanger(prefix, n));
      expect(encoded.ean13_barcode).toBe(encoded.machine_barcode);
    }
  });
});

describe('POST /plates', () => {
  it('creates a 96-well plate with a generated DN barcode and renders every attribute', async () => {
    const res = await call('POST', '/api/v2/plates', { body: doc('plates', {}, { purpose: rel('plate_purposes', purposes['Stock Plate']!) }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const plate = res.body.data;
    expect(plate.type).toBe('plates');
    expect(plate.id).toMatch(/^[1-9]\d*$/);
    expect(res.headers.Location).toBe(`${BASE}/plates/${plate.id}`);
    expect(plate.links.self).toBe(`${BASE}/plates/${plate.id}`);
    // Barcode numbers come from their own sequence: the generated barcode is the Sanger barcode of its number.
    const { human, machine } = sanger('DN', barcodeNumber('DN', plate.attributes.labware_barcode.human_barcode));
    expect(plate.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      name: null,
      labware_barcode: { ean13_barcode: machine, machine_barcode: machine, human_barcode: human },
      state: 'pending',
      created_at: expect.stringMatching(ISO_TIME),
      updated_at: plate.attributes.created_at,
      size: 96,
      number_of_rows: 8,
      number_of_columns: 12,
      retention_instruction: null,
    });
    expect(human).toMatch(new RegExp(`^DN${plate.id}[A-W]$`));
    expect(machine).toMatch(/^\d{13}$/);
    expect(decodeBarcode(machine)?.human_barcode).toBe(human);
    expect(Object.keys(plate.relationships).sort()).toEqual(
      [
        'ancestors',
        'child_plates',
        'children',
        'comments',
        'custom_metadatum_collection',
        'descendants',
        'direct_submissions',
        'parents',
        'poly_metadata',
        'purpose',
        'qc_files',
        'qc_results',
        'receptacles',
        'samples',
        'state_changes',
        'submission_pools',
        'transfers_as_destination',
        'wells',
      ].sort(),
    );
    for (const [name, relationship] of Object.entries<any>(plate.relationships)) {
      expect(relationship).toEqual({ links: { self: `${BASE}/plates/${plate.id}/relationships/${name}`, related: `${BASE}/plates/${plate.id}/${name}` } });
    }

    const read = await call('GET', `/api/v2/plates/${plate.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(plate);
    const purpose = await call('GET', `/api/v2/plates/${plate.id}/purpose`);
    // A labware's purpose links as `purposes` (the reference's class_name: 'Purpose', contract §7.4), with the reference's PurposeResource attributes.
    expect(purpose.body.data).toMatchObject({ type: 'purposes', id: purposes['Stock Plate'], attributes: { name: 'Stock Plate', size: 96, lifespan: null } });
    expect((await call('GET', `/api/v2/plates/${plate.id}/relationships/purpose`)).body.data).toEqual({ type: 'purposes', id: purposes['Stock Plate'] });
  });

  it('creates one well per position of a 96 purpose, in column order A1, B1, …, H12, with derived ids and uuids', async () => {
    const plate = await createPlate('Stock Plate');
    const res = await call('GET', `/api/v2/plates/${plate.id}/wells`);
    expect(res.status).toBe(200);
    expect(res.body.meta.record_count).toBe(96);
    const wells = res.body.data;
    expect(wells.map((w: any) => w.attributes.position.name)).toEqual(columnOrder(8, 12));
    expect(wells[0].attributes.position.name).toBe('A1');
    expect(wells[1].attributes.position.name).toBe('B1');
    expect(wells[8].attributes.position.name).toBe('A2');
    expect(wells[95].attributes.position.name).toBe('H12');
    expect(wells.map((w: any) => w.id)).toEqual(Array.from({ length: 96 }, (_, i) => String(Number(plate.id) * 1000 + i + 1)));
    expect(wells.every((w: any) => w.type === 'wells' && w.attributes.state === 'pending')).toBe(true);
    const prefix = plate.attributes.uuid.slice(0, 32);
    expect(wells.map((w: any) => w.attributes.uuid)).toEqual(Array.from({ length: 96 }, (_, i) => `${prefix}${(i + 1).toString(16).padStart(4, '0')}`));
    // `receptacles` of a plate are its wells.
    const receptacles = await call('GET', `/api/v2/plates/${plate.id}/receptacles`);
    expect(typedIdsOf(receptacles)).toEqual(wells.map((w: any) => `wells/${w.id}`));
  });

  it('creates 384 wells (16 × 24, A1 … P24 in column order) for a 384 purpose', async () => {
    const plate = await createPlate('Stock Plate 384');
    expect(plate.attributes).toMatchObject({ size: 384, number_of_rows: 16, number_of_columns: 24 });
    const res = await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=500`);
    expect(res.status).toBe(200);
    expect(res.body.meta.record_count).toBe(384);
    const names = res.body.data.map((w: any) => w.attributes.position.name);
    expect(names).toEqual(columnOrder(16, 24));
    expect(names.slice(0, 17)).toEqual(['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'G1', 'H1', 'I1', 'J1', 'K1', 'L1', 'M1', 'N1', 'O1', 'P1', 'A2']);
    expect(names.at(-1)).toBe('P24');
    expect(new Set(names).size).toBe(384);
    const last = await call('GET', `/api/v2/wells/${Number(plate.id) * 1000 + 384}`);
    expect(last.body.data.attributes.position).toEqual({ name: 'P24' });
    expect((await call('GET', `/api/v2/wells/${Number(plate.id) * 1000 + 385}`)).status).toBe(404);
  });

  it('gives consecutive plates consecutive ids and barcode numbers', async () => {
    const a = await createPlate();
    const b = await createPlate();
    expect(Number(b.id)).toBe(Number(a.id) + 1);
    const numberOf = (plate: any) => barcodeNumber('DN', plate.attributes.labware_barcode.human_barcode);
    expect(numberOf(b)).toBe(numberOf(a) + 1);
    expect(b.attributes.labware_barcode.human_barcode).toBe(sanger('DN', numberOf(b)).human);
    expect(b.attributes.uuid).not.toBe(a.attributes.uuid);
  });

  it('requires a purpose (422) and writes nothing', async () => {
    const res = await refused('POST', '/api/v2/plates', doc('plates', {}));
    const error = expectError(res, 422, 'required', '/data/relationships/purpose');
    expect(error.detail).toContain('purpose');
    expectError(await refused('POST', '/api/v2/plates', doc('plates', {}, { purpose: { data: null } })), 422, 'required', '/data/relationships/purpose');
  });

  it('refuses a purpose linkage of the wrong type (400) and an unknown purpose (404), writing nothing', async () => {
    expectError(
      await refused('POST', '/api/v2/plates', doc('plates', {}, { purpose: rel('tube_purposes', purposes['Stock Tube']!) })),
      400,
      'type_mismatch',
      '/data/relationships/purpose/data/type',
    );
    expectError(await refused('POST', '/api/v2/plates', doc('plates', {}, { purpose: rel('samples', '1') })), 400, 'type_mismatch');
    const unknown = expectError(
      await refused('POST', '/api/v2/plates', doc('plates', {}, { purpose: rel('plate_purposes', '99999') })),
      404,
      'record_not_found',
      '/data/relationships/purpose/data',
    );
    expect(unknown.detail).toContain('99999');
    // A tube purpose's id under the plate purpose type is not a plate purpose.
    expectError(
      await refused('POST', '/api/v2/plates', doc('plates', {}, { purpose: rel('plate_purposes', purposes['Stock Tube']!) })),
      404,
      'record_not_found',
      '/data/relationships/purpose/data',
    );
    expectError(await refused('POST', '/api/v2/plates', doc('plates', {}, { purpose: { data: { type: 'plate_purposes', id: 'x' } } })), 400, 'invalid_id');
  });

  it('refuses computed and read-only attributes on POST (400 param_not_allowed), writing nothing', async () => {
    const purpose = { purpose: rel('plate_purposes', purposes['Stock Plate']!) };
    const res = await refused(
      'POST',
      '/api/v2/plates',
      doc('plates', { size: 384, number_of_rows: 16, number_of_columns: 24, labware_barcode: { human_barcode: 'X' }, state: 'passed' }, purpose),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.source.pointer).sort()).toEqual(
      [
        '/data/attributes/labware_barcode',
        '/data/attributes/number_of_columns',
        '/data/attributes/number_of_rows',
        '/data/attributes/size',
        '/data/attributes/state',
      ].sort(),
    );
    expect(res.body.errors.every((e: any) => e.code === 'param_not_allowed')).toBe(true);
    expectError(
      await refused('POST', '/api/v2/plates', doc('plates', {}, { ...purpose, wells: { data: [] } })),
      400,
      'param_not_allowed',
      '/data/relationships/wells',
    );
  });

  it('accepts an external barcode and renders it as given (machine form the same, no EAN-13 unless 13 digits)', async () => {
    const plate = await createPlate('Stock Plate', { barcode: 'EXT-PLATE-0001' });
    expect(plate.attributes.labware_barcode).toEqual({ ean13_barcode: null, machine_barcode: 'EXT-PLATE-0001', human_barcode: 'EXT-PLATE-0001' });
    expect((await call('GET', `/api/v2/plates/${plate.id}`)).body.data.attributes.labware_barcode.human_barcode).toBe('EXT-PLATE-0001');
    // Write-only: never rendered as an attribute of its own.
    expect(plate.attributes).not.toHaveProperty('barcode');

    // Thirteen digits that are not a Sanger machine barcode (wrong check digit) are an external EAN-13.
    const ean = await createPlate('Stock Plate', { barcode: '1234567890128' });
    expect(ean.attributes.labware_barcode).toEqual({ ean13_barcode: '1234567890128', machine_barcode: '1234567890128', human_barcode: '1234567890128' });
    const found = await call('GET', '/api/v2/plates?filter[barcode]=1234567890128');
    expect(idsOf(found)).toEqual([ean.id]);
  });

  it('refuses a duplicate external barcode (422 not_unique, case-insensitive, across plates and tubes), writing nothing', async () => {
    await createPlate('Stock Plate', { barcode: 'DUP-0001' });
    const res = await refused('POST', '/api/v2/plates', doc('plates', { barcode: 'DUP-0001' }, { purpose: rel('plate_purposes', purposes['Stock Plate']!) }));
    const error = expectError(res, 422, 'not_unique', '/data/attributes/barcode');
    expect(error.detail).toContain('DUP-0001');
    expectError(
      await refused('POST', '/api/v2/plates', doc('plates', { barcode: 'dup-0001' }, { purpose: rel('plate_purposes', purposes['Stock Plate']!) })),
      422,
      'not_unique',
      '/data/attributes/barcode',
    );
    expectError(
      await refused('POST', '/api/v2/tubes', doc('tubes', { barcode: ' Dup-0001 ' }, { purpose: rel('tube_purposes', purposes['Stock Tube']!) })),
      422,
      'not_unique',
      '/data/attributes/barcode',
    );
  });

  it('accepts a migrated barcode in its own Sanger format, in any form, once: taken in any form is 422, writing nothing', async () => {
    const purpose = { purpose: rel('plate_purposes', purposes['Stock Plate']!) };
    const migrated = sanger('DN', 8_000_001);
    const res = await call('POST', '/api/v2/plates', { body: doc('plates', { barcode: migrated.machine }, purpose) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // Every form is kept, whichever one was sent.
    expect(res.body.data.attributes.labware_barcode).toEqual({
      human_barcode: migrated.human,
      machine_barcode: migrated.machine,
      ean13_barcode: migrated.machine,
    });
    const existing = await createPlate();
    const { human_barcode, machine_barcode } = existing.attributes.labware_barcode;
    for (const barcode of [migrated.human, migrated.human.toLowerCase(), migrated.machine, human_barcode, machine_barcode]) {
      expectError(await refused('POST', '/api/v2/plates', doc('plates', { barcode }, purpose)), 422, 'not_unique', '/data/attributes/barcode');
    }
    // A tube may not take it either: one barcode, one labware.
    expectError(
      await refused('POST', '/api/v2/tubes', doc('tubes', { barcode: migrated.human }, { purpose: rel('tube_purposes', purposes['Stock Tube']!) })),
      422,
      'not_unique',
      '/data/attributes/barcode',
    );
  });

  it('skips generated numbers that migrated labware already holds', async () => {
    const purpose = { purpose: rel('plate_purposes', purposes['Stock Plate']!) };
    const last = barcodeNumber('DN', (await createPlate()).attributes.labware_barcode.human_barcode);
    // Labware migrated with the next two numbers of the sequence.
    for (const n of [last + 1, last + 2])
      expect((await call('POST', '/api/v2/plates', { body: doc('plates', { barcode: sanger('DN', n).human }, purpose) })).status).toBe(201);
    const next = await createPlate();
    expect(barcodeNumber('DN', next.attributes.labware_barcode.human_barcode)).toBe(last + 3);
    const found = await call('GET', `/api/v2/plates?filter[barcode]=${sanger('DN', last + 3).human}`);
    expect(found.body.data.map((p: any) => p.id)).toEqual([next.id]);
  });

  it('refuses malformed external barcodes (422), writing nothing', async () => {
    const purpose = { purpose: rel('plate_purposes', purposes['Stock Plate']!) };
    for (const barcode of ['', '   ', 'has space', 'semi;colon', 'x'.repeat(65)]) {
      expectError(await refused('POST', '/api/v2/plates', doc('plates', { barcode }, purpose)), 422, 'invalid_value', '/data/attributes/barcode');
    }
    expectError(await refused('POST', '/api/v2/plates', doc('plates', { barcode: 12345 }, purpose)), 422, 'invalid_type', '/data/attributes/barcode');
  });
});

describe('POST /tubes', () => {
  it('creates a tube with an NT barcode, an optional name, and one receptacle', async () => {
    const res = await call('POST', '/api/v2/tubes', { body: doc('tubes', { name: 'Tube one' }, { purpose: rel('tube_purposes', purposes['Stock Tube']!) }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tube = res.body.data;
    expect(tube.type).toBe('tubes');
    expect(res.headers.Location).toBe(`${BASE}/tubes/${tube.id}`);
    const { human, machine } = sanger('NT', barcodeNumber('NT', tube.attributes.labware_barcode.human_barcode));
    expect(tube.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      name: 'Tube one',
      labware_barcode: { ean13_barcode: machine, machine_barcode: machine, human_barcode: human },
      state: 'pending',
      created_at: expect.stringMatching(ISO_TIME),
      updated_at: tube.attributes.created_at,
      retention_instruction: null,
    });
    expect(Object.keys(tube.relationships).sort()).toEqual(
      [
        'aliquots',
        'ancestors',
        'child_plates',
        'child_tubes',
        'children',
        'comments',
        'custom_metadatum_collection',
        'descendants',
        'direct_submissions',
        'parents',
        'poly_metadata',
        'purpose',
        'qc_files',
        'qc_results',
        'racked_tube',
        'receptacle',
        'receptacles',
        'state_changes',
        'transfer_requests_as_source',
        'transfer_requests_as_target',
        'tube_rack',
      ].sort(),
    );

    const receptacle = await call('GET', `/api/v2/tubes/${tube.id}/receptacle`);
    expect(receptacle.status).toBe(200);
    expect(receptacle.body.data).toMatchObject({
      type: 'receptacles',
      id: String(Number(tube.id) * 1000 + 1),
      attributes: { uuid: `${tube.attributes.uuid.slice(0, 32)}0001`, state: 'pending' },
      links: { self: `${BASE}/receptacles/${Number(tube.id) * 1000 + 1}` },
    });
    const receptacles = await call('GET', `/api/v2/tubes/${tube.id}/receptacles`);
    expect(typedIdsOf(receptacles)).toEqual([`receptacles/${Number(tube.id) * 1000 + 1}`]);
    expect((await call('GET', `/api/v2/tubes/${tube.id}/relationships/receptacle`)).body.data).toEqual({
      type: 'receptacles',
      id: String(Number(tube.id) * 1000 + 1),
    });
    expect((await call('GET', `/api/v2/tubes/${tube.id}/purpose`)).body.data).toMatchObject({
      type: 'purposes',
      attributes: { name: 'Stock Tube', size: null },
    });
    expect((await call('GET', `/api/v2/tubes/${tube.id}/tube_rack`)).body.data).toBeNull();
    expect((await call('GET', `/api/v2/tubes/${tube.id}/aliquots`)).body.data).toEqual([]);
  });

  it('leaves the name null when none is given and accepts an external barcode', async () => {
    const plain = await createTube('MX Tube');
    expect(plain.attributes.name).toBeNull();
    const human = plain.attributes.labware_barcode.human_barcode;
    expect(human).toBe(sanger('NT', barcodeNumber('NT', human)).human);
    const external = await createTube('Stock Tube', { name: 'FluidX', barcode: 'FX00012345' });
    expect(external.attributes).toMatchObject({
      name: 'FluidX',
      labware_barcode: { ean13_barcode: null, machine_barcode: 'FX00012345', human_barcode: 'FX00012345' },
    });
  });

  it('requires a tube purpose; refuses a plate purpose or a bad name, writing nothing', async () => {
    expectError(await refused('POST', '/api/v2/tubes', doc('tubes', { name: 'x' })), 422, 'required', '/data/relationships/purpose');
    expectError(
      await refused('POST', '/api/v2/tubes', doc('tubes', {}, { purpose: rel('plate_purposes', purposes['Stock Plate']!) })),
      400,
      'type_mismatch',
      '/data/relationships/purpose/data/type',
    );
    expectError(
      await refused('POST', '/api/v2/tubes', doc('tubes', {}, { purpose: rel('tube_purposes', '99999') })),
      404,
      'record_not_found',
      '/data/relationships/purpose/data',
    );
    const purpose = { purpose: rel('tube_purposes', purposes['Stock Tube']!) };
    expectError(await refused('POST', '/api/v2/tubes', doc('tubes', { name: '' }, purpose)), 422, 'invalid_value', '/data/attributes/name');
    expectError(await refused('POST', '/api/v2/tubes', doc('tubes', { name: 7 }, purpose)), 422, 'invalid_type', '/data/attributes/name');
    expectError(await refused('POST', '/api/v2/tubes', doc('tubes', { state: 'passed' }, purpose)), 400, 'param_not_allowed', '/data/attributes/state');
    expectError(
      await refused('POST', '/api/v2/tubes', doc('tubes', {}, { ...purpose, receptacle: rel('receptacles', '1001') })),
      400,
      'param_not_allowed',
      '/data/relationships/receptacle',
    );
  });
});

describe('methods', () => {
  it('answers PATCH on plates, tubes and labware with 405 and Allow: GET, changing nothing', async () => {
    const plate = await createPlate();
    const tube = await createTube();
    for (const [type, id] of [
      ['plates', plate.id],
      ['tubes', tube.id],
      ['labware', plate.id],
    ]) {
      const res = await refused('PATCH', `/api/v2/${type}/${id}`, doc(type!, { name: 'renamed' }, undefined, id));
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.Allow).toBe('GET');
    }
    const post = await refused('POST', '/api/v2/labware', doc('labware', {}));
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.Allow).toBe('GET');
    expect((await call('GET', `/api/v2/plates/${plate.id}`)).body.data.attributes.name).toBeNull();
  });
});

describe('filter[barcode]', () => {
  let plate: any;
  let tube: any;
  let external: any;
  let rack: any;

  beforeAll(async () => {
    plate = await createPlate('Stock Plate');
    tube = await createTube('Stock Tube');
    external = await createPlate('Stock Plate', { barcode: 'Ext-Filter-1' });
    rack = await createRack();
  });

  const forms = (labware: any): string[] => {
    const { human_barcode, machine_barcode, ean13_barcode } = labware.attributes.labware_barcode;
    return [human_barcode, machine_barcode, ean13_barcode, human_barcode.toLowerCase()];
  };

  it('finds a plate by its human, machine and EAN-13 forms and the lower-case human form, on labware and plates', async () => {
    for (const value of forms(plate)) {
      for (const type of ['labware', 'plates']) {
        const res = await call('GET', `/api/v2/${type}?filter[barcode]=${value}`);
        expect(res.status).toBe(200);
        expect(typedIdsOf(res), `${type} ${value}`).toEqual([`plates/${plate.id}`]);
        expect(res.body.meta.record_count).toBe(1);
      }
      const tubes = await call('GET', `/api/v2/tubes?filter[barcode]=${value}`);
      expect(tubes.body.data).toEqual([]);
      expect(tubes.body.meta.record_count).toBe(0);
    }
  });

  it('finds a tube by every form on labware and tubes, and nothing on plates', async () => {
    for (const value of forms(tube)) {
      for (const type of ['labware', 'tubes']) {
        expect(typedIdsOf(await call('GET', `/api/v2/${type}?filter[barcode]=${value}`)), `${type} ${value}`).toEqual([`tubes/${tube.id}`]);
      }
      const plates = await call('GET', `/api/v2/plates?filter[barcode]=${value}`);
      expect(plates.status).toBe(200);
      expect(plates.body.data).toEqual([]);
      expect(plates.body.meta.record_count).toBe(0);
    }
  });

  it('finds a rack through labware by its TR barcode, and an external barcode in any case', async () => {
    const { human_barcode, ean13_barcode } = rack.attributes.labware_barcode;
    expect(human_barcode).toBe(sanger('TR', barcodeNumber('TR', human_barcode)).human);
    expect(typedIdsOf(await call('GET', `/api/v2/labware?filter[barcode]=${ean13_barcode}`))).toEqual([`tube_racks/${rack.id}`]);
    expect(typedIdsOf(await call('GET', `/api/v2/labware?filter[barcode]=${human_barcode.toLowerCase()}`))).toEqual([`tube_racks/${rack.id}`]);
    for (const value of ['Ext-Filter-1', 'EXT-FILTER-1', 'ext-filter-1']) {
      expect(typedIdsOf(await call('GET', `/api/v2/labware?filter[barcode]=${value}`))).toEqual([`plates/${external.id}`]);
      expect(typedIdsOf(await call('GET', `/api/v2/plates?filter[barcode]=${value}`))).toEqual([`plates/${external.id}`]);
    }
  });

  it('takes a comma list and repeated [] keys (any of), in id order', async () => {
    const list = await call(
      'GET',
      `/api/v2/labware?filter[barcode]=${tube.attributes.labware_barcode.machine_barcode},${plate.attributes.labware_barcode.human_barcode},${external.attributes.labware_barcode.human_barcode}`,
    );
    expect(typedIdsOf(list)).toEqual([`plates/${plate.id}`, `tubes/${tube.id}`, `plates/${external.id}`]);
    expect(list.body.meta.record_count).toBe(3);

    const repeated = await call(
      'GET',
      `/api/v2/plates?filter[barcode][]=${external.attributes.labware_barcode.human_barcode}&filter[barcode][]=${plate.attributes.labware_barcode.ean13_barcode}`,
    );
    expect(idsOf(repeated)).toEqual([plate.id, external.id]);
    const encoded = await call(
      'GET',
      `/api/v2/tubes?filter%5Bbarcode%5D%5B%5D=${tube.attributes.labware_barcode.human_barcode}&filter%5Bbarcode%5D%5B%5D=${plate.attributes.labware_barcode.human_barcode}`,
    );
    expect(idsOf(encoded)).toEqual([tube.id]);
    // The same labware named in two forms is returned once.
    const twice = await call(
      'GET',
      `/api/v2/labware?filter[barcode]=${plate.attributes.labware_barcode.human_barcode},${plate.attributes.labware_barcode.machine_barcode}`,
    );
    expect(idsOf(twice)).toEqual([plate.id]);
    expect(twice.body.meta.record_count).toBe(1);
  });

  it('finds nothing for unknown barcodes, invalid check letters and neighbouring numbers', async () => {
    const human: string = plate.attributes.labware_barcode.human_barcode;
    const wrongLetter = `${human.slice(0, -1)}${human.endsWith('A') ? 'B' : 'A'}`;
    const machine: string = plate.attributes.labware_barcode.machine_barcode;
    const wrongDigit = `${machine.slice(0, -1)}${(Number(machine.at(-1)) + 1) % 10}`;
    for (const value of ['NOPE-1', wrongLetter, wrongDigit, sanger('DN', 999_999).human]) {
      const res = await call('GET', `/api/v2/labware?filter[barcode]=${value}`);
      expect(res.status).toBe(200);
      expect(res.body.data, value).toEqual([]);
      expect(res.body.meta.record_count).toBe(0);
    }
  });
});

describe('filter[uuid], filter[purpose_name], filter[purpose_id]', () => {
  let libraryPlates: any[];
  let tagPlate: any;
  let libraryTube: any;

  beforeAll(async () => {
    // Purposes no other test of this file uses, so the expected sets are exact.
    libraryPlates = [await createPlate('Library Plate'), await createPlate('Library Plate')];
    tagPlate = await createPlate('Tag Plate');
    libraryTube = await createTube('Library Tube');
  });

  it('filter[uuid] finds labware of the type asked for, in any case, and a comma list', async () => {
    const uuid: string = tagPlate.attributes.uuid;
    for (const type of ['labware', 'plates']) {
      expect(typedIdsOf(await call('GET', `/api/v2/${type}?filter[uuid]=${uuid}`))).toEqual([`plates/${tagPlate.id}`]);
      expect(typedIdsOf(await call('GET', `/api/v2/${type}?filter[uuid]=${uuid.toUpperCase()}`))).toEqual([`plates/${tagPlate.id}`]);
    }
    expect((await call('GET', `/api/v2/tubes?filter[uuid]=${uuid}`)).body.data).toEqual([]);
    expect(typedIdsOf(await call('GET', `/api/v2/tubes?filter[uuid]=${libraryTube.attributes.uuid}`))).toEqual([`tubes/${libraryTube.id}`]);
    const both = await call('GET', `/api/v2/labware?filter[uuid]=${libraryTube.attributes.uuid},${tagPlate.attributes.uuid}`);
    expect(typedIdsOf(both)).toEqual([`plates/${tagPlate.id}`, `tubes/${libraryTube.id}`]);
    expect(both.body.meta.record_count).toBe(2);
    // A well's uuid is not a labware uuid.
    expect((await call('GET', `/api/v2/labware?filter[uuid]=${uuid.slice(0, 32)}0001`)).body.data).toEqual([]);
  });

  it('filter[purpose_name] matches the purpose name case-insensitively, per type', async () => {
    const plates = await call('GET', `/api/v2/plates?filter[purpose_name]=${encodeURIComponent('Library Plate')}`);
    expect(idsOf(plates)).toEqual(libraryPlates.map((p) => p.id));
    expect(plates.body.meta.record_count).toBe(2);
    expect(idsOf(await call('GET', '/api/v2/plates?filter[purpose_name]=library+plate'))).toEqual(libraryPlates.map((p) => p.id));
    expect(idsOf(await call('GET', `/api/v2/plates?filter[purpose_name]=${encodeURIComponent('Library Plate,Tag Plate')}`))).toEqual([
      ...libraryPlates.map((p) => p.id),
      tagPlate.id,
    ]);
    expect(idsOf(await call('GET', `/api/v2/tubes?filter[purpose_name]=${encodeURIComponent('Library Tube')}`))).toEqual([libraryTube.id]);
    expect((await call('GET', `/api/v2/plates?filter[purpose_name]=${encodeURIComponent('Library Tube')}`)).body.data).toEqual([]);
    expect((await call('GET', `/api/v2/plates?filter[purpose_name]=${encodeURIComponent('No Such Purpose')}`)).body.data).toEqual([]);
  });

  it('filter[purpose_id] matches the purpose id, and combines with other filters (all must match)', async () => {
    expect(idsOf(await call('GET', `/api/v2/plates?filter[purpose_id]=${purposes['Tag Plate']}`))).toEqual([tagPlate.id]);
    expect(idsOf(await call('GET', `/api/v2/tubes?filter[purpose_id]=${purposes['Library Tube']}`))).toEqual([libraryTube.id]);
    expect((await call('GET', `/api/v2/tubes?filter[purpose_id]=${purposes['Tag Plate']}`)).body.data).toEqual([]);
    const both = await call(
      'GET',
      `/api/v2/plates?filter[purpose_id]=${purposes['Library Plate']}&filter[barcode]=${libraryPlates[1].attributes.labware_barcode.machine_barcode}`,
    );
    expect(idsOf(both)).toEqual([libraryPlates[1].id]);
    const none = await call(
      'GET',
      `/api/v2/plates?filter[purpose_id]=${purposes['Tag Plate']}&filter[barcode]=${libraryPlates[1].attributes.labware_barcode.machine_barcode}`,
    );
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.record_count).toBe(0);
  });

  it('labware (polymorphic) also filters by purpose, across its member types', async () => {
    const res = await call('GET', `/api/v2/labware?filter[purpose_name]=${encodeURIComponent('Library Plate,Library Tube')}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(typedIdsOf(res)).toEqual([...libraryPlates.map((p) => `plates/${p.id}`), `tubes/${libraryTube.id}`]);
    expect(typedIdsOf(await call('GET', `/api/v2/labware?filter[purpose_id]=${purposes['Tag Plate']}`))).toEqual([`plates/${tagPlate.id}`]);
  });

  it('refuses filters these types do not have (400 with source.parameter)', async () => {
    for (const [type, filter] of [
      ['plates', 'name'],
      ['tubes', 'size'],
      ['labware', 'name'],
      ['plates', 'sample_id'],
    ]) {
      const res = await call('GET', `/api/v2/${type}?filter[${filter}]=x`);
      expectError(res, 400, 'filter_not_allowed');
      expect(res.body.errors[0].source).toEqual({ parameter: `filter[${filter}]` });
    }
  });
});

describe('the polymorphic labware type', () => {
  it('renders GET /labware/{id} with the concrete type and its self link, exactly as the concrete endpoint', async () => {
    const plate = await createPlate();
    const tube = await createTube('Stock Tube', { name: 'poly' });
    const rack = await createRack('Tube Rack 48', { size: 48, name: 'rack-poly' });
    for (const [resource, type] of [
      [plate, 'plates'],
      [tube, 'tubes'],
      [rack, 'tube_racks'],
    ] as const) {
      const res = await call('GET', `/api/v2/labware/${resource.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data.type).toBe(type);
      expect(res.body.data.links.self).toBe(`${BASE}/${type}/${resource.id}`);
      expect(res.body.data.relationships.purpose.links.related).toBe(`${BASE}/${type}/${resource.id}/purpose`);
      expect(res.body.data).toEqual((await call('GET', `/api/v2/${type}/${resource.id}`)).body.data);
      // Related and relationship endpoints work through /labware too.
      const purpose = await call('GET', `/api/v2/labware/${resource.id}/purpose`);
      expect(purpose.status).toBe(200);
      // Plates' and tubes' purposes link as `purposes`; a rack's as `tube_rack_purposes` (its own resource file's class_name).
      expect(purpose.body.data.type).toBe(type === 'tube_racks' ? 'tube_rack_purposes' : 'purposes');
    }
    const rackBarcode = rack.attributes.labware_barcode.human_barcode;
    expect(rack.attributes).toMatchObject({
      size: 48,
      number_of_rows: 6,
      number_of_columns: 8,
      labware_barcode: { human_barcode: sanger('TR', barcodeNumber('TR', rackBarcode)).human },
    });
  });

  it('answers 404 for ids that are not labware and 400 for malformed ids; concrete types do not serve each other', async () => {
    const plate = await createPlate();
    const tube = await createTube();
    expectError(await call('GET', '/api/v2/labware/999999'), 404, 'record_not_found');
    expectError(await call('GET', `/api/v2/labware/${Number(plate.id) * 1000 + 1}`), 404);
    expectError(await call('GET', '/api/v2/labware/abc'), 400, 'invalid_id');
    expectError(await call('GET', `/api/v2/tubes/${plate.id}`), 404);
    expectError(await call('GET', `/api/v2/plates/${tube.id}`), 404);
  });

  it('lists every kind of labware in id order with record_count, and walks the pages through links.next', async () => {
    const all = await call('GET', '/api/v2/labware?page[size]=500');
    expect(all.status).toBe(200);
    const counts = await Promise.all(
      ['plates', 'tubes', 'tube_racks'].map(async (t) => (await call('GET', `/api/v2/${t}?page[size]=1`)).body.meta.record_count as number),
    );
    expect(all.body.meta.record_count).toBe(counts[0]! + counts[1]! + counts[2]!);
    expect(all.body.data).toHaveLength(all.body.meta.record_count);
    const ids = all.body.data.map((r: any) => Number(r.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(all.body.data.map((r: any) => r.type))).toEqual(new Set(['plates', 'tubes', 'tube_racks']));
    for (const r of all.body.data) expect(r.links.self).toBe(`${BASE}/${r.type}/${r.id}`);

    // Adding one of each kind moves the count by three.
    await createPlate();
    await createTube();
    await createRack();
    const after = await call('GET', '/api/v2/labware?page[size]=1');
    expect(after.body.meta.record_count).toBe(all.body.meta.record_count + 3);

    const walked: string[] = [];
    let res = await call('GET', '/api/v2/labware?page[size]=7');
    let pages = 0;
    for (;;) {
      expect(res.status).toBe(200);
      pages += 1;
      walked.push(...typedIdsOf(res));
      if (!res.body.links.next) break;
      res = await call('GET', pathOf(res.body.links.next));
    }
    const full = typedIdsOf(await call('GET', '/api/v2/labware?page[size]=500'));
    expect(walked).toEqual(full);
    expect(pages).toBe(Math.ceil(full.length / 7));
  });

  it('serves the traction-ui reception lookup with its sparse fieldsets and compound document (W14)', async () => {
    const study = await idOf('studies', 'name', 'Study A');
    const plate = await createPlate();
    const tube = await createTube('Stock Tube', { name: 'traction' });
    const s1 = await createSample('traction-s1', 'Homo sapiens');
    const s2 = await createSample('traction-s2', 'Mus musculus');
    const a1 = { type: 'wells', id: String(Number(plate.id) * 1000 + 1) };
    const b1 = { type: 'wells', id: String(Number(plate.id) * 1000 + 2) };
    const tubeReceptacle = { type: 'receptacles', id: String(Number(tube.id) * 1000 + 1) };
    const x1 = await addAliquot(a1, s1.id, { study, library_type: 'Standard' });
    const x2 = await addAliquot(b1, s2.id);
    const x3 = await addAliquot(tubeReceptacle, s2.id, { study });
    const query =
      `filter[barcode]=${plate.attributes.labware_barcode.human_barcode},${tube.attributes.labware_barcode.machine_barcode}` +
      '&include=receptacles.aliquots.sample.sample_metadata,receptacles.aliquots.study' +
      '&fields[plates]=labware_barcode,receptacles,retention_instruction&fields[tubes]=labware_barcode,receptacles,retention_instruction' +
      '&fields[wells]=position,aliquots&fields[receptacles]=aliquots&fields[samples]=sample_metadata,name,uuid' +
      '&fields[sample_metadata]=sample_common_name&fields[studies]=uuid&fields[aliquots]=study,library_type,sample';
    const res = await call('GET', `/api/v2/labware?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.record_count).toBe(2);

    const [p, t] = res.body.data;
    expect([p.type, p.id, t.type, t.id]).toEqual(['plates', plate.id, 'tubes', tube.id]);
    expect(p.attributes).toEqual({ labware_barcode: plate.attributes.labware_barcode, retention_instruction: null });
    expect(t.attributes).toEqual({ labware_barcode: tube.attributes.labware_barcode, retention_instruction: null });
    expect(Object.keys(p.relationships)).toEqual(['receptacles']);
    expect(Object.keys(t.relationships)).toEqual(['receptacles']);
    expect(p.relationships.receptacles.data).toEqual(Array.from({ length: 96 }, (_, i) => ({ type: 'wells', id: String(Number(plate.id) * 1000 + i + 1) })));
    expect(t.relationships.receptacles.data).toEqual([tubeReceptacle]);

    const included: any[] = res.body.included;
    const key = (r: any) => `${r.type}/${r.id}`;
    expect(new Set(included.map(key)).size).toBe(included.length);
    const byType = (type: string) => included.filter((r) => r.type === type);
    expect(
      included
        .map((r) => r.type)
        .filter((type, i, all) => all.indexOf(type) === i)
        .sort(),
    ).toEqual(['aliquots', 'receptacles', 'sample_metadata', 'samples', 'studies', 'wells']);

    const wells = byType('wells');
    expect(wells).toHaveLength(96);
    expect(wells.map((w) => w.attributes.position.name)).toEqual(columnOrder(8, 12));
    for (const well of wells) {
      expect(Object.keys(well.attributes)).toEqual(['position']);
      expect(Object.keys(well.relationships)).toEqual(['aliquots']);
    }
    expect(wells.find((w) => w.id === a1.id).relationships.aliquots.data).toEqual([{ type: 'aliquots', id: x1.id }]);
    expect(wells.find((w) => w.id === b1.id).relationships.aliquots.data).toEqual([{ type: 'aliquots', id: x2.id }]);
    expect(wells.filter((w) => w.relationships.aliquots.data.length === 0)).toHaveLength(94);

    expect(byType('receptacles')).toEqual([
      {
        type: 'receptacles',
        id: tubeReceptacle.id,
        attributes: {},
        relationships: { aliquots: expect.objectContaining({ data: [{ type: 'aliquots', id: x3.id }] }) },
        links: { self: `${BASE}/receptacles/${tubeReceptacle.id}` },
      },
    ]);

    const aliquots = byType('aliquots').sort((a, b) => Number(a.id) - Number(b.id));
    expect(aliquots.map((a) => [a.id, a.attributes, a.relationships.sample.data, a.relationships.study.data])).toEqual(
      [
        [x1.id, { library_type: 'Standard' }, { type: 'samples', id: s1.id }, { type: 'studies', id: study }],
        [x2.id, { library_type: null }, { type: 'samples', id: s2.id }, null],
        [x3.id, { library_type: null }, { type: 'samples', id: s2.id }, { type: 'studies', id: study }],
      ].sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    for (const aliquot of aliquots) expect(Object.keys(aliquot.relationships).sort()).toEqual(['sample', 'study']);

    const samples = byType('samples').sort((a, b) => Number(a.id) - Number(b.id));
    expect(samples.map((s) => [s.id, s.attributes])).toEqual([
      [s1.id, { name: 'traction-s1', uuid: s1.attributes.uuid }],
      [s2.id, { name: 'traction-s2', uuid: s2.attributes.uuid }],
    ]);
    const metadataIds = samples.map((s) => s.relationships.sample_metadata.data.id);
    const metadata = byType('sample_metadata').sort((a, b) => Number(a.id) - Number(b.id));
    expect(metadata.map((m) => [m.id, m.attributes])).toEqual([
      [metadataIds[0], { sample_common_name: 'Homo sapiens' }],
      [metadataIds[1], { sample_common_name: 'Mus musculus' }],
    ]);
    const studies = byType('studies');
    expect(studies.map((s) => [s.id, Object.keys(s.attributes)])).toEqual([[study, ['uuid']]]);
    expect(included).toHaveLength(96 + 1 + 3 + 2 + 2 + 1);
  });

  it("serves limber's minimal lookup: one record, uuid only, no relationships", async () => {
    const plate = await createPlate();
    const tube = await createTube();
    const rack = await createRack();
    for (const [labware, type, form] of [
      [plate, 'plates', 'human_barcode'],
      [tube, 'tubes', 'ean13_barcode'],
      [rack, 'tube_racks', 'machine_barcode'],
    ] as const) {
      const barcode = labware.attributes.labware_barcode[form];
      const res = await call(
        'GET',
        `/api/v2/labware?filter[barcode]=${barcode}&fields[tube_racks]=uuid&fields[plates]=uuid&fields[tubes]=uuid&page[number]=1&page[size]=1`,
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        { type, id: labware.id, attributes: { uuid: labware.attributes.uuid }, relationships: {}, links: { self: `${BASE}/${type}/${labware.id}` } },
      ]);
      expect(res.body.meta.record_count).toBe(1);
      expect(res.body.links.last).toContain('page%5Bnumber%5D=1');
      expect(res.body.links).not.toHaveProperty('next');
      expect(res.body).not.toHaveProperty('included');
    }
    const none = await call(
      'GET',
      '/api/v2/labware?filter[barcode]=NOT-THERE&fields[tube_racks]=uuid&fields[plates]=uuid&fields[tubes]=uuid&page[number]=1&page[size]=1',
    );
    expect(none.body.data).toEqual([]);
  });
});

describe('family links: parents, children, ancestors, descendants', () => {
  // grandparents G1 (Stock Plate) and G2 (Working Dilution) → parent P (Stock Plate) → children C (plate, Tag Plate) and T (tube)
  let g1: any;
  let g2: any;
  let p: any;
  let c: any;
  let t: any;

  beforeAll(async () => {
    g1 = await createPlate('Stock Plate');
    g2 = await createPlate('Working Dilution');
    p = await createPlate('Stock Plate');
    c = await createPlate('Tag Plate');
    t = await createTube('MX Tube');
    await link([
      [refOf(g1), refOf(p)],
      [refOf(g2), refOf(p)],
      [refOf(p), refOf(c)],
      [refOf(p), refOf(t)],
    ]);
  });

  const related = async (path: string) => {
    const res = await call('GET', path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  };

  it('follows parents and children one generation, rendering each with its concrete type', async () => {
    expect(typedIdsOf(await related(`/api/v2/plates/${c.id}/parents`))).toEqual([`plates/${p.id}`]);
    expect(typedIdsOf(await related(`/api/v2/tubes/${t.id}/parents`))).toEqual([`plates/${p.id}`]);
    expect(typedIdsOf(await related(`/api/v2/plates/${p.id}/parents`))).toEqual([`plates/${g1.id}`, `plates/${g2.id}`]);
    const children = await related(`/api/v2/plates/${p.id}/children`);
    expect(typedIdsOf(children)).toEqual([`plates/${c.id}`, `tubes/${t.id}`]);
    expect(children.body.meta.record_count).toBe(2);
    expect(children.body.data[1].links.self).toBe(`${BASE}/tubes/${t.id}`);
    expect(typedIdsOf(await related(`/api/v2/plates/${p.id}/child_plates`))).toEqual([`plates/${c.id}`]);
    const none = await related(`/api/v2/plates/${g1.id}/parents`);
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.record_count).toBe(0);
    expect((await related(`/api/v2/plates/${p.id}/relationships/children`)).body.data).toEqual([
      { type: 'plates', id: c.id },
      { type: 'tubes', id: t.id },
    ]);
  });

  it('walks every generation for ancestors and descendants, in id order', async () => {
    expect(typedIdsOf(await related(`/api/v2/plates/${c.id}/ancestors`))).toEqual([`plates/${g1.id}`, `plates/${g2.id}`, `plates/${p.id}`]);
    expect(typedIdsOf(await related(`/api/v2/tubes/${t.id}/ancestors`))).toEqual([`plates/${g1.id}`, `plates/${g2.id}`, `plates/${p.id}`]);
    expect(typedIdsOf(await related(`/api/v2/labware/${t.id}/ancestors`))).toEqual([`plates/${g1.id}`, `plates/${g2.id}`, `plates/${p.id}`]);
    expect(typedIdsOf(await related(`/api/v2/plates/${g1.id}/descendants`))).toEqual([`plates/${p.id}`, `plates/${c.id}`, `tubes/${t.id}`]);
    expect(typedIdsOf(await related(`/api/v2/plates/${g2.id}/descendants`))).toEqual([`plates/${p.id}`, `plates/${c.id}`, `tubes/${t.id}`]);
    expect((await related(`/api/v2/plates/${g1.id}/ancestors`)).body.data).toEqual([]);
    expect((await related(`/api/v2/tubes/${t.id}/descendants`)).body.data).toEqual([]);
    expect((await related(`/api/v2/plates/${c.id}/relationships/ancestors`)).body.data).toEqual([
      { type: 'plates', id: g1.id },
      { type: 'plates', id: g2.id },
      { type: 'plates', id: p.id },
    ]);
  });

  it('includes ancestors (with their purposes) in a compound document, and renders their linkage', async () => {
    const res = await related(`/api/v2/tubes/${t.id}?include=ancestors.purpose`);
    expect(res.body.data.relationships.ancestors.data).toEqual([
      { type: 'plates', id: g1.id },
      { type: 'plates', id: g2.id },
      { type: 'plates', id: p.id },
    ]);
    const included = res.body.included.map((r: any) => `${r.type}/${r.id}`).sort();
    expect(included).toEqual(
      [`plates/${g1.id}`, `plates/${g2.id}`, `plates/${p.id}`, `purposes/${purposes['Stock Plate']}`, `purposes/${purposes['Working Dilution']}`].sort(),
    );
  });

  it('filters, sorts and pages a related collection: the stock-plate lookup', async () => {
    const path = `/api/v2/plates/${c.id}/ancestors?filter[purpose_name]=${encodeURIComponent('Stock Plate')}&sort=id&page[number]=1&page[size]=1`;
    const first = await related(path);
    expect(typedIdsOf(first)).toEqual([`plates/${g1.id}`]);
    expect(first.body.meta.record_count).toBe(2);
    expect(first.body.links.last).toContain('page%5Bnumber%5D=2');
    expect(first.body.links.last).toContain('filter%5Bpurpose_name%5D=Stock%20Plate');
    // The client then follows `links.last`.
    const last = await related(pathOf(first.body.links.last));
    expect(typedIdsOf(last)).toEqual([`plates/${p.id}`]);
    expect(last.body.data[0].attributes.labware_barcode).toEqual(p.attributes.labware_barcode);

    const descending = await related(
      `/api/v2/plates/${c.id}/ancestors?filter[purpose_name]=${encodeURIComponent('Stock Plate')}&sort=-id&page[number]=1&page[size]=1`,
    );
    expect(typedIdsOf(descending)).toEqual([`plates/${p.id}`]);
    const byId = await related(`/api/v2/plates/${c.id}/ancestors?filter[purpose_id]=${purposes['Working Dilution']}`);
    expect(typedIdsOf(byId)).toEqual([`plates/${g2.id}`]);
    const tubes = await related(`/api/v2/plates/${g1.id}/descendants?filter[purpose_name]=${encodeURIComponent('MX Tube')}`);
    expect(typedIdsOf(tubes)).toEqual([`tubes/${t.id}`]);
    const byBarcode = await related(`/api/v2/plates/${g1.id}/descendants?filter[barcode]=${c.attributes.labware_barcode.machine_barcode}`);
    expect(typedIdsOf(byBarcode)).toEqual([`plates/${c.id}`]);
    const none = await related(`/api/v2/plates/${c.id}/ancestors?filter[purpose_name]=${encodeURIComponent('Tag Plate')}`);
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.record_count).toBe(0);
    expectError(await call('GET', `/api/v2/plates/${c.id}/ancestors?filter[nope]=1`), 400, 'filter_not_allowed');
  });

  it('answers 404 for an unknown relationship or owner', async () => {
    expectError(await call('GET', `/api/v2/plates/${c.id}/siblings`), 404);
    expectError(await call('GET', '/api/v2/plates/999999/ancestors'), 404, 'record_not_found');
  });
});

describe('family links: call budget', () => {
  /** A root plate with `n` children, each child with a parent of its own that has a parent too. */
  async function family(n: number): Promise<{ root: any; children: any[] }> {
    const root = await createPlate();
    const children: any[] = [];
    const pairs: [Ref, Ref][] = [];
    for (let i = 0; i < n; i++) {
      const grandparent = await createPlate();
      const parent = await createPlate();
      const child = await createPlate();
      children.push(child);
      pairs.push([refOf(grandparent), refOf(parent)], [refOf(parent), refOf(child)], [refOf(root), refOf(child)]);
    }
    await link(pairs);
    return { root, children };
  }

  it('include=ancestors on a collection costs the same for 2 records as for 6', async () => {
    const small = await family(2);
    const large = await family(6);
    await warmKeyCache();
    const a = await call('GET', `/api/v2/plates/${small.root.id}/children?include=ancestors`);
    const b = await call('GET', `/api/v2/plates/${large.root.id}/children?include=ancestors`);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.data).toHaveLength(2);
    expect(b.body.data).toHaveLength(6);
    // Each child's ancestors: the root, its own parent and that parent's parent.
    for (const child of b.body.data) expect(child.relationships.ancestors.data).toHaveLength(3);
    expect(b.body.included).toHaveLength(1 + 6 * 2);
    expect(b.calls).toBe(a.calls);
  });
});
