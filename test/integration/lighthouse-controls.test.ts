import { beforeAll, expect, it } from 'vitest';
import { call } from '../support/api.ts';
import { addAliquot, createPlate, createSample } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * sanger/lighthouse's control look-up (lighthouse/helpers/plates.py): get_from_ss_plates_samples_info sends
 * GET {SS_URL}/api/v2/labware with params filter[barcode] and include=purpose,receptacles.aliquots.sample;
 * convert_json_response_into_dict reads the purpose among `included` by type `purposes`
 * (lighthouse/constants/jsonapi.py, JS_PURPOSES), and ControlLocations finds the wells (type `wells`, their
 * `position.name` and `aliquots` linkage), their aliquots' `sample` linkage and each sample's `control` and
 * `control_type`.
 */
let plate: any;
let purposeName: string;

beforeAll(async () => {
  await freshStore();
  plate = await createPlate();
  purposeName = (await call('GET', `/api/v2/plates/${plate.id}/purpose`)).body.data.attributes.name;
  const well = (slot: number) => ({ type: 'wells', id: String(Number(plate.id) * 1000 + slot) });
  const positive = await createSample({ control: true, control_type: 'pcr positive' });
  const negative = await createSample({ control: true, control_type: 'pcr negative' });
  const plain = await createSample();
  // A1, B1, C1 in column order.
  await addAliquot(well(1), positive.id);
  await addAliquot(well(2), negative.id);
  await addAliquot(well(3), plain.id);
});

/** ControlLocations.get_control_locations, as lighthouse computes it from the document. */
function controlLocations(included: any[]): Record<string, string> {
  const of = (type: string) => included.filter((e) => e.type === type);
  const controlOf = (sampleId: string) => {
    const sample = of('samples').find((s) => s.id === sampleId);
    return sample.attributes.control === true ? sample.attributes.control_type : null;
  };
  const locations: Record<string, string> = {};
  for (const well of of('wells')) {
    const ids = well.relationships.aliquots.data.map((a: any) => a.id);
    const types = of('aliquots')
      .filter((a) => ids.includes(a.id))
      .map((a) => controlOf(a.relationships.sample.data.id))
      .filter((t) => t !== null);
    if (types.length === 1) locations[well.attributes.position.name] = types[0];
  }
  return locations;
}

it("finds a plate's purpose and its positive and negative controls as lighthouse reads them", async () => {
  const barcode = plate.attributes.labware_barcode.human_barcode;
  const res = await call('GET', `/api/v2/labware?filter[barcode]=${barcode}&include=purpose,receptacles.aliquots.sample`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toHaveLength(1);
  const included = res.body.included;
  // purposes[0].attributes.name: under `plate_purposes` lighthouse found no purpose and failed with an IndexError.
  const purposes = included.filter((e: any) => e.type === 'purposes');
  expect(purposes.map((p: any) => p.attributes.name)).toEqual([purposeName]);
  expect(included.filter((e: any) => e.type === 'samples')).toHaveLength(3);
  expect(controlLocations(included)).toEqual({ A1: 'pcr positive', B1: 'pcr negative' });
});
