import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILTER_VALUES, MAX_IN_MEMORY } from '#lib/jsonapi/filters.ts';
import { LAMBDA_RESPONSE_BYTES } from '#lib/http/response-size.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { call } from '../support/api.ts';
import { purposeId } from '../support/fixtures.ts';
import { expectError, idsOf, pathOf } from '../support/responses.ts';
import { seedFullPlates, seedRecords } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';

/**
 * Listings past DynamoDB's limits: thousands of records written straight into the table (test/support/seed.ts),
 * read back through the real handlers. A DynamoDB Query returns at most 1 MB per call (DynamoDB Local counts
 * whole items toward it), so a page must keep reading until it is full.
 */
const SAMPLES = 10_000;
let seeded: StoredRecord[];

/** Follows `links.next` from a first page; returns every id seen, in order, and the number of pages. */
async function walk(first: string): Promise<{ ids: string[]; pages: number; counts: Set<number> }> {
  const ids: string[] = [];
  const counts = new Set<number>();
  let path: string | undefined = first;
  let pages = 0;
  while (path) {
    const res = await call('GET', path);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    ids.push(...idsOf(res));
    counts.add(res.body.meta.record_count);
    pages++;
    path = res.body.links.next ? pathOf(res.body.links.next) : undefined;
  }
  return { ids, pages, counts };
}

beforeAll(async () => {
  await freshStore();
  // One in three samples shares the site_sample_id SHARED (3,334 of them): a filter that matches thousands.
  // (No names: a name is a guard item each, which would double the seeding for nothing this file tests.)
  seeded = await seedRecords('samples', SAMPLES, (i) => ({
    attrs: i % 3 === 0 ? { site_sample_id: 'SHARED' } : {},
    rels: { sample_metadata: null, studies: [], component_samples: [] },
  }));
});

describe('10,000 samples', () => {
  it('a deep bare page is full and exact: page[number]=100&page[size]=100 holds records 9,901–10,000', async () => {
    const res = await call('GET', '/api/v2/samples?page[number]=100&page[size]=100');
    expect(res.status).toBe(200);
    expect(res.body.meta.record_count).toBe(SAMPLES);
    expect(idsOf(res)).toEqual(seeded.slice(9_900).map((r) => String(r.id)));
    expect(res.body.links.next).toBeUndefined();
    expect(res.body.links.last).toContain('page%5Bnumber%5D=100');
  });

  it('walking links.next returns every record exactly once, in id order, at a constant cost per page', async () => {
    const { ids, pages, counts } = await walk('/api/v2/samples?page[size]=500');
    expect(pages).toBe(SAMPLES / 500);
    expect(ids).toEqual(seeded.map((r) => String(r.id)));
    expect([...counts]).toEqual([SAMPLES]);
    // A page deep in the walk costs what the first does: counts, one Query, the records.
    const middle = await call('GET', '/api/v2/samples?page[size]=500');
    const deep = await call('GET', pathOf((await call('GET', pathOf(middle.body.links.next))).body.links.next));
    expect(deep.calls).toBeLessThanOrEqual(middle.calls);
  });

  it('a filtered walk (3,334 matches) returns each match exactly once with an exact record_count, reading in proportion to the page', async () => {
    const expected = seeded.filter((_, i) => i % 3 === 0).map((r) => String(r.id));
    const first = await call('GET', '/api/v2/samples?filter[site_sample_id]=SHARED&page[size]=100');
    expect(first.body.meta.record_count).toBe(expected.length);
    const { ids, pages, counts } = await walk('/api/v2/samples?filter[site_sample_id]=SHARED&page[size]=100');
    expect(ids).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 100));
    expect([...counts]).toEqual([expected.length]);
    // Later pages carry the count in their cursor: a page costs its reads, not a count of the matches.
    const second = await call('GET', pathOf(first.body.links.next));
    expect(second.calls).toBeLessThan(first.calls);
    // A bare deep page of the filter is exact too.
    const last = await call('GET', `/api/v2/samples?filter[site_sample_id]=SHARED&page[size]=100&page[number]=${pages}`);
    expect(idsOf(last)).toEqual(expected.slice((pages - 1) * 100));
  });

  it('a broad filter with sort=updated_at, which no index orders, is refused past the in-memory bound (400 naming it)', async () => {
    const res = await call('GET', '/api/v2/samples?filter[site_sample_id]=SHARED&sort=-updated_at');
    const error = expectError(res, 400, 'invalid_parameter');
    expect(error.source).toEqual({ parameter: 'filter[site_sample_id]' });
    expect(error.detail).toContain(String(MAX_IN_MEMORY));
    expect(error.detail).toContain('updated_at');
  });

  it('filter values are de-duplicated and capped; filter[uuid] resolves hundreds of uuids in a few batched reads', async () => {
    const uuids = seeded.slice(0, MAX_FILTER_VALUES).map((r) => r.uuid);
    const res = await call('GET', `/api/v2/samples?filter[uuid]=${[...uuids, ...uuids].join(',')}&page[size]=500`);
    expect(res.status).toBe(200);
    expect(res.body.meta.record_count).toBe(MAX_FILTER_VALUES);
    // The key, then the records in batches of 100 — never one call per uuid.
    expect(res.calls).toBeLessThanOrEqual(1 + Math.ceil(MAX_FILTER_VALUES / 100));
    const tooMany = [...uuids, ...seeded.slice(MAX_FILTER_VALUES, MAX_FILTER_VALUES + 1).map((r) => r.uuid)];
    const refused = await call('GET', `/api/v2/samples?filter[uuid]=${tooMany.join(',')}`);
    expect(expectError(refused, 400, 'invalid_parameter').source).toEqual({ parameter: 'filter[uuid]' });
  });
});

describe('150 fully filled 384-well plates', () => {
  let plates: StoredRecord[];

  beforeAll(async () => {
    const purpose = Number(await purposeId('plate_purposes', 'Stock Plate 384'));
    plates = await seedFullPlates(150, purpose, seeded[0]!.id, 'SEEDPLATE');
  });

  it('/plates?page[size]=100 returns 100 plates, though they fill many 1 MB Query pages', async () => {
    const res = await call('GET', '/api/v2/plates?page[size]=100');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(100);
    expect(idsOf(res)).toEqual(plates.slice(0, 100).map((p) => String(p.id)));
    const rest = await call('GET', pathOf(res.body.links.next));
    expect(idsOf(rest)).toEqual(plates.slice(100).map((p) => String(p.id)));
  });

  it('the purpose filter pages by cursor with a kept count', async () => {
    const { ids, counts } = await walk('/api/v2/plates?filter[purpose_name]=Stock Plate 384&page[size]=40&sort=-updated_at');
    expect(new Set(ids).size).toBe(150);
    expect([...counts]).toEqual([150]);
  });

  it('a page whose includes are large is shortened to what one response holds; links.next continues from the first plate left out', async () => {
    const res = await call('GET', '/api/v2/plates?page[size]=20&include=wells.aliquots.sample');
    expect(res.status).toBe(200);
    expect(res.payloadBytes).toBeLessThanOrEqual(LAMBDA_RESPONSE_BYTES);
    const kept = res.body.data.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(20);
    expect(idsOf(res)).toEqual(plates.slice(0, kept).map((p) => String(p.id)));
    expect(res.body.meta).toEqual({ record_count: 150, page_shortened: { records: kept, page_size: 20, limit: 'response_size' } });
    // Each plate whole: its 384 wells, their aliquots, the one sample they share.
    expect(res.body.included).toHaveLength(kept * 384 * 2 + 1);
    const next = await call('GET', pathOf(res.body.links.next));
    expect(idsOf(next)[0]).toBe(String(plates[kept]!.id));
    // Asked for as clients do, gzip: 10 plates × 384 wells = 3,840 included wells, an ~11 MB body, is whole.
    const fits = await call('GET', '/api/v2/plates?page[size]=10&include=wells', { headers: { 'accept-encoding': 'gzip' } });
    expect(fits.status).toBe(200);
    expect(fits.body.included).toHaveLength(3_840);
    expect(fits.body.meta).toEqual({ record_count: 150 });
  });
});
