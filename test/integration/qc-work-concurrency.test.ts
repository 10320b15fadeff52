import { beforeAll, describe, expect, it } from 'vitest';
import { slotId } from '#lib/domain/labware-ids.ts';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, createSample, rel } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * The writes of the QC and work-tracking types from 20 clients at once on distinct records: every one
 * succeeds (none waits on or conflicts with another; conflicts on one record are tested with each type).
 */
const CLIENTS = 20;

let lot: string;
let requestType: string;
let plates: any[];

beforeAll(async () => {
  await freshStore();
  lot = await idOf('lots', 'lot_number', 'LOT-0001');
  requestType = await idOf('request_types', 'key', 'library_creation');
  plates = [];
  for (let i = 0; i < CLIENTS; i++) plates.push(await createPlate());
});

const all = (make: (i: number) => Promise<{ status: number; body: any }>) => Promise.all(Array.from({ length: CLIENTS }, (_, i) => make(i)));
const ids = (results: { body: any }[]) => new Set(results.map((r) => r.body.data.id));

describe(`${CLIENTS} clients at once, each on its own record`, () => {
  it('qcables on distinct plates, then qc assays on them: every write 201', async () => {
    const qcables = await all((i) =>
      call('POST', '/api/v2/qcables', { body: doc('qcables', {}, { labware: rel('plates', plates[i].id), lot: rel('lots', lot) }) }),
    );
    expect(qcables.map((r) => r.status)).toEqual(Array(CLIENTS).fill(201));
    expect(ids(qcables).size).toBe(CLIENTS);
    const assays = await all((i) =>
      call('POST', '/api/v2/qc_assays', {
        body: doc('qc_assays', {
          lot_number: `KIT-${i}`,
          qc_results: [{ uuid: plates[i].attributes.uuid, well_location: 'A1', key: 'molarity', value: String(i), units: 'nM' }],
        }),
      }),
    );
    expect(assays.map((r) => r.status)).toEqual(Array(CLIENTS).fill(201));
    expect(ids(assays).size).toBe(CLIENTS);
  });

  it('requests out of wells of distinct plates, and poly metadata on distinct samples: every write 201', async () => {
    const requests = await all((i) =>
      call('POST', '/api/v2/requests', {
        body: doc('requests', {}, { request_type: rel('request_types', requestType), asset: rel('wells', slotId(Number(plates[i].id), 1)) }),
      }),
    );
    expect(requests.map((r) => r.status)).toEqual(Array(CLIENTS).fill(201));
    expect(ids(requests).size).toBe(CLIENTS);
    const samples = await Promise.all(Array.from({ length: CLIENTS }, () => createSample()));
    const metadata = await all((i) =>
      call('POST', '/api/v2/poly_metadata', { body: doc('poly_metadata', { key: 'robot', value: `r${i}` }, { metadatable: rel('samples', samples[i].id) }) }),
    );
    expect(metadata.map((r) => r.status)).toEqual(Array(CLIENTS).fill(201));
    expect(ids(metadata).size).toBe(CLIENTS);
  });
});
