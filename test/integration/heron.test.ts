import { beforeAll, describe, expect, it } from 'vitest';
import { Loader } from '#lib/jsonapi/context.ts';
import { loadReferenceData } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { call, idOf, type CallResult } from '../support/api.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { createSample, uniqueName } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * The reference's Heron reception endpoints (sanger/sequencescape app/controllers/api/v2/heron/*,
 * app/models/heron/factories/*, spec/requests/api/v2/heron/*): a plate or a rack of tubes received with its
 * samples by coordinate, the reference's validations as 4xx at their member with nothing written, the
 * answer's shape, events, and 50 receptions at once on distinct and on one barcode.
 */

beforeAll(freshStore);

let platePurpose: string;
let rackPurpose: string;
let tubePurpose: string;
let study: string;

const uuidOf = async (type: string, name: string): Promise<string> =>
  (await call('GET', `/api/v2/${type}/${await idOf(type, 'name', name)}`)).body.data.attributes.uuid;

beforeAll(async () => {
  [platePurpose, rackPurpose, tubePurpose, study] = await Promise.all([
    uuidOf('plate_purposes', 'Stock Plate'),
    uuidOf('tube_rack_purposes', 'Tube Rack 96'),
    uuidOf('tube_purposes', 'Stock Tube'),
    uuidOf('studies', 'Study A'),
  ]);
});

const body = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });
const postPlate = (attributes: Record<string, unknown>) => call('POST', '/api/v2/heron/plates', { body: body('plates', attributes) });
const postRack = (attributes: Record<string, unknown>) => call('POST', '/api/v2/heron/tube_racks', { body: body('tube_racks', attributes) });

function expectErrors(res: CallResult, status: number, expected: { pointer: string; detail?: RegExp }[]) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const errors = res.body.errors as { status: string; detail: string; source?: { pointer?: string } }[];
  expect(errors.map((e) => e.source?.pointer).sort()).toEqual(expected.map((e) => e.pointer).sort());
  for (const want of expected) if (want.detail) expect(errors.find((e) => e.source?.pointer === want.pointer)!.detail).toMatch(want.detail);
}

const refusedPlate = (attributes: Record<string, unknown>) => refused('POST', '/api/v2/heron/plates', body('plates', attributes));
/** A plate of one new sample in A1 whose content gives `uuid`. */
const plateAttributes = (uuid: unknown) => ({
  barcode: uniqueName('HU'),
  purpose_uuid: platePurpose,
  study_uuid: study,
  wells: { A1: { content: { supplier_name: 'lh', uuid } } },
});

/** The labware the answer links to, with its receptacles' aliquots' samples and their metadata. */
async function readBack(res: CallResult, include: string) {
  const self = res.body.data.links.self as string;
  const got = await call('GET', `${new URL(self).pathname}?include=${include}`);
  expect(got.status).toBe(200);
  return got.body;
}

describe('POST /api/v2/heron/plates', () => {
  it('receives a plate with a new sample and an existing one, answering the reference shape', async () => {
    const existing = await createSample();
    const barcode = uniqueName('HP');
    const res = await postPlate({
      barcode,
      purpose_uuid: platePurpose,
      study_uuid: study,
      wells: {
        A01: { content: { phenotype: 'Positive', supplier_name: 'COG-1', sample_description: 'root-1' } },
        B01: { content: { sample_uuid: existing.attributes.uuid } },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.type).toBe('heron');
    expect(res.body.data.attributes).toEqual({ uuid: expect.any(String), purpose_name: 'Stock Plate', study_names: ['Study A'] });
    const plate = await readBack(res, 'wells.aliquots.sample.sample_metadata,wells.aliquots.study');
    expect(plate.data.attributes.uuid).toBe(res.body.data.attributes.uuid);
    expect(plate.data.attributes.labware_barcode.human_barcode).toBe(barcode.toUpperCase());
    const included = plate.included as any[];
    const wells = included.filter((r) => r.type === 'wells');
    const aliquotsAt = (position: string) => wells.find((w) => w.attributes.position.name === position).relationships.aliquots.data;
    expect(aliquotsAt('A1')).toHaveLength(1);
    expect(aliquotsAt('B1')).toHaveLength(1);
    expect(aliquotsAt('C1')).toHaveLength(0);
    const metadata = included.filter((r) => r.type === 'sample_metadata');
    expect(metadata.map((m) => m.attributes.phenotype)).toContain('Positive');
    expect(metadata.map((m) => m.attributes.supplier_name)).toContain('COG-1');
    expect(included.filter((r) => r.type === 'samples').map((s) => s.id)).toContain(existing.id);
    expect(included.filter((r) => r.type === 'studies').map((s) => s.attributes.name)).toEqual(['Study A']);
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'plates' && e.resource.uuid === plate.data.attributes.uuid);
    expect(events.map((e) => e.type)).toEqual(['plates.created']);
  });

  it('writes a 96-well plate of 96 new samples, named and with their uuids (as lighthouse sends them), as one write past one transaction', async () => {
    const uuids = Array.from({ length: 96 }, () => crypto.randomUUID());
    const wells = Object.fromEntries(
      Array.from({ length: 96 }, (_, i) => [
        `${String.fromCharCode(65 + (i % 8))}${String(1 + Math.floor(i / 8)).padStart(2, '0')}`,
        { content: { supplier_name: `S${i}`, name: uniqueName('H96'), sanger_sample_id: uniqueName('H96S'), uuid: uuids[i] } },
      ]),
    );
    const res = await postPlate({ barcode: uniqueName('HP96'), purpose_uuid: platePurpose, study_uuid: study, wells });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const found = await call('GET', `/api/v2/samples?filter[uuid]=${uuids.join(',')}&page[size]=100`);
    expect(found.body.data).toHaveLength(96);
    const plate = await readBack(res, 'wells.aliquots');
    expect((plate.included as any[]).filter((r) => r.type === 'aliquots')).toHaveLength(96);
  });

  it('emits a cherrypicking given with the plate as its event', async () => {
    const event = {
      event_type: 'lh_beckman_cp_destination_created',
      subjects: ['robot', 'cherrypicking_source_labware', 'sample'].map((role_type) => ({
        role_type,
        subject_type: role_type,
        friendly_name: role_type,
        uuid: crypto.randomUUID(),
      })),
      metadata: {},
      lims: 'LH_TEST',
    };
    const res = await postPlate({
      barcode: uniqueName('HPE'),
      purpose_uuid: platePurpose,
      study_uuid: study,
      wells: { A1: { content: { supplier_name: 'c' } } },
      events: [{ event }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const picked = (await outboxEvents()).filter((e) => e.type === 'plates.cherrypicked' && e.resource.uuid === res.body.data.attributes.uuid);
    expect(picked).toHaveLength(1);
    expect((picked[0]!.data as any).meta.event).toEqual(event);
  });

  describe('refuses, writing nothing', () => {
    it('without a purpose or a barcode (the reference: "Plate purpose uuid not defined", "Barcode can\'t be blank")', async () => {
      expectErrors(await refusedPlate({}), 422, [
        { pointer: '/data/attributes/barcode', detail: /barcode - can't be blank/ },
        { pointer: '/data/attributes/purpose_uuid', detail: /purpose_uuid - can't be blank/ },
      ]);
    });

    it('an unknown purpose or study', async () => {
      const unknown = crypto.randomUUID();
      expectErrors(await refusedPlate({ barcode: uniqueName('HX'), purpose_uuid: unknown, study_uuid: unknown }), 422, [
        { pointer: '/data/attributes/purpose_uuid', detail: new RegExp(`no plate_purposes with uuid "${unknown}"`) },
        { pointer: '/data/attributes/study_uuid', detail: /no study with uuid/ },
      ]);
    });

    it('a barcode in use, or of characters no barcode has', async () => {
      const barcode = uniqueName('HU');
      expect((await postPlate({ barcode, purpose_uuid: platePurpose })).status).toBe(201);
      expectErrors(await refusedPlate({ barcode, purpose_uuid: platePurpose }), 422, [{ pointer: '/data/attributes/barcode', detail: /already/ }]);
      expectErrors(await refusedPlate({ barcode: 'not a barcode', purpose_uuid: platePurpose }), 422, [{ pointer: '/data/attributes/barcode' }]);
    });

    it('coordinates the plate does not have, or one twice', async () => {
      expectErrors(await refusedPlate({ barcode: uniqueName('HC'), purpose_uuid: platePurpose, study_uuid: study, wells: { Z99: {}, A01: {}, A1: {} } }), 422, [
        { pointer: '/data/attributes/wells/Z99', detail: /the location "Z99" has an invalid format/ },
        { pointer: '/data/attributes/wells/A1', detail: /A1 again/ },
      ]);
    });

    it('contents the reference refuses: an unknown field, fields beside sample_uuid, no study, an unknown sample', async () => {
      const existing = await createSample();
      expectErrors(
        await refusedPlate({
          barcode: uniqueName('HW'),
          purpose_uuid: platePurpose,
          study_uuid: study,
          wells: { A01: { content: { asdf: 'A phenotype' } }, B01: { content: { phenotype: 'wrong', sample_uuid: existing.attributes.uuid } } },
        }),
        422,
        [
          { pointer: '/data/attributes/wells/A01/content/asdf', detail: /no field of a sample or its metadata/ },
          { pointer: '/data/attributes/wells/B01/content/phenotype', detail: /no other field can be given with sample_uuid/ },
        ],
      );
      expectErrors(
        await refusedPlate({ barcode: uniqueName('HS'), purpose_uuid: platePurpose, wells: { A1: { content: [{ phenotype: 'x' }, { control: 'yes' }] } } }),
        422,
        [
          { pointer: '/data/attributes/wells/A1/content/0/study_uuid', detail: /study can't be blank/ },
          { pointer: '/data/attributes/wells/A1/content/1/study_uuid' },
        ],
      );
      expectErrors(
        await refusedPlate({ barcode: uniqueName('HV'), purpose_uuid: platePurpose, study_uuid: study, wells: { A1: { content: { control: 'yes' } } } }),
        422,
        [{ pointer: '/data/attributes/wells/A1/content/control' }],
      );
      expectErrors(
        await refusedPlate({
          barcode: uniqueName('HN'),
          purpose_uuid: platePurpose,
          study_uuid: study,
          wells: { A1: { content: { sample_uuid: crypto.randomUUID() } } },
        }),
        422,
        [{ pointer: '/data/attributes/wells/A1/content/sample_uuid', detail: /no sample with uuid/ }],
      );
    });

    it("a new sample's name that a sample has, or one given twice", async () => {
      const taken = (await createSample({ name: uniqueName('HTAKEN') })).attributes.name as string;
      const res = await refusedPlate({ barcode: uniqueName('HT'), purpose_uuid: platePurpose, study_uuid: study, wells: { A1: { content: { name: taken } } } });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      // Found by the name's guard as the write commits, so it names the sample's `name`, not the well (docs/decisions.md, "Heron reception").
      expect(res.body.errors[0].detail.toLowerCase()).toContain(taken.toLowerCase());
      expectErrors(
        await refusedPlate({
          barcode: uniqueName('HT'),
          purpose_uuid: platePurpose,
          study_uuid: study,
          wells: { A1: { content: { name: 'twice' } }, B1: { content: { name: 'TWICE' } } },
        }),
        422,
        [{ pointer: '/data/attributes/wells/B1/content/name', detail: /at A1 too/ }],
      );
    });

    it('an event of a type the reference does not know, or without its subjects', async () => {
      expectErrors(
        await refusedPlate({
          barcode: uniqueName('HE'),
          purpose_uuid: platePurpose,
          events: [{ event: { event_type: 'other' } }, { event: { event_type: 'lh_beckman_cp_destination_created', subjects: [] } }],
        }),
        422,
        [
          { pointer: '/data/attributes/events/0/event/event_type' },
          { pointer: '/data/attributes/events/1/event/subjects', detail: /no subject of role_type "robot", "cherrypicking_source_labware", "sample"/ },
        ],
      );
    });

    it('members the reference does not permit, and no API key', async () => {
      expectErrors(await refusedPlate({ barcode: uniqueName('HM'), purpose_uuid: platePurpose, colour: 'red' }), 400, [{ pointer: '/data/attributes/colour' }]);
      const res = await call('POST', '/api/v2/heron/plates', { body: body('plates', { barcode: uniqueName('HK'), purpose_uuid: platePurpose }), key: null });
      expect(res.status).toBe(401);
    });
  });

  it('50 receptions at once of distinct plates all land; of one barcode exactly one does', async () => {
    const distinct = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        postPlate({ barcode: uniqueName('HD'), purpose_uuid: platePurpose, study_uuid: study, wells: { A1: { content: { supplier_name: `d${i}` } } } }),
      ),
    );
    expect(distinct.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(new Set(distinct.map((r) => r.body.data.attributes.uuid)).size).toBe(50);

    const barcode = uniqueName('HO');
    const shared = await Promise.all(
      Array.from({ length: 50 }, () =>
        postPlate({ barcode, purpose_uuid: platePurpose, study_uuid: study, wells: { A1: { content: { supplier_name: 'one' } } } }),
      ),
    );
    const statuses = shared.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(
      statuses.filter((s) => s !== 201).every((s) => s === 409 || s === 422),
      JSON.stringify(statuses),
    ).toBe(true);
    const found = await call('GET', `/api/v2/plates?filter[barcode]=${barcode}&include=wells.aliquots`);
    expect(found.body.data).toHaveLength(1);
    expect((found.body.included as any[]).filter((r) => r.type === 'aliquots')).toHaveLength(1);
  });
});

describe("a new sample's sanger sample id and name: the study's abbreviation and the sample's number", () => {
  let abbreviated: string;
  beforeAll(async () => {
    await loadReferenceData(registry, { study_metadata: [{ study: 'Study B', faculty_sponsor: 'Prof Sponsor B', study_name_abbreviation: 'STDB' }] });
    abbreviated = await uuidOf('studies', 'Study B');
  });
  /** The samples of the plate answered, by id: [name, sanger_sample_id]. */
  const samplesOf = async (res: CallResult): Promise<Record<string, [unknown, unknown]>> => {
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = await readBack(res, 'wells.aliquots.sample');
    const samples = new Map((read.included as any[]).filter((r) => r.type === 'samples').map((r) => [r.id, r]));
    return Object.fromEntries(
      (read.included as any[])
        .filter((r) => r.type === 'aliquots')
        .map((a) => {
          const sample = samples.get(a.relationships.sample.data.id)!;
          return [sample.id, [sample.attributes.name, sample.attributes.sanger_sample_id] as [unknown, unknown]];
        }),
    );
  };

  it('made when not given (Heron::Factories::Sample, SangerSampleId); a given one names the sample; none without an abbreviation', async () => {
    const res = await postPlate({
      barcode: uniqueName('HN'),
      purpose_uuid: platePurpose,
      study_uuid: abbreviated,
      wells: {
        A1: { content: { supplier_name: 'a' } },
        B1: { content: { sanger_sample_id: uniqueName('GIVEN') } },
        C1: { content: { name: uniqueName('named') } },
      },
    });
    const named = Object.entries(await samplesOf(res));
    const made = named.filter(([, [, sanger]]) => String(sanger).startsWith('STDB'));
    // A1's and C1's are made from the abbreviation and the sample's own number; C1 keeps its name.
    expect(made).toHaveLength(2);
    for (const [id, [, sanger]] of made) expect(sanger).toBe(`STDB${id}`);
    expect(named.filter(([, [name, sanger]]) => name === sanger)).toHaveLength(2);
    expect(named.some(([, [name, sanger]]) => String(name).startsWith('GIVEN') && name === sanger)).toBe(true);
    // Study A has no abbreviation: nothing is made.
    const plain = await postPlate({
      barcode: uniqueName('HN'),
      purpose_uuid: platePurpose,
      study_uuid: study,
      wells: { A1: { content: { supplier_name: 'a' } } },
    });
    expect(Object.values(await samplesOf(plain))).toEqual([[null, null]]);
  });

  it('50 receptions at once: all land, every made name distinct', async () => {
    const all = await Promise.all(
      Array.from({ length: 50 }, () =>
        postPlate({
          barcode: uniqueName('HN'),
          purpose_uuid: platePurpose,
          study_uuid: abbreviated,
          wells: { A1: { content: { supplier_name: 'a' } }, B1: { content: { supplier_name: 'b' } } },
        }),
      ),
    );
    expect(all.map((r) => r.status)).toEqual(Array(50).fill(201));
    const names = (await Promise.all(all.map(samplesOf))).flatMap((s) => Object.values(s).map(([name]) => name));
    expect(new Set(names).size).toBe(100);
    expect(names.every((name) => /^STDB\d+$/.test(String(name)))).toBe(true);
  });
});

describe("a content's uuid (lighthouse's lh_sample_uuid) is the sample's", () => {
  const plateOf = (uuid: unknown) => postPlate(plateAttributes(uuid));
  const samplesByUuid = async (...uuids: string[]) => {
    const res = await call('GET', `/api/v2/samples?filter[uuid]=${uuids.join(',')}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as any[];
  };

  it('renders it, and every uuid lookup finds the sample by it: filter[uuid], a later sample_uuid, the loader; a forged uuid finds nothing', async () => {
    const lh = crypto.randomUUID();
    // Sent in capitals, kept as the reference's Uuid keeps them: lowercase.
    const res = await plateOf(lh.toUpperCase());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [sample] = await samplesByUuid(lh);
    expect(sample.attributes.uuid).toBe(lh);
    expect((await call('GET', `/api/v2/samples/${sample.id}`)).body.data.attributes.uuid).toBe(lh);
    // The aliquot in the plate is of that sample.
    const read = await readBack(res, 'wells.aliquots.sample');
    expect((read.included as any[]).filter((r) => r.type === 'samples').map((r) => r.attributes.uuid)).toEqual([lh]);
    // A uuid filter of another type does not find it.
    expect((await call('GET', `/api/v2/plates?filter[uuid]=${lh}`)).body.data).toEqual([]);

    // A later reception names it as an existing sample (`sample_uuid`, resolved by Loader.byUuids).
    const again = await postPlate({
      barcode: uniqueName('HU'),
      purpose_uuid: platePurpose,
      study_uuid: study,
      wells: { B1: { content: { sample_uuid: lh } } },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const aliquots = ((await readBack(again, 'wells.aliquots.sample')).included as any[]).filter((r) => r.type === 'samples');
    expect(aliquots.map((r) => r.id)).toEqual([sample.id]);

    // The loader: a uuid that does not decode costs one consistent read of the alias entries, then the records' read.
    const forged = crypto.randomUUID();
    const own = (await createSample()).attributes.uuid as string;
    const loader = new Loader(registry);
    const { result, commands } = await observeCalls(() => loader.byUuids([lh, forged, own], ['samples']));
    expect(result.map((r) => r?.uuid)).toEqual([lh, undefined, own]);
    expect(commands).toEqual({ BatchGetItemCommand: 2 });
    // Uuids that decode read no alias entry.
    expect((await observeCalls(() => new Loader(registry).byUuids([own], ['samples']))).commands).toEqual({ BatchGetItemCommand: 1 });
    expect(await samplesByUuid(forged)).toEqual([]);
  });

  it("refuses a uuid another sample has (naming it), one given twice, one that is no uuid, and one of the form of this service's own; nothing written", async () => {
    const lh = crypto.randomUUID();
    expect((await plateOf(lh)).status).toBe(201);
    // Found by the uuid's guard as the write commits (the reference: "Sample with uuid … already exists").
    expectErrors(await refusedPlate({ ...plateAttributes(lh) }), 422, [
      { pointer: '/data/attributes/uuid', detail: new RegExp(`uuid - "${lh}" is already in use`) },
    ]);
    const twice = crypto.randomUUID();
    expectErrors(
      await refusedPlate({
        ...plateAttributes(twice),
        wells: { A1: { content: { supplier_name: 'a', uuid: twice } }, B1: { content: { supplier_name: 'b', uuid: twice.toUpperCase() } } },
      }),
      422,
      [{ pointer: '/data/attributes/wells/B1/content/uuid', detail: /is the uuid of the sample at A1 too/ }],
    );
    expectErrors(await refusedPlate(plateAttributes('not-a-uuid')), 422, [
      { pointer: '/data/attributes/wells/A1/content/uuid', detail: /must be a uuid \(8-4-4-4-12 hexadecimal digits\), got "not-a-uuid"/ },
    ]);
    const own = (await createSample()).attributes.uuid as string;
    expectErrors(await refusedPlate(plateAttributes(own)), 422, [
      { pointer: '/data/attributes/wells/A1/content/uuid', detail: new RegExp(`"${own}" has the form of this service's own uuids`) },
    ]);
  });

  it("finds a sample by a uuid that happens to decode as a slot of this service's labware (its holder part carries a family's code)", async () => {
    // Its last four digits read as a slot, and the rest as a tag layout template's uuid: about 1 random uuid in 1,070 is such.
    const lookalike = '7935b9d8-30d5-45b2-bdce-9e936ffb653e';
    expect((await plateOf(lookalike)).status).toBe(201);
    expect((await samplesByUuid(lookalike)).map((s) => s.attributes.uuid)).toEqual([lookalike]);
    // A later reception naming it as an existing sample finds it too.
    const again = await postPlate({ ...plateAttributes(undefined), wells: { A1: { content: { sample_uuid: lookalike } } } });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });

  it('50 receptions with distinct uuids all land, each found by its uuid; 2 with one uuid: one 201, one 422 naming it, the other plate not written', async () => {
    const uuids = Array.from({ length: 50 }, () => crypto.randomUUID());
    const distinct = await Promise.all(uuids.map((uuid) => plateOf(uuid)));
    expect(distinct.map((r) => r.status)).toEqual(Array(50).fill(201));
    const found = await samplesByUuid(...uuids);
    expect(found.map((s) => s.attributes.uuid).sort()).toEqual([...uuids].sort());

    const shared = crypto.randomUUID();
    const barcodes = [uniqueName('HU'), uniqueName('HU')];
    const both = await Promise.all(barcodes.map((barcode) => postPlate({ ...plateAttributes(shared), barcode })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 422]);
    const loser = both.findIndex((r) => r.status === 422);
    expect(both[loser]!.body.errors[0].detail).toContain(shared);
    expect((await call('GET', `/api/v2/plates?filter[barcode]=${barcodes[loser]}`)).body.data).toEqual([]);
    expect(await samplesByUuid(shared)).toHaveLength(1);
  });
});

describe('POST /api/v2/heron/tube_racks', () => {
  it('receives a rack of new tubes with their samples, and records it created', async () => {
    const barcode = uniqueName('HR');
    const res = await postRack({
      barcode,
      purpose_uuid: rackPurpose,
      study_uuid: study,
      tubes: { A01: { barcode: uniqueName('HT'), content: { supplier_name: 'T1' } }, B1: { barcode: uniqueName('HT'), purpose_uuid: tubePurpose } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes).toEqual({ uuid: expect.any(String), purpose_name: 'Tube Rack 96', study_names: ['Study A'] });
    const rack = await readBack(res, 'racked_tubes.tube.aliquots,racked_tubes.tube.purpose');
    const racked = (rack.included as any[]).filter((r) => r.type === 'racked_tubes');
    expect(racked.map((r) => r.attributes.coordinate).sort()).toEqual(['A1', 'B1']);
    const tubes = (rack.included as any[]).filter((r) => r.type === 'tubes');
    expect(tubes.map((t) => t.relationships.aliquots.data.length).sort()).toEqual([0, 1]);
    expect((rack.included as any[]).filter((r) => r.type === 'purposes').map((p) => p.attributes.name)).toEqual(['Stock Tube']);
    const statuses = (await call('GET', '/api/v2/tube_rack_statuses?page[size]=100')).body.data as any[];
    expect(statuses.filter((s) => s.attributes.barcode === barcode).map((s) => s.attributes.status)).toEqual(['created']);
    const types = (await outboxEvents()).filter((e) => e.resource.type === 'tube_racks' || e.resource.type === 'tube_rack_statuses').map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['tube_racks.created', 'tube_rack_statuses.created']));
  });

  it('refuses a rack without tubes, a tube without a barcode, a tube barcode in use and an unknown tube purpose, writing nothing', async () => {
    expectErrors(await refused('POST', '/api/v2/heron/tube_racks', body('tube_racks', { barcode: uniqueName('HR'), purpose_uuid: rackPurpose })), 422, [
      { pointer: '/data/attributes/tubes' },
    ]);
    const taken = uniqueName('HT');
    expect((await postRack({ barcode: uniqueName('HR'), purpose_uuid: rackPurpose, tubes: { A1: { barcode: taken } } })).status).toBe(201);
    expectErrors(
      await refused('POST', '/api/v2/heron/tube_racks', body('tube_racks', { barcode: uniqueName('HR'), purpose_uuid: rackPurpose, tubes: { A1: {} } })),
      422,
      [{ pointer: '/data/attributes/tubes/A1/barcode' }],
    );
    expectErrors(
      await refused(
        'POST',
        '/api/v2/heron/tube_racks',
        body('tube_racks', {
          barcode: uniqueName('HR'),
          purpose_uuid: rackPurpose,
          tubes: { A1: { barcode: taken }, B1: { barcode: uniqueName('HT'), purpose_uuid: platePurpose } },
        }),
      ),
      422,
      [{ pointer: '/data/attributes/tubes/A1/barcode', detail: /already/ }],
    );
    expectErrors(
      await refused(
        'POST',
        '/api/v2/heron/tube_racks',
        body('tube_racks', { barcode: uniqueName('HR'), purpose_uuid: rackPurpose, tubes: { B1: { barcode: uniqueName('HT'), purpose_uuid: platePurpose } } }),
      ),
      422,
      [{ pointer: '/data/attributes/tubes/B1/purpose_uuid', detail: /no tube_purposes/ }],
    );
  });

  it('50 racks at once on distinct barcodes all land; 50 of one rack barcode, exactly one', async () => {
    const rackOf = (barcode: string) =>
      postRack({ barcode, purpose_uuid: rackPurpose, study_uuid: study, tubes: { A1: { barcode: uniqueName('HT'), content: { supplier_name: 'x' } } } });
    const distinct = await Promise.all(Array.from({ length: 50 }, () => rackOf(uniqueName('HRD'))));
    expect(distinct.map((r) => r.status)).toEqual(Array(50).fill(201));
    const barcode = uniqueName('HRO');
    const shared = await Promise.all(Array.from({ length: 50 }, () => rackOf(barcode)));
    expect(shared.filter((r) => r.status === 201)).toHaveLength(1);
    expect(shared.every((r) => [201, 409, 422].includes(r.status))).toBe(true);
    expect((await call('GET', `/api/v2/tube_racks?filter[barcode]=${barcode}`)).body.data).toHaveLength(1);
  });
});

describe('POST /api/v2/heron/tube_rack_statuses', () => {
  const statusBody = (tube_rack: Record<string, unknown>) => body('tube_rack_statuses', { tube_rack_status: { tube_rack } });

  it('records a status, read back at /api/v2/tube_rack_statuses', async () => {
    const barcode = uniqueName('HSR');
    const res = await call('POST', '/api/v2/heron/tube_rack_statuses', {
      body: statusBody({ barcode, status: 'validation_failed', messages: ['Tube A1 is missing'] }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const got = await call('GET', `/api/v2/tube_rack_statuses/${res.body.data.id}`);
    expect(got.body.data.attributes).toMatchObject({ barcode, status: 'validation_failed', messages: ['Tube A1 is missing'] });
    expect((await outboxEvents()).some((e) => e.type === 'tube_rack_statuses.created' && e.resource.id === res.body.data.id)).toBe(true);
  });

  it('refuses a status without barcode, status or messages (the reference: "can\'t be blank"), writing nothing', async () => {
    const res = await refused('POST', '/api/v2/heron/tube_rack_statuses', statusBody({ barcode: '', status: '', messages: [] }));
    expect(res.status).toBe(422);
    expect([...new Set((res.body.errors as any[]).map((e) => e.source.pointer))].sort()).toEqual([
      '/data/attributes/tube_rack_status/tube_rack/barcode',
      '/data/attributes/tube_rack_status/tube_rack/messages',
      '/data/attributes/tube_rack_status/tube_rack/status',
    ]);
  });

  it('50 at once all land (statuses of one rack accumulate, as the reference keeps each)', async () => {
    const barcode = uniqueName('HSC');
    const all = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('POST', '/api/v2/heron/tube_rack_statuses', { body: statusBody({ barcode, status: 'created', messages: [`m${i}`] }) }),
      ),
    );
    expect(all.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(new Set(all.map((r) => r.body.data.id)).size).toBe(50);
  });
});
