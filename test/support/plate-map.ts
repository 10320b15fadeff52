import { expect } from 'vitest';
import { call, doc } from './api.ts';
import { createPlate } from './fixtures.ts';
import { adminUuid, filledPlate, postTransfer, templateUuid, uuidOf } from './lab.ts';
import { changeState } from './work.ts';

/**
 * Labware as a plate map shows it (test/integration/labware-page.test.ts, plate-map.test.ts and the README's
 * screenshot, `npm run docs:plate-map`): a dual-tagged plate between its parent and child, with wells in a
 * few states and QC results.
 */

/** Records QC results of a labware (of its wells when given) by its barcode, as a plate reader sends them. */
export async function recordQc(barcode: string, results: { well?: string; key: string; value: string; units: string }[]): Promise<void> {
  const qc_results = results.map(({ well, ...r }) => ({ barcode, ...(well ? { well_location: well } : {}), assay_type: 'ISC', assay_version: 'v1.0', ...r }));
  const res = await call('POST', '/api/v2/qc_assays', { body: doc('qc_assays', { lot_number: 'KIT-1', qc_results }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

export interface TaggedPlate {
  parent: any;
  plate: any;
  child: any;
  /** Sample names by well of `plate`. */
  names: Map<string, string>;
}

const barcode = (labware: any): string => labware.attributes.labware_barcode.human_barcode;

/**
 * A stock plate of `count` samples stamped into a new plate, which is dual-tagged (A1 tags i7 1 / i5 1, B1
 * 2 / 2, …), then stamped on into a child; the tagged plate's first column passed, A2 failed, B2 started
 * (by state changes, as a lab makes them: their transfer requests move), A1 and B1 with a concentration.
 */
export async function taggedPlate(count = 12): Promise<TaggedPlate> {
  const [user, stamp, dual] = await Promise.all([
    adminUuid(),
    templateUuid('Transfer columns 1-12'),
    uuidOf('tag_layout_templates', 'name', 'Test dual column'),
  ]);
  const { plate: parent, samples } = await filledPlate(count);
  // Not a stock plate: a stock plate is an input plate, whose state changes move no transfer request (reference §7.3).
  const [plate, child] = await Promise.all([createPlate('Working Dilution'), createPlate('Library Plate')]);
  const transfer = async (from: any, to: any) => {
    const res = await postTransfer({ template: stamp, source: from.attributes.uuid, destination: to.attributes.uuid, user });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await transfer(parent, plate);
  const tagged = await call('POST', '/api/v2/tag_layouts', {
    body: doc('tag_layouts', { user_uuid: user, plate_uuid: plate.attributes.uuid, tag_layout_template_uuid: dual, enforce_uniqueness: true }),
  });
  expect(tagged.status, JSON.stringify(tagged.body)).toBe(201);
  await transfer(plate, child);
  const firstColumn = ['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'G1', 'H1'];
  await changeState(plate, 'passed', { contents: firstColumn });
  await changeState(plate, 'failed', { contents: ['A2'], reason: 'Low yield' });
  await changeState(plate, 'started', { contents: ['B2'] });
  await recordQc(barcode(plate), [
    { well: 'A1', key: 'concentration', value: '12.3', units: 'ng/ul' },
    { well: 'B1', key: 'concentration', value: '11.9', units: 'ng/ul' },
  ]);
  const names = new Map<string, string>();
  for (const [well, id] of samples) names.set(well, (await call('GET', `/api/v2/samples/${id}`)).body.data.attributes.name);
  return { parent, plate, child, names };
}

export { barcode as barcodeOf };
