import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_QC_RESULTS_PER_ASSAY, QC_TEXT_MAX } from '#lib/domain/budgets.ts';
import { externalBarcode } from '#lib/domain/barcode.ts';
import { columnOrder, layoutForSize } from '#lib/domain/geometry.ts';
import { call, warmKeyCache } from '../support/api.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { direct } from '../support/engine.ts';
import { createPlate, createRack, createTube, purposeId, uniqueName } from '../support/fixtures.ts';
import { expectError } from '../support/responses.ts';
import { seedTubes } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { refused } from '../support/table.ts';

/**
 * qc_assays and qc_results (contract §2, reference-behaviour §2.13, client-usage §1.13): POST with entries
 * naming labware by uuid or barcode (any form), optionally a well; the legacy body shapes; all or nothing,
 * each problem at its entry's member; results stored in their labware, so a plate-reader upload is one
 * transaction and reading a plate's wells with their results costs the plate's read.
 */

beforeAll(freshStore);

const WELLS_96 = columnOrder(layoutForSize(96)!);

/** A POST body as clients send it: `type` as given (`undefined` leaves it out, as plate readers do). */
const body = (attributes: Record<string, unknown>, type: string | undefined = 'qc_assays') => ({
  data: { ...(type === undefined ? {} : { type }), attributes },
});
const post = (attributes: Record<string, unknown>, type?: string) => call('POST', '/api/v2/qc_assays', { body: body(attributes, type) });
const result = (extra: Record<string, unknown>) => ({ key: 'concentration', value: '12.3', units: 'ng/ul', ...extra });

async function created(attributes: Record<string, unknown>, type?: string): Promise<any> {
  const res = await post(attributes, type);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** The results of an assay, as `include=qc_results` renders them, in the order sent. */
async function resultsOf(assayId: string): Promise<any[]> {
  const res = await call('GET', `/api/v2/qc_assays/${assayId}?include=qc_results.asset,qc_results.qc_assay`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const included = new Map((res.body.included ?? []).map((r: any) => [`${r.type}/${r.id}`, r]));
  return res.body.data.relationships.qc_results.data.map((l: any) => included.get(`${l.type}/${l.id}`));
}

let plate: any;
let tube: any;

beforeAll(async () => {
  [plate, tube] = await Promise.all([createPlate(), createTube()]);
});

describe('POST qc_assays', () => {
  it('records results by uuid: in a well, on a tube (its receptacle) and on a plate as a whole, with every field', async () => {
    const sent = Date.now();
    const assay = await created({
      lot_number: 'KIT-1',
      qc_results: [
        result({ uuid: plate.attributes.uuid, well_location: 'B3', cv: '4.1', assay_type: 'ISC', assay_version: 'v1.0', id: 'ignored' }),
        { uuid: tube.attributes.uuid, key: 'molarity', value: 3.5, units: 'nM', cv: 0, assay_type: 'qPCR', assay_version: 'manual' },
        result({ uuid: plate.attributes.uuid.toUpperCase(), key: 'volume', value: '50', units: 'ul' }),
      ],
    });
    expect(assay.attributes).toMatchObject({ lot_number: 'KIT-1' });
    // The response lists the results it created, in the order sent, as stored (values as text, labware by uuid).
    expect(assay.attributes.qc_results).toEqual([
      {
        uuid: plate.attributes.uuid,
        well_location: 'B3',
        key: 'concentration',
        value: '12.3',
        units: 'ng/ul',
        cv: '4.1',
        assay_type: 'ISC',
        assay_version: 'v1.0',
      },
      { uuid: tube.attributes.uuid, key: 'molarity', value: '3.5', units: 'nM', cv: '0', assay_type: 'qPCR', assay_version: 'manual' },
      { uuid: plate.attributes.uuid, key: 'volume', value: '50', units: 'ul', cv: null, assay_type: null, assay_version: null },
    ]);
    // A read gives the results through the relationship (below), not the attribute.
    expect((await call('GET', `/api/v2/qc_assays/${assay.id}`)).body.data.attributes.qc_results).toBeNull();
    const [inWell, inTube, onPlate] = await resultsOf(assay.id);
    expect(inWell.attributes).toMatchObject({ key: 'concentration', value: '12.3', units: 'ng/ul', cv: '4.1', assay_type: 'ISC', assay_version: 'v1.0' });
    expect(inWell.relationships.asset.data).toEqual({ type: 'wells', id: String(Number(plate.id) * 1000 + 18) });
    expect(inWell.relationships.qc_assay.data).toEqual({ type: 'qc_assays', id: assay.id });
    expect(inTube.attributes).toMatchObject({ key: 'molarity', value: '3.5', units: 'nM', cv: '0', assay_type: 'qPCR', assay_version: 'manual' });
    expect(inTube.relationships.asset.data).toEqual({ type: 'receptacles', id: String(Number(tube.id) * 1000 + 1) });
    expect(onPlate.attributes).toMatchObject({ key: 'volume', cv: null, assay_type: null, assay_version: null });
    expect(onPlate.relationships.asset.data).toEqual({ type: 'plates', id: plate.id });
    expect(Date.parse(inWell.attributes.created_at)).toBeGreaterThanOrEqual(sent);

    // Read from the other side: the well, the tube's receptacle, the labware (everything in it), and by id.
    const well = await call('GET', `/api/v2/plates/${plate.id}?include=wells.qc_results`);
    const b3 = well.body.included.find((r: any) => r.type === 'wells' && r.attributes.position.name === 'B3');
    expect(b3.relationships.qc_results.data).toEqual([{ type: 'qc_results', id: inWell.id }]);
    const a1 = well.body.included.find((r: any) => r.type === 'wells' && r.attributes.position.name === 'A1');
    expect(a1.relationships.qc_results.data).toEqual([]);
    const plateResults = await call('GET', `/api/v2/plates/${plate.id}/relationships/qc_results`);
    expect(plateResults.body.data).toEqual([
      { type: 'qc_results', id: inWell.id },
      { type: 'qc_results', id: onPlate.id },
    ]);
    const tubeRead = await call('GET', `/api/v2/tubes/${tube.id}?include=receptacle.qc_results,qc_results`);
    expect(tubeRead.body.included.filter((r: any) => r.type === 'qc_results').map((r: any) => r.id)).toEqual([inTube.id]);
    const byId = await call('GET', `/api/v2/qc_results/${inTube.id}`);
    expect(byId.body.data.attributes.key).toBe('molarity');
    const list = await call('GET', '/api/v2/qc_results');
    expect(list.body.meta.record_count).toBe(3);
    expect(list.body.data.map((r: any) => r.id).sort()).toEqual([inWell.id, inTube.id, onPlate.id].sort());
    expect((await call('GET', '/api/v2/qc_assays')).body.data.map((r: any) => r.id)).toContain(assay.id);
  });

  it('finds labware by any form of its barcode, as plate readers name it (no `type` in the body)', async () => {
    const target = await createPlate();
    const { human_barcode, machine_barcode, ean13_barcode } = target.attributes.labware_barcode;
    const forms = [human_barcode, human_barcode.toLowerCase(), machine_barcode, ean13_barcode, ` ${human_barcode} `];
    const assay = await created({ lot_number: 'KIT-2', qc_results: forms.map((barcode, i) => result({ barcode, well_location: WELLS_96[i] })) }, undefined);
    const results = await resultsOf(assay.id);
    expect(results.map((r) => r.relationships.asset.data.id)).toEqual(forms.map((_, i) => String(Number(target.id) * 1000 + i + 1)));
  });

  it('finds labware given a barcode by the client, in any case', async () => {
    const labelled = await createTube(undefined, { barcode: 'QC-TUBE-1' });
    const assay = await created({ qc_results: [result({ barcode: 'qc-tube-1' })] });
    expect(assay.attributes.qc_results).toEqual([
      { uuid: labelled.attributes.uuid, key: 'concentration', value: '12.3', units: 'ng/ul', cv: null, assay_type: null, assay_version: null },
    ]);
    expect((await resultsOf(assay.id))[0].relationships.asset.data).toEqual({ type: 'receptacles', id: String(Number(labelled.id) * 1000 + 1) });
  });

  it('accepts the singular type `qc_assay`; `uuid` wins over `barcode`', async () => {
    const other = await createTube();
    const assay = await created({ qc_results: [result({ uuid: other.attributes.uuid, barcode: plate.attributes.labware_barcode.human_barcode })] }, 'qc_assay');
    expect((await resultsOf(assay.id))[0].relationships.asset.data.id).toBe(String(Number(other.id) * 1000 + 1));
  });

  it('an empty or missing qc_results → 201, an assay holding no results', async () => {
    for (const attributes of [{ lot_number: 'KIT-3', qc_results: [] }, { lot_number: 'KIT-4' }]) {
      const assay = await created(attributes);
      expect(assay.attributes.qc_results).toEqual([]);
      expect(await resultsOf(assay.id)).toEqual([]);
    }
  });

  it("replays quanthub's export: no type, an empty lot_number (its form's default), each replicate's fields; 201 and the lot number kept as sent", async () => {
    // sanger/quanthub src/components/Plate.vue exportToSequencescape: POST {base}/qc_assays, Content-Type application/vnd.api+json,
    // body {data: {attributes: this.json}}; json() is {lot_number: this.lotNumber (data() default ''), qc_results: each replicate's json()}.
    // src/Replicates.js json(): barcode, well_location, key, value, units, cv, assay_type, assay_version (the quant type's fields).
    const barcode = plate.attributes.labware_barcode.human_barcode;
    const replicate = (well: string, value: string) => ({
      barcode,
      well_location: well,
      key: 'Concentration',
      value,
      units: 'ng/ul',
      cv: '2.1',
      assay_type: 'Plate Reader',
      assay_version: 'v1.0',
    });
    const res = await call('POST', '/api/v2/qc_assays', {
      body: { data: { attributes: { lot_number: '', qc_results: [replicate('A1', '1.5'), replicate('B1', '2.5')] } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes.lot_number).toBe('');
    const read = await call('GET', `/api/v2/qc_assays/${res.body.data.id}`);
    expect(read.body.data.attributes.lot_number).toBe('');
    expect((await resultsOf(res.body.data.id)).map((r: any) => [r.attributes.key, r.attributes.value])).toEqual([
      ['Concentration', '1.5'],
      ['Concentration', '2.5'],
    ]);
  });

  it('PATCH → 405', async () => {
    const assay = await created({});
    const res = await refused('PATCH', `/api/v2/qc_assays/${assay.id}`, { data: { type: 'qc_assays', id: assay.id, attributes: { lot_number: 'X' } } });
    expect(res.status).toBe(405);
  });
});

describe('POST qc_assays refused: nothing written, each problem at its entry', () => {
  const send = (qcResults: unknown[], type?: string) => refused('POST', '/api/v2/qc_assays', body({ lot_number: 'BAD', qc_results: qcResults }, type));
  const at = (n: number, member: string) => `/data/attributes/qc_results/${n}/${member}`;

  it('another type → 409', async () => {
    expectError(await send([result({ uuid: plate.attributes.uuid })], 'plates'), 409, undefined, '/data/type');
  });

  it('unknown labware → 404 at the uuid or barcode, every such entry; a good entry beside them is not saved', async () => {
    const res = await send([
      result({ uuid: plate.attributes.uuid, well_location: 'A1' }),
      result({ uuid: '00000000-0000-4000-8000-000000000000' }),
      result({ barcode: 'NO-SUCH-BARCODE' }),
      result({ uuid: 'not-a-uuid' }),
    ]);
    expect(expectError(res, 404, 'record_not_found', at(1, 'uuid')).detail).toBe('qc_results - no labware with uuid "00000000-0000-4000-8000-000000000000"');
    expect(expectError(res, 404, 'record_not_found', at(2, 'barcode')).detail).toBe('qc_results - no labware with barcode "NO-SUCH-BARCODE"');
    expectError(res, 404, 'record_not_found', at(3, 'uuid'));
    expect(res.body.errors).toHaveLength(3);
  });

  it('an entry naming no labware → 422 at its uuid', async () => {
    const res = await send([result({ uuid: plate.attributes.uuid }), result({ well_location: 'A1' })]);
    expect(expectError(res, 422, 'required', at(1, 'uuid')).detail).toBe("qc_results.1.uuid or qc_results.1.barcode - can't be blank");
  });

  it('a well location not on the plate, or on a tube → 422 at well_location', async () => {
    const res = await send([result({ uuid: plate.attributes.uuid, well_location: 'I1' }), result({ uuid: tube.attributes.uuid, well_location: 'A1' })]);
    expect(expectError(res, 422, 'invalid_value', at(0, 'well_location')).detail).toBe(
      `qc_results - plates ${plate.id} has no well "I1" (a 96-well plate: A1 to H12)`,
    );
    expect(expectError(res, 422, 'invalid_value', at(1, 'well_location')).detail).toBe(`qc_results - tubes ${tube.id} is not a plate, so it has no well "A1"`);
  });

  it('a tube rack → 422 at the member naming it', async () => {
    const rack = await createRack();
    const res = await send([result({ barcode: rack.attributes.labware_barcode.human_barcode })]);
    expect(expectError(res, 422, 'invalid_value', at(0, 'barcode')).detail).toBe(
      `qc_results - tube_racks ${rack.id} is a tube rack: QC results go to its tubes`,
    );
  });

  it('missing or malformed fields → 422 at the field', async () => {
    const res = await send([
      { uuid: plate.attributes.uuid, value: '1', units: 'ul' },
      result({ uuid: plate.attributes.uuid, units: '' }),
      result({ uuid: plate.attributes.uuid, value: { n: 1 } }),
      result({ uuid: plate.attributes.uuid, assay_type: 'x'.repeat(QC_TEXT_MAX + 1) }),
      result({ uuid: 7 }),
    ]);
    for (const [n, member] of [
      [0, 'key'],
      [1, 'units'],
      [2, 'value'],
      [3, 'assay_type'],
      [4, 'uuid'],
    ] as const)
      expect(expectError(res, 422, undefined, at(n, member)).detail).toMatch(new RegExp(`^qc_results\\.${n}\\.${member} - `));
    expectError(await refused('POST', '/api/v2/qc_assays', body({ qc_results: 'all of them' })), 422, 'invalid_type', '/data/attributes/qc_results');
  });
});

describe('storage and call budgets', () => {
  it('a 96-well plate-reader upload is one transaction (the assay, one plate update, count shards, request item)', async () => {
    const reader = await createPlate();
    const barcode = reader.attributes.labware_barcode.machine_barcode;
    const qcResults = WELLS_96.map((well, i) =>
      result({ barcode, well_location: well, value: String(i), cv: '1.5', assay_type: 'ISC', assay_version: 'v1.0' }),
    );
    const { response, document, counts } = await direct('POST', '/api/v2/qc_assays', body({ lot_number: 'KIT-96', qc_results: qcResults }, undefined));
    expect(response.status, response.body).toBe(201);
    // The barcode guards (BatchGetItem), the plate (BatchGetItem), the assay id (UpdateItem), the commit.
    expect(counts).toEqual({ BatchGetItem: 2, UpdateItem: 1, TransactWriteItems: 1 });
    expect(document.data.relationships.qc_results).toBeDefined();

    // Reading the plate's 96 wells with their 96 results: the plate's read, nothing more.
    const path = `/api/v2/plates/${reader.id}?include=wells.qc_results`;
    const read = await direct('GET', path);
    expect(read.counts).toEqual({ BatchGetItem: 1 });
    const included = read.document.included as any[];
    expect(included.filter((r) => r.type === 'qc_results').map((r) => r.attributes.value)).toEqual(WELLS_96.map((_, i) => String(i)));
    await warmKeyCache();
    expect((await call('GET', path)).calls).toBe(1);
  });

  it('results in the tubes of two racks (192 labware, past the 96 one transaction holds): one write of several, every result in its tube', {
    timeout: 120_000,
  }, async () => {
    const purpose = Number(await purposeId('tube_purposes', 'Stock Tube'));
    const tubes = await seedTubes(192, purpose, () => ({ barcode: externalBarcode(uniqueName('QC')) }));
    const qcResults = tubes.map((t, i) => result({ uuid: t.uuid, value: String(i) }));
    const { result: res, transactions } = await observeCalls(() => post({ lot_number: 'KIT-192', qc_results: qcResults }));
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    // The assay and 192 tube updates: 193 records, past one transaction's 100 items.
    expect(transactions.length).toBeGreaterThan(1);
    const recorded = await resultsOf(res.body.data.id);
    expect(recorded.map((r) => [r.relationships.asset.data.id, r.attributes.value])).toEqual(tubes.map((t, i) => [String(t.id * 1000 + 1), String(i)]));
  });

  it(`more than ${MAX_QC_RESULTS_PER_ASSAY} results → 422 too_large at qc_results`, async () => {
    const qcResults = Array.from({ length: MAX_QC_RESULTS_PER_ASSAY + 1 }, () => result({ uuid: tube.attributes.uuid }));
    const res = await refused('POST', '/api/v2/qc_assays', body({ qc_results: qcResults }));
    expect(expectError(res, 422, 'too_large', '/data/attributes/qc_results').detail).toBe(
      `qc_results - ${MAX_QC_RESULTS_PER_ASSAY + 1} results; one QC assay records at most ${MAX_QC_RESULTS_PER_ASSAY}`,
    );
  });

  it('results that would take a labware record past its byte budget → 422 too_large naming it, at its first entry', async () => {
    const full = await createPlate();
    const long = 'x'.repeat(QC_TEXT_MAX);
    const big = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        result({
          uuid: full.attributes.uuid,
          well_location: WELLS_96[i % 96],
          key: long,
          units: long,
          assay_type: long,
          assay_version: long,
          value: long,
          cv: long,
        }),
      );
    // 160 such results (~1.6 KB each) fit; 240 more would not.
    await created({ qc_results: big(160) });
    const res = await refused('POST', '/api/v2/qc_assays', body({ qc_results: [result({ uuid: tube.attributes.uuid }), ...big(240)] }));
    expect(expectError(res, 422, 'too_large', '/data/attributes/qc_results/1/uuid').detail).toMatch(
      new RegExp(
        `^qc_results - plates ${full.id} would be \\d+ bytes with 240 more QC results \\(400 in all\\); a labware record may be at most 380000 bytes$`,
      ),
    );
  });
});
