import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf, warmKeyCache } from '../support/api.ts';
import { inBatches, createSample as newSample, rels } from '../support/fixtures.ts';
import { presentedPlate } from '../support/lab.ts';
import { PLATE_PRESENTER_INCLUDES, PRESENTER_FIELDS, limberInclude } from '../support/limber.ts';
import { freshStore } from '../support/store.ts';

/**
 * The DynamoDB cost of a request (X-DynamoDB-Calls, counted per SDK command) must not grow with the data:
 * reads are batched per include level, counts come from counters, pages from one index query. The API key
 * lookup is cached (warmed before each measurement), so it is not part of these budgets.
 */

let studyA: string;
let studyB: string;
let created = 0;

const studyLinks = (...ids: string[]) => ({ studies: rels('studies', ids) });

/** A sample in the given studies; its id. */
const createSample = async (studies: string[]): Promise<string> => (await newSample({}, studyLinks(...studies))).id;

beforeAll(async () => {
  await freshStore();
  studyA = await idOf('studies', 'name', 'Study A');
  studyB = await idOf('studies', 'name', 'Study B');
});

describe('DynamoDB call budget', () => {
  it('GET /api/v2/samples?include=studies costs the same for 3 samples as for 63', async () => {
    for (let i = 0; i < 3; i++) await createSample(i % 2 === 0 ? [studyA] : [studyA, studyB]);
    await warmKeyCache();
    const small = await call('GET', '/api/v2/samples?include=studies');
    expect(small.status).toBe(200);
    expect(small.body.data).toHaveLength(3);
    expect(small.body.meta.record_count).toBe(3);
    expect(small.body.included.map((r: { id: string }) => r.id).sort()).toEqual([studyA, studyB].sort());

    await inBatches(60, 10, (i) => createSample(i % 2 === 0 ? [studyA] : [studyA, studyB]));
    await warmKeyCache();
    const large = await call('GET', '/api/v2/samples?include=studies');
    expect(large.status).toBe(200);
    expect(large.body.data).toHaveLength(63);
    expect(large.body.meta.record_count).toBe(63);
    expect(large.body.included).toHaveLength(2);

    expect(large.calls).toBe(small.calls);
    // Observed budget: 3 calls (Query 1, BatchGetItem 2) —
    //   1 Query     the page's records from the projected listing index (limit page size + 1)
    //   1 BatchGet  the samples counter's shards that hold the record count (meta.record_count), read in parallel with the page
    //   1 BatchGet  the studies named by the page's `studies` linkage (one batch for the include level)
    expect(small.calls).toBeLessThanOrEqual(3);
    expect(small.calls).toBeGreaterThan(0);
  });

  it('GET /api/v2/samples/{id}?include=studies,sample_metadata costs the same for 1 study as for 2', async () => {
    const one = await createSample([studyA]);
    const two = await createSample([studyA, studyB]);
    await warmKeyCache();
    const a = await call('GET', `/api/v2/samples/${one}?include=studies,sample_metadata`);
    const b = await call('GET', `/api/v2/samples/${two}?include=studies,sample_metadata`);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.included).toHaveLength(2); // 1 study + its metadata
    expect(b.body.included).toHaveLength(3); // 2 studies + its metadata
    expect(b.calls).toBe(a.calls);
    // Observed budget: 2 calls (BatchGetItem 2) — the sample (BatchGet of one key), and one BatchGet for
    // both included relationships together (studies and sample_metadata are one include level), however
    // many studies the sample has.
    expect(a.calls).toBeLessThanOrEqual(2);
  });

  it('POST /api/v2/samples of one sample stays within its budget, whatever the number of studies', async () => {
    created += 1;
    await warmKeyCache();
    const first = await call('POST', '/api/v2/samples', { body: doc('samples', { name: `budget-${created}` }, studyLinks(studyA)) });
    created += 1;
    const second = await call('POST', '/api/v2/samples', { body: doc('samples', { name: `budget-${created}` }, studyLinks(studyA, studyB)) });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.calls).toBe(first.calls);
    // Observed budget: 4 calls (UpdateItem 2, BatchGetItem 1, TransactWriteItems 1) —
    //   1 BatchGet           the linked studies (resolving the relationship linkage, one batch)
    //   2 UpdateItem         the id reservations of the two families created (samples, and sample_metadata
    //                        for the sample's empty metadata record), atomic ADDs outside the transaction
    //   1 TransactWriteItems the whole write: both records, their index terms, count shards, outbox events
    expect(first.calls).toBeLessThanOrEqual(4);
  });

  it('an item GET is one call, and an unfiltered page of 100 two (counts, the records from the projected index), however many records there are', async () => {
    const id = await createSample([]);
    await inBatches(110, 10, () => createSample([]));
    await warmKeyCache();
    const item = await call('GET', `/api/v2/samples/${id}`);
    expect(item.status).toBe(200);
    expect(item.calls).toBe(1);
    const page = await call('GET', '/api/v2/samples?page[size]=100');
    expect(page.body.data).toHaveLength(100);
    expect(page.calls).toBe(2);
    // The next page through its cursor costs the same.
    const next = await call('GET', page.body.links.next.slice('https://lts.test'.length));
    expect(next.calls).toBe(2);
  });

  it("Limber's plate page (PLATE_PRESENTER_INCLUDES, 8 levels allowed) costs the same for 2 filled wells as for 16, two generations below the stock", async () => {
    /** The grandchild's page of a stock plate of `perPool` × 2 samples in two submissions' pools, stamped twice. */
    const page = async (perPool: number) => {
      const { grandchild } = await presentedPlate(perPool);
      await warmKeyCache();
      // v2.rb (sanger/limber), plate_for_presenter, whole: `wells.aliquots.request.poly_metadata` is one Query per request book (poly metadata
      // are indexed under their metadatable's aggregate, a request's is its book: docs/decisions.md, "Requests that move together are stored together").
      const include = limberInclude(PLATE_PRESENTER_INCLUDES);
      const res = await call('GET', `/api/v2/plates?filter[uuid]=${grandchild.attributes.uuid}&include=${include}&${PRESENTER_FIELDS}`);
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
      expect(res.body.included.filter((r: any) => r.type === 'requests')).toHaveLength(perPool * 2);
      expect(res.body.included.filter((r: any) => r.type === 'submissions')).toHaveLength(2);
      return res.calls;
    };
    const small = await page(1);
    const large = await page(8);
    expect(large).toBe(small);
    // One call or a few per include level (a Query per submission for its lanes), never one per well.
    expect(small).toBeLessThanOrEqual(20);
  });
});
