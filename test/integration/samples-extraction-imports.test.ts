import { beforeAll, describe, expect, it } from 'vitest';
import { call, idOf } from '../support/api.ts';
import { addAliquot, createPlate, createSample, uniqueName } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * sanger/samples_extraction's imports from API v2, as its client sends them (json_api_client: `where` →
 * filter, `includes` → include, `select` → fields[...]), and what it reads back. Its classes
 * (lib/sequencescape_client_v2.rb) are Labware, Plate, TubeRack, Purpose, Receptacle, Well, Tube, RackedTube,
 * Aliquot, Study, Sample, SampleMetadatum and Asset: json_api_client finds an included resource's class by its
 * type, classified, so a type with no class (`plate_purposes`: no PlatePurpose) crashed the import.
 */
const CLIENT_CLASSES = new Set([
  'labware',
  'plates',
  'tube_racks',
  'purposes',
  'receptacles',
  'wells',
  'tubes',
  'racked_tubes',
  'aliquots',
  'studies',
  'samples',
  'sample_metadata',
  'assets',
]);

/** lib/sequencescape_client.rb, SELECT_FOR_IMPORT and SequencescapeClient.labware's `select`. */
const SELECT_FOR_IMPORT = 'uuid,labware_barcode,receptacles,purpose';
const LABWARE_IMPORT_FIELDS = [
  `fields[tubes]=${SELECT_FOR_IMPORT}`,
  `fields[plates]=${SELECT_FOR_IMPORT}`,
  'fields[tube_racks]=uuid,labware_barcode,purpose',
  'fields[samples]=sanger_sample_id,uuid,name',
  'fields[sample_metadata]=supplier_name,sample_common_name',
  'fields[study]=name,uuid',
  'fields[purpose]=name',
].join('&');

let plate: any;
let sample: any;
let barcode: string;

beforeAll(async () => {
  await freshStore();
  plate = await createPlate();
  barcode = plate.attributes.labware_barcode.human_barcode;
  sample = await createSample({ sanger_sample_id: uniqueName('SE') });
  await addAliquot({ type: 'wells', id: String(Number(plate.id) * 1000 + 1) }, sample.id, { study: await idOf('studies', 'name', 'Study A') });
});

const includedOf = (body: any) => new Map<string, any>((body.included ?? []).map((r: any) => [`${r.type}/${r.id}`, r]));

describe("samples_extraction's imports", () => {
  it('SequencescapeClient.labware: the labware by barcode with its receptacles, samples, studies and purpose, in the fields it selects', async () => {
    // lib/sequencescape_client.rb, labware(conditions): Labware.includes('receptacles.aliquots.sample.sample_metadata,receptacles.aliquots.study,purpose').select(…).where(barcode:)
    const res = await call(
      'GET',
      `/api/v2/labware?filter[barcode]=${barcode}&include=receptacles.aliquots.sample.sample_metadata,receptacles.aliquots.study,purpose&${LABWARE_IMPORT_FIELDS}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [labware] = res.body.data;
    // Labware#sync? and #wells read the type; the fields asked for are all it has.
    expect(labware.type).toBe('plates');
    expect(Object.keys(labware.attributes).sort()).toEqual(['labware_barcode', 'uuid']);
    expect(Object.keys(labware.relationships).sort()).toEqual(['purpose', 'receptacles']);
    expect(labware.relationships.purpose.data).toEqual({ type: 'purposes', id: expect.any(String) });
    const included = includedOf(res.body);
    for (const type of new Set([...included.values()].map((r) => r.type))) expect(CLIENT_CLASSES, `a class for ${type}`).toContain(type);
    // fields[purpose] and fields[study]: the reference's singular names, taken as the plural.
    expect(included.get(`purposes/${labware.relationships.purpose.data.id}`).attributes).toEqual({ name: 'Stock Plate' });
    const [study] = [...included.values()].filter((r) => r.type === 'studies');
    expect(Object.keys(study.attributes).sort()).toEqual(['name', 'uuid']);
    const imported = included.get(`samples/${sample.id}`);
    expect(imported.attributes).toEqual({ sanger_sample_id: sample.attributes.sanger_sample_id, uuid: sample.attributes.uuid, name: sample.attributes.name });
  });

  it('SequencescapeClient.find_by: the plate by barcode with its wells, samples, studies and purpose', async () => {
    // lib/sequencescape_client.rb, find_by: Plate.includes('wells.aliquots.sample.sample_metadata,wells.aliquots.study,purpose').where(barcode:).first
    const res = await call('GET', `/api/v2/plates?filter[barcode]=${barcode}&include=wells.aliquots.sample.sample_metadata,wells.aliquots.study,purpose`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((r: any) => r.id)).toEqual([plate.id]);
    const included = includedOf(res.body);
    for (const type of new Set([...included.values()].map((r) => r.type))) expect(CLIENT_CLASSES, `a class for ${type}`).toContain(type);
    expect(included.get(`purposes/${res.body.data[0].relationships.purpose.data.id}`).attributes.name).toBe('Stock Plate');
    expect(included.get(`samples/${sample.id}`).attributes.sanger_sample_id).toBe(sample.attributes.sanger_sample_id);
  });

  it('a singular name of no type is refused at its fields parameter', async () => {
    const res = await call('GET', `/api/v2/plates?fields[plat]=uuid`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'fields[plat]' });
  });
});
