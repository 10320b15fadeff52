import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadReferenceData } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { getRecords, recordKey } from '#lib/store/records.ts';
import { clearReferenceCache, REFERENCE_CACHE_TTL_MS, referenceCacheSize } from '#lib/store/reference-records.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { call, doc, idOf, warmKeyCache } from '../support/api.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/**
 * Writes take reference records from the process's cache (lib/store/reference-records.ts): a write that
 * links one read in the last minute reads it no more; a change made by another process (the admin
 * command line) reaches writes here within the TTL, one made by this process's loader at once; missing
 * records are never kept, and reads (GET) always read the table. Time is moved with fake timers (Date
 * only), never by waiting.
 */

let purpose: string;

beforeAll(async () => {
  await freshStore();
  await loadReferenceData(registry, { plate_purposes: [{ name: 'Cache Purpose', size: 96, barcode_prefix: 'CA' }] });
  purpose = await idOf('plate_purposes', 'name', 'Cache Purpose');
});

afterEach(() => {
  vi.useRealTimers();
});

/** A plate of the purpose: the response, with the barcode it was given from the purpose's prefix. */
async function newPlate(purposeId = purpose) {
  await warmKeyCache();
  return call('POST', '/api/v2/plates', { body: doc('plates', {}, { purpose: { data: { type: 'plate_purposes', id: purposeId } } }) });
}
const barcodeOf = (res: { body: any }) => String(res.body.data.attributes.labware_barcode?.human_barcode ?? res.body.data.attributes.barcode);

/** Changes the purpose's prefix in the table, as the admin loader run by another process does (nothing forgotten here). */
async function changePrefixElsewhere(prefix: string): Promise<void> {
  const family = registry.familyOf('plate_purposes');
  const current = (await getRecords([{ family, id: Number(purpose) }])).get(recordKey(family, Number(purpose)))!;
  const uow = new UnitOfWork(registry, new Date().toISOString());
  uow.update(current, { attrs: { ...current.attrs, barcode_prefix: prefix }, rels: current.rels });
  await uow.commit();
}

describe('reference records kept by the process for writes', () => {
  it('a write linking a reference record read in the last minute reads it no more: one DynamoDB call fewer', async () => {
    clearReferenceCache();
    const cold = await newPlate();
    expect(cold.status).toBe(201);
    expect(referenceCacheSize()).toBe(1);
    const warm = await newPlate();
    expect(warm.status).toBe(201);
    expect(warm.calls).toBe(cold.calls - 1);
    expect(barcodeOf(warm)).toMatch(/^CA/);
  });

  it("sees another process's change within the TTL, and reads always see it at once", async () => {
    expect(barcodeOf(await newPlate())).toMatch(/^CA/);
    await changePrefixElsewhere('CB');
    // A read is never served from the cache.
    expect((await call('GET', `/api/v2/plate_purposes/${purpose}`)).body.data.attributes.barcode_prefix).toBe('CB');
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + REFERENCE_CACHE_TTL_MS - 5_000 });
    expect(barcodeOf(await newPlate())).toMatch(/^CA/);
    vi.setSystemTime(Date.now() + 5_000);
    expect(barcodeOf(await newPlate())).toMatch(/^CB/);
  });

  it("sees this process's loader's change at once", async () => {
    expect(barcodeOf(await newPlate())).toMatch(/^CB/);
    const report = await loadReferenceData(registry, { plate_purposes: [{ name: 'Cache Purpose', size: 96, barcode_prefix: 'CC' }] });
    expect(report.updated).toBe(1);
    expect(barcodeOf(await newPlate())).toMatch(/^CC/);
  });

  it('never keeps a missing record: one loaded after a 404 is found at once', async () => {
    const missing = String(Number(purpose) + 1);
    for (let i = 0; i < 2; i++) expectError(await newPlate(missing), 404, 'record_not_found', '/data/relationships/purpose/data');
    await loadReferenceData(registry, { plate_purposes: [{ name: 'Cache Purpose 2', size: 96, barcode_prefix: 'CD' }] });
    expect(await idOf('plate_purposes', 'name', 'Cache Purpose 2')).toBe(missing);
    const res = await newPlate(missing);
    expect(res.status).toBe(201);
    expect(barcodeOf(res)).toMatch(/^CD/);
  });

  it('keeps only reference data, whose records the API never changes (purposes it may create, with an admin key)', () => {
    for (const def of registry.types.map((type) => registry.require(type))) {
      if (!registry.holdsReferenceData(registry.familyOf(def.type))) continue;
      expect(
        def.methods.filter((method) => method !== 'create'),
        def.type,
      ).toEqual(['list', 'read']);
    }
    expect(registry.holdsReferenceData(registry.familyOf('studies'))).toBe(true);
    expect(registry.holdsReferenceData(registry.familyOf('samples'))).toBe(false);
    expect(registry.holdsReferenceData(registry.familyOf('plates'))).toBe(false);
  });
});
