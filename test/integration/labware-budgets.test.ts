import { beforeAll, describe, expect, it } from 'vitest';
import { storeErrorToJsonApi } from '#lib/jsonapi/store-errors.ts';
import { externalBarcode } from '#lib/domain/barcode.ts';
import {
  ITEM_SIZE_LIMIT,
  LARGE_WRITE_ITEM_LIMIT,
  MAX_ALIQUOTS_PER_RECEPTACLE,
  PLATE_SIZES,
  TRANSACTION_ITEM_LIMIT,
  TRANSACTION_SIZE_LIMIT,
} from '#lib/domain/budgets.ts';
import { emptyReceptacle, type Aliquot, type Labware, type Receptacle } from '#lib/domain/labware.ts';
import { loadReferenceData, ReferenceDataError } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { countCalls, totalCalls } from '#lib/store/client.ts';
import { readCounts } from '#lib/store/counts.ts';
import { TooLargeError } from '#lib/store/errors.ts';
import { getRecords, type StoredRecord } from '#lib/store/records.ts';
import { clearReferenceCache } from '#lib/store/reference-records.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { call, doc, idOf, warmKeyCache } from '../support/api.ts';
import { direct } from '../support/engine.ts';
import { addAliquot, aliquotDoc, createSample, createTube, purposeId } from '../support/fixtures.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { expectError } from '../support/responses.ts';
import { seedRecords, seedSamples } from '../support/seed.ts';
import { columnOrder } from '../support/oracles.ts';
import { refused, tableSnapshot } from '../support/table.ts';
import { freshStore } from '../support/store.ts';

/**
 * The budgets the labware model is designed for (issue 3, architecture "Data in DynamoDB"):
 * (a) DynamoDB calls: creating a 384-well plate is one transaction, and reading it with
 *     include=wells.aliquots.sample.sample_metadata costs the plate's read plus one batched read per
 *     include level that leaves the plate (⌈distinct samples / 100⌉ BatchGetItem calls each) — wells and
 *     aliquots live inside the plate item and cost nothing more, however many wells are filled;
 * (b) item size: the fullest realistic aggregate (a tube pooled from four 384-well plates: 1,536 tagged
 *     aliquots) fits well under the item limit, and a record past the limit is a clear 422 that writes nothing;
 * (c) the pool budget (lib/domain/budgets.ts) at its edge through POST aliquots;
 * (d) a rack of 96 tubes below and above the bytes of one transaction (one transaction, then one write of
 *     several), and a write past the bound of one request;
 * (e) the largest plate.
 */

beforeAll(freshStore);

let plate384: string;
let studyA: string;

beforeAll(async () => {
  plate384 = await idOf('plate_purposes', 'name', 'Stock Plate 384');
  studyA = await idOf('studies', 'name', 'Study A');
});

// First, while the table is small: its check compares a scan of the whole table before and after.
describe(`(e) the largest plate is ${PLATE_SIZES.at(-1)} wells`, () => {
  it('a 1536-well plate purpose does not load; nothing is written', async () => {
    const before = await tableSnapshot();
    const loading = loadReferenceData(registry, { plate_purposes: [{ name: 'Stock Plate 1536', barcode_prefix: 'DN', size: 1536 }] });
    await expect(loading).rejects.toBeInstanceOf(ReferenceDataError);
    await expect(loading).rejects.toThrow(`plate_purposes[0].size: must be one of ${PLATE_SIZES.join(', ')} (got 1536)`);
    expect(await tableSnapshot()).toEqual(before);
  });
});

const batches = (n: number) => Math.ceil(n / 100);

/** Column order on a 384 plate (16 rows × 24 columns): A1, B1, … P1, A2, … */
const position384 = (slot: number) => `${String.fromCharCode(65 + ((slot - 1) % 16))}${Math.floor((slot - 1) / 16) + 1}`;

/**
 * Samples (each with its metadata record) written straight into the table: what is measured here is the
 * plate's reads, and 384 samples through the API took a minute on a loaded machine (each advances the one
 * samples counter, so they had to go one at a time).
 */
let seededSamples = 0;
const newSamples = async (n: number): Promise<string[]> => (await seedSamples(n, `budget-${seededSamples++}`)).map((sample) => String(sample.id));

async function loadLabware(id: string | number): Promise<StoredRecord> {
  const found = await getRecords([{ family: 'labware', id: Number(id) }]);
  const record = found.get(`labware:${id}`);
  expect(record).toBeDefined();
  return record!;
}

describe('(a) call budget of a 384-well plate', () => {
  let plateId: string;
  let samples: string[];

  it('creating a 384-well plate is one TransactWriteItems and a small constant number of calls', async () => {
    // The purpose not yet kept by this process (lib/store/reference-records.ts): its read counts.
    clearReferenceCache();
    const { response, document, counts } = await direct(
      'POST',
      '/api/v2/plates',
      doc('plates', {}, { purpose: { data: { type: 'plate_purposes', id: plate384 } } }),
    );
    expect(response.status, response.body).toBe(201);
    plateId = document.data.id;
    expect(document.data.attributes).toMatchObject({ size: 384, number_of_rows: 16, number_of_columns: 24 });
    // Observed: the purpose (BatchGetItem), the labware id and the barcode number (an atomic ADD each, in parallel), the commit.
    expect(counts).toEqual({ BatchGetItem: 1, UpdateItem: 2, TransactWriteItems: 1 });

    // Through the HTTP handler, the API key lookup and the purpose cached: 3 calls (5 with both caches cold).
    await warmKeyCache();
    const res = await call('POST', '/api/v2/plates', { body: doc('plates', {}, { purpose: { data: { type: 'plate_purposes', id: plate384 } } }) });
    expect(res.status).toBe(201);
    expect(res.calls).toBe(3);

    const wells = await call('GET', `/api/v2/plates/${plateId}/wells?page[size]=500`);
    expect(wells.body.meta.record_count).toBe(384);
    expect(wells.body.data.map((w: any) => w.attributes.position.name)).toEqual(Array.from({ length: 384 }, (_, i) => position384(i + 1)));
  });

  it('include=wells.aliquots.sample.sample_metadata: 10 wells filled → 1 plate + 1 + 1 calls (key lookup cached)', async () => {
    samples = await newSamples(10);
    for (let slot = 1; slot <= 10; slot++) {
      await addAliquot({ type: 'wells', id: String(Number(plateId) * 1000 + slot) }, samples[slot - 1]!, { study: studyA });
    }
    const path = `/api/v2/plates/${plateId}?include=wells.aliquots.sample.sample_metadata`;
    await warmKeyCache();
    const res = await call('GET', path);
    expect(res.status).toBe(200);
    const included = res.body.included as any[];
    const count = (type: string) => included.filter((r) => r.type === type).length;
    expect([count('wells'), count('aliquots'), count('samples'), count('sample_metadata')]).toEqual([384, 10, 10, 10]);
    // Observed: 3 = BatchGetItem (plate) + ⌈10/100⌉ (samples) + ⌈10/100⌉ (sample_metadata).
    expect(res.calls).toBe(1 + batches(10) + batches(10));
    const { counts } = await direct('GET', path);
    expect(counts).toEqual({ BatchGetItem: 1 + batches(10) + batches(10) });
  });

  it('include=wells.aliquots.sample.sample_metadata: all 384 wells filled → 1 plate + 4 + 4 calls (key lookup cached)', async () => {
    await warmKeyCache();
    const wellsOnly = await call('GET', `/api/v2/plates/${plateId}?include=wells.aliquots`);
    samples.push(...(await newSamples(374)));
    expect(new Set(samples).size).toBe(384);
    // Fill the other 374 wells in one write of the plate, as the aliquots resource stores them.
    const plate = await loadLabware(plateId);
    const receptacles = (plate.attrs.receptacles as Receptacle[]).map((receptacle, i) =>
      i < 10
        ? receptacle
        : { ...receptacle, aliquots: [{ n: i + 1, sample: Number(samples[i]), study: Number(studyA), tag: null, tag2: null, library_type: null }] },
    );
    const uow = new UnitOfWork(registry, new Date().toISOString());
    uow.update(plate, { attrs: { receptacles, aliquotCount: 384 } });
    await uow.commit();

    const path = `/api/v2/plates/${plateId}?include=wells.aliquots.sample.sample_metadata`;
    await warmKeyCache();
    const res = await call('GET', path);
    expect(res.status).toBe(200);
    const included = res.body.included as any[];
    const count = (type: string) => included.filter((r) => r.type === type).length;
    expect([count('wells'), count('aliquots'), count('samples'), count('sample_metadata')]).toEqual([384, 384, 384, 384]);
    expect(new Set(included.map((r) => `${r.type}:${r.id}`)).size).toBe(included.length);
    const well = included.find((r) => r.type === 'wells' && r.attributes.position.name === 'P24');
    expect(well.relationships.aliquots.data).toHaveLength(1);
    const aliquot = included.find((r) => r.type === 'aliquots' && r.id === well.relationships.aliquots.data[0].id);
    expect(aliquot.relationships.sample.data).toEqual({ type: 'samples', id: samples[383] });
    const sample = included.find((r) => r.type === 'samples' && r.id === samples[383]);
    expect(sample.relationships.sample_metadata.data.type).toBe('sample_metadata');
    expect(included.some((r) => r.type === 'sample_metadata' && r.id === sample.relationships.sample_metadata.data.id)).toBe(true);

    // Observed: 9 = BatchGetItem (plate) + ⌈384/100⌉ = 4 (samples) + 4 (sample_metadata).
    expect(res.calls).toBe(1 + batches(384) + batches(384));
    const { counts } = await direct('GET', path);
    expect(counts).toEqual({ BatchGetItem: 1 + batches(384) + batches(384) });

    // The plate, its wells and their aliquots are one item: the same 1 call with 10 or 384 wells filled.
    await warmKeyCache();
    const filled = await call('GET', `/api/v2/plates/${plateId}?include=wells.aliquots`);
    expect(filled.body.included).toHaveLength(384 + 384);
    expect(wellsOnly.calls).toBe(1);
    expect(filled.calls).toBe(wellsOnly.calls);
    const empty = await call('POST', '/api/v2/plates', { body: doc('plates', {}, { purpose: { data: { type: 'plate_purposes', id: plate384 } } }) });
    await warmKeyCache();
    expect((await call('GET', `/api/v2/plates/${empty.body.data.id}?include=wells.aliquots`)).calls).toBe(1);
  });
});

const BASES = 'ACGT';
/** A 10-base oligo (the longest of the 8–10 of real index tags), distinct per index. */
const oligo = (index: number, salt: number) => Array.from({ length: 10 }, (_, i) => BASES[(Math.floor(index / 4 ** (i % 5)) + salt * i) % 4]).join('');
/**
 * Aliquots of a tube pooled from four 384-well plates: each its own sample (8-digit ids, larger than any
 * this test table holds, to measure conservatively), a study, i7/i5 tags of 10 bases with their indexes.
 */
const pooled = (count: number): Aliquot[] =>
  Array.from({ length: count }, (_, i) => ({
    n: i + 1,
    sample: 10_000_000 + i,
    study: Number(studyA),
    tag: { oligo: oligo(i % 384, 1), index: (i % 384) + 1 },
    tag2: { oligo: oligo(Math.floor(i / 384), 3), index: Math.floor(i / 384) + 1 },
    library_type: 'Standard',
  }));

describe('(b) item size of the fullest realistic aggregate', () => {
  let tubeId: string;

  it('a tube of 1,536 aliquots fits with a wide margin, commits, and reads back with include=aliquots', async () => {
    tubeId = (await createTube()).id;
    const tube = await loadLabware(tubeId);
    const emptySize = Buffer.byteLength(JSON.stringify(tube));

    const uow = new UnitOfWork(registry, new Date().toISOString());
    const after = uow.update(tube, { attrs: { receptacles: [{ ...emptyReceptacle(), aliquots: pooled(1536) }], aliquotCount: 1536 } });
    const size = Buffer.byteLength(JSON.stringify(after));
    // Measured (JSON bytes, the measure UnitOfWork checks): the empty tube record 565 bytes; with 1,536
    // aliquots 223,237 bytes (145 bytes an aliquot), 59 % of ITEM_SIZE_LIMIT (380,000): the limit leaves
    // room for ~2,600 such aliquots. DynamoDB's own measure of the same item is smaller (~175 KB by its
    // sizing rules; a 2,600-aliquot record of 378 KB JSON ≈ 296 KB also commits to DynamoDB Local).
    expect(emptySize).toBeLessThan(1_000);
    expect(size).toBeGreaterThan(210_000);
    expect(size).toBeLessThan(235_000);
    expect(size).toBeLessThan(ITEM_SIZE_LIMIT * 0.65);
    await uow.commit();

    const stored = await loadLabware(tubeId);
    expect(stored.version).toBe(tube.version + 1);
    expect((stored.attrs.receptacles as Receptacle[])[0]!.aliquots).toHaveLength(1536);

    await warmKeyCache();
    const res = await call('GET', `/api/v2/tubes/${tubeId}?include=aliquots`);
    expect(res.status).toBe(200);
    expect(res.body.data.relationships.aliquots.data).toHaveLength(1536);
    const aliquots = (res.body.included as any[]).filter((r) => r.type === 'aliquots');
    expect(aliquots).toHaveLength(1536);
    expect(new Set(aliquots.map((a) => a.id)).size).toBe(1536);
    const last = aliquots.find((a) => a.id === String(Number(tubeId) * 1_000_000 + 1536));
    expect(last.attributes).toEqual({
      tag_oligo: oligo(1535 % 384, 1),
      tag_index: (1535 % 384) + 1,
      tag2_oligo: oligo(3, 3),
      tag2_index: 4,
      library_type: 'Standard',
      insert_size_to: null,
    });
    expect(last.relationships.sample.links.related).toBe(`https://lts.test/api/v2/aliquots/${last.id}/sample`);
    // One read of the tube item serves all 1,536 (BatchGetItem tube; the key lookup is cached).
    expect(res.calls).toBe(1);
  });

  it('a record past the limit (6,000 aliquots) → 422 too_large naming the record and the limit; nothing is written', async () => {
    const tube = await loadLabware(tubeId);
    const countsBefore = await readCounts('labware');
    const aliquotsBefore = (await call('GET', '/api/v2/aliquots?page[size]=1')).body.meta.record_count;

    const uow = new UnitOfWork(registry, new Date().toISOString());
    const after = uow.update(tube, { attrs: { receptacles: [{ ...emptyReceptacle(), aliquots: pooled(6000) }], aliquotCount: 6000 } });
    const size = Buffer.byteLength(JSON.stringify(after));
    // Measured: 876,229 bytes, 2.3 times the limit.
    expect(size).toBeGreaterThan(ITEM_SIZE_LIMIT);

    const { counts, result } = countCalls(() => uow.commit());
    const error = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    // The store says what happened in its terms; the one mapping makes it the client's 422.
    expect(error).toBeInstanceOf(TooLargeError);
    const apiError = storeErrorToJsonApi(error)!;
    expect(apiError.status).toBe(422);
    expect(apiError.errors).toHaveLength(1);
    expect(apiError.errors[0]).toMatchObject({ status: '422', code: 'too_large', title: 'Too large' });
    expect(apiError.errors[0]!.detail).toContain(`tubes ${tubeId}`);
    expect(apiError.errors[0]!.detail).toContain(String(size));
    expect(apiError.errors[0]!.detail).toContain(String(ITEM_SIZE_LIMIT));
    // Refused before any write was sent.
    expect(counts.TransactWriteItems ?? 0).toBe(0);
    expect(totalCalls(counts)).toBeLessThanOrEqual(1);

    const unchanged = await loadLabware(tubeId);
    expect(unchanged).toEqual(tube);
    expect(await readCounts('labware')).toEqual(countsBefore);
    expect((await call('GET', '/api/v2/aliquots?page[size]=1')).body.meta.record_count).toBe(aliquotsBefore);
    expect((await call('GET', `/api/v2/tubes/${tubeId}/aliquots?page[size]=1`)).body.meta.record_count).toBe(1536);
  });
});

/** A tube holding a pool of `count` tagged aliquots, written straight into the table. */
const seedPooledTubes = async (n: number, count: number): Promise<StoredRecord[]> => {
  const purpose = Number(await purposeId('tube_purposes', 'Stock Tube'));
  return seedRecords('tubes', n, (i) => {
    const attrs: Labware = {
      name: null,
      barcode: externalBarcode(`POOL-${count}-${i}-${Math.random()}`),
      state: 'pending',
      receptacles: [{ ...emptyReceptacle(), aliquots: pooled(count) }],
      aliquotCount: count,
      rackSlot: null,
    };
    return {
      attrs: attrs as unknown as Record<string, unknown>,
      rels: { purpose: { type: 'tube_purposes', id: purpose }, parents: [], custom_metadatum_collection: null, tube_rack: null },
    };
  });
};

describe(`(c) the pool budget: a receptacle holds at most ${MAX_ALIQUOTS_PER_RECEPTACLE} aliquots`, () => {
  let sample: string;
  let full: StoredRecord;
  let almost: StoredRecord;

  beforeAll(async () => {
    sample = (await createSample()).id;
    full = (await seedPooledTubes(1, MAX_ALIQUOTS_PER_RECEPTACLE))[0]!;
    almost = (await seedPooledTubes(1, MAX_ALIQUOTS_PER_RECEPTACLE - 1))[0]!;
  });

  it('the last aliquot that fits is accepted', async () => {
    const res = await call('POST', '/api/v2/aliquots', { body: aliquotDoc({ type: 'receptacles', id: String(almost.id * 1000 + 1) }, sample) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await call('GET', `/api/v2/tubes/${almost.id}/aliquots?page[size]=1`)).body.meta.record_count).toBe(MAX_ALIQUOTS_PER_RECEPTACLE);
  });

  it('one more → 422 too_large at the receptacle, naming the budget and the count; nothing is written', async () => {
    const res = await refused('POST', '/api/v2/aliquots', aliquotDoc({ type: 'receptacles', id: String(full.id * 1000 + 1) }, sample));
    const error = expectError(res, 422, 'too_large', '/data/relationships/receptacle');
    expect(error.detail).toBe(
      `receptacle - receptacles ${full.id * 1000 + 1} would hold ${MAX_ALIQUOTS_PER_RECEPTACLE + 1} aliquots; a receptacle holds at most ${MAX_ALIQUOTS_PER_RECEPTACLE} (the largest pool)`,
    );
  });
});

describe(`(d) one transaction (${TRANSACTION_ITEM_LIMIT} items, ${TRANSACTION_SIZE_LIMIT} bytes), several, and the bound of one request`, () => {
  /** Measured: a tube with 250 tagged aliquots is ~36 KB, with 300 ~44 KB; 96 of them ~3.5 MB and ~4.2 MB. */
  const rack = (tubes: StoredRecord[]) =>
    doc(
      'tube_racks',
      { size: 96, tube_locations: Object.fromEntries(tubes.map((t, i) => [columnOrder(8, 12)[i]!, { uuid: t.uuid }])) },
      { purpose: { data: { type: 'tube_rack_purposes', id: rack96 } } },
    );
  let rack96: string;
  let lighter: StoredRecord[];
  let heavier: StoredRecord[];

  beforeAll(async () => {
    rack96 = await purposeId('tube_rack_purposes', 'Tube Rack 96');
    lighter = await seedPooledTubes(96, 250);
    heavier = await seedPooledTubes(96, 300);
  });

  it('a rack of 96 tubes whose items come to ~3.5 MB: with its 97 audit entries past 100 items, so several transactions', async () => {
    const size = lighter.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0);
    expect(size).toBeGreaterThan(3_300_000);
    expect(size).toBeLessThan(TRANSACTION_SIZE_LIMIT);
    const { result, transactions } = await observeCalls(() => direct('POST', '/api/v2/tube_racks', rack(lighter)));
    expect(result.response.status, result.response.body?.slice(0, 500)).toBe(201);
    // The rack, 96 tubes, its barcode guard, a count shard, the request item: 100; and an audit entry for the rack and each tube (docs/decisions.md, "Audit trail").
    expect(transactions.length).toBeGreaterThan(1);
  });

  it(`past ${TRANSACTION_SIZE_LIMIT} bytes (96 tubes of ~44 KB): several transactions, still one write; every tube in the rack`, async () => {
    const size = heavier.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0);
    expect(size).toBeGreaterThan(TRANSACTION_SIZE_LIMIT);
    const { result, transactions } = await observeCalls(() => direct('POST', '/api/v2/tube_racks', rack(heavier)));
    expect(result.response.status, result.response.body?.slice(0, 500)).toBe(201);
    expect(transactions.length).toBeGreaterThan(1);
    const racked = (await call('GET', `/api/v2/tube_racks/${result.document.data.id}/racked_tubes?include=tube`)).body.data;
    expect(racked.map((r: any) => r.relationships.tube.data.id).sort()).toEqual(heavier.map((t) => String(t.id)).sort());
  });

  it(`past ${LARGE_WRITE_ITEM_LIMIT} records and index entries → 422 too_large naming the count and the bound; nothing is sent`, async () => {
    const uow = new UnitOfWork(registry, new Date().toISOString());
    // Samples with their names: a record and a name guard each, ids given, so nothing is reserved either.
    const first = 900_000_000;
    for (let i = 0; i <= LARGE_WRITE_ITEM_LIMIT / 2; i++)
      await uow.create('samples', { id: first + i, attrs: { name: `bound-${i}` }, rels: { studies: [], component_samples: [] } });
    const { counts, result } = countCalls(() => uow.commit());
    const error = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TooLargeError);
    const problem = storeErrorToJsonApi(error)?.errors[0];
    expect(problem).toMatchObject({ code: 'too_large', source: { pointer: '/data' } });
    expect(problem?.detail).toMatch(
      new RegExp(`^this request would write \\d+ records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}$`),
    );
    expect(Number(/write (\d+) records/.exec(problem!.detail)![1])).toBeGreaterThan(LARGE_WRITE_ITEM_LIMIT);
    expect(totalCalls(counts)).toBe(0);
  });
});
