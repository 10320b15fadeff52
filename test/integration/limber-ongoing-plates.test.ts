import { beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_RESPONSE_BYTES } from '#lib/http/response-size.ts';
import { newRequestContext } from '#lib/jsonapi/context.ts';
import { parseIncludes, resolveIncludes } from '#lib/jsonapi/include.ts';
import { registry } from '#lib/resources/index.ts';
import { countCalls } from '#lib/store/client.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { call, idOf, warmKeyCache, type CallResult } from '../support/api.ts';
import { purposeId } from '../support/fixtures.ts';
import { submitWholePlates } from '../support/lab.ts';
import { LIMBER_ACCEPT_ENCODING, ongoingPlatesQuery, PLATE_DEFAULT_INCLUDES, SEARCH_PER_PAGE } from '../support/limber.ts';
import { pathOf } from '../support/responses.ts';
import { seedPlates, seedSamples } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';

/**
 * Limber's ongoing-plates search (sanger/limber app/controllers/search_controller.rb `ongoing_plates`,
 * test/support/limber.ts `ongoingPlatesQuery`) over 40 submitted 96-well plates (contract §7.2). A
 * submitted plate is what the lab's stock plates are once a submission is made on them: a sample in each
 * well (of a study), and an order from a submission template submitted with `and_submit`, which builds a
 * library and a sequencing request out of each well. With Plate::DEFAULT_INCLUDES each such plate brings
 * 384 resources (96 wells, 96 aliquots, 192 requests) and their purpose: ~0.84 MB of JSON, so 30 a page
 * are ~25 MB. Before pages were shortened, a page of 13 such plates passed the include count cap (5,000)
 * and was a 400; a page of 8 passed Lambda's 6 MB for a client that takes no gzip.
 *
 * The samples and plates are written straight into the table (test/support/seed.ts); the orders and
 * submissions are made through the API as Limber's SequencescapeSubmission makes them.
 */
const PLATES = 40;
const WELLS = 96;
const PURPOSE = 'Stock Plate';
const LIBRARY = 'Library Creation - Illumina';
const OPTIONS = { library_type: 'Standard', read_length: 150, fragment_size_required_from: '300', fragment_size_required_to: '500' };
/** Included resources of one submitted plate: its wells, their aliquots and their library and sequencing requests. */
const PER_PLATE = WELLS * 4;

let plates: StoredRecord[];

beforeAll(async () => {
  await freshStore();
  const purpose = Number(await purposeId('plate_purposes', PURPOSE));
  const study = Number(await idOf('studies', 'name', 'Study A'));
  const samples = await seedSamples(PLATES * WELLS, 'ongoing');
  plates = await seedPlates(PLATES, purpose, 'ONGOING', WELLS, (i, slot) => [{ sample: samples[i * WELLS + slot - 1]!.id, study }]);
  await submitWholePlates(plates, WELLS, LIBRARY, OPTIONS);
});

const search = (page: number, perPage = SEARCH_PER_PAGE) => `/api/v2/plates?${ongoingPlatesQuery([PURPOSE], page, perPage)}`;

/** Follows `links.next` from Limber's first page, checking each answer: 200, within Lambda's response, each plate complete. */
async function walk(headers: Record<string, string>): Promise<{ pages: CallResult[]; ids: string[] }> {
  const pages: CallResult[] = [];
  let path: string | undefined = search(1);
  // The first page's calls are compared: its key found in the cache, as a warm function finds it.
  await warmKeyCache();
  while (path) {
    const res = await call('GET', path, { headers });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.payloadBytes).toBeLessThanOrEqual(LAMBDA_RESPONSE_BYTES);
    expect(res.body.meta.record_count).toBe(PLATES);
    expectWholePlates(res);
    pages.push(res);
    path = res.body.links.next ? pathOf(res.body.links.next) : undefined;
  }
  return { pages, ids: pages.flatMap((res) => res.body.data.map((p: any) => p.id)) };
}

/** Each plate of a page with all it includes: every well, with its aliquot and its two requests, in `included`. */
function expectWholePlates(res: CallResult): void {
  const included = new Set((res.body.included ?? []).map((r: any) => `${r.type}:${r.id}`));
  for (const plate of res.body.data) {
    const wells = plate.relationships.wells.data;
    expect(wells).toHaveLength(WELLS);
    const missing = wells.filter((w: any) => !included.has(`wells:${w.id}`));
    expect(missing, `plate ${plate.id}`).toEqual([]);
  }
  const wells = (res.body.included ?? []).filter((r: any) => r.type === 'wells');
  for (const well of wells) {
    const linked = [...well.relationships.aliquots.data, ...well.relationships.requests_as_source.data];
    expect(linked).toHaveLength(3);
    expect(linked.filter((r: any) => !included.has(`${r.type}:${r.id}`))).toEqual([]);
  }
  expect(res.body.included).toHaveLength(1 + PER_PLATE * res.body.data.length);
}

const allPlates = () => plates.map((p) => String(p.id));

describe("Limber's ongoing plates, 40 submitted 96-well plates, 30 a page", () => {
  /** The first page as Limber gets it, whole. */
  let whole: CallResult | undefined;

  it('as Limber sends it (gzip accepted): every page 200 and within 6 MB compressed; links.next reaches every plate once', async () => {
    const { pages, ids } = await walk({ 'accept-encoding': LIMBER_ACCEPT_ENCODING });
    [whole] = pages;
    expect(ids).toEqual(allPlates());
    // 30 plates are ~25 MB of JSON, ~1.6 MB compressed: the page is whole.
    expect(pages.map((res) => res.body.data.length)).toEqual([SEARCH_PER_PAGE, PLATES - SEARCH_PER_PAGE]);
    for (const res of pages) {
      expect(res.headers['Content-Encoding']).toBe('gzip');
      expect(res.body.meta.page_shortened).toBeUndefined();
    }
    // Measured as Lambda returns it: the gzip body, base64, in the result (walk checks each page against the limit).
    expect(pages[0]!.payloadBytes).toBeLessThan(LAMBDA_RESPONSE_BYTES / 2);
  });

  it('to a client that takes no gzip: pages shortened to what 6 MB hold, each plate whole, links.next by cursor reaches every plate once', async () => {
    const { pages, ids } = await walk({});
    expect(ids).toEqual(allPlates());
    const sizes = pages.map((res) => res.body.data.length);
    // ~0.84 MB a plate: seven fit 6 MB.
    expect(sizes.slice(0, -1).every((n) => n === sizes[0])).toBe(true);
    expect(sizes[0]).toBeLessThan(SEARCH_PER_PAGE);
    for (const res of pages.slice(0, -1)) {
      expect(res.body.meta.page_shortened).toEqual({ records: sizes[0], page_size: SEARCH_PER_PAGE, limit: 'response_size' });
      expect(decodeURIComponent(res.body.links.next)).toContain('page[cursor]=');
    }
    // Another plate would not have fitted: the page holds all the bytes it can, less than one plate.
    const plate = pages[0]!.payloadBytes! / sizes[0]!;
    expect(pages[0]!.payloadBytes! + plate).toBeGreaterThan(LAMBDA_RESPONSE_BYTES);
    // A shortened page reads what the whole one does (the includes of the 30 plates asked for), in the same calls.
    expect(whole, 'the first page as Limber gets it (the test before)').toBeDefined();
    expect(pages[0]!.calls).toBe(whole!.calls);
  });

  it('page numbers still count whole pages (Limber asks for its pages by number): page 2 holds plates 31 to 40', async () => {
    const second = await call('GET', search(2), { headers: { 'accept-encoding': LIMBER_ACCEPT_ENCODING } });
    expect(second.body.data.map((p: any) => p.id)).toEqual(allPlates().slice(SEARCH_PER_PAGE));
    expect(decodeURIComponent(second.body.links.last)).toContain('page[number]=2');
  });
});

describe('a page that fits, as before', () => {
  /** DynamoDB calls of Limber's search at 2 a page, measured on the engine before pages were shortened (the include count cap's). */
  const CALLS_BEFORE = 47;

  it('the same calls, page-number links without a cursor, no meta but the count, each plate as it is read alone', async () => {
    await warmKeyCache();
    const res = await call('GET', search(1, 2));
    expect(res.status).toBe(200);
    expect(res.calls).toBe(CALLS_BEFORE);
    expect(res.body.meta).toEqual({ record_count: PLATES });
    const links = Object.fromEntries(
      Object.entries(res.body.links).map(([name, url]) => [name, decodeURIComponent(url as string).replace(/^.*?&page/, 'page')]),
    );
    expect(links).toEqual({ first: 'page[number]=1&page[size]=2', next: 'page[number]=2&page[size]=2', last: `page[number]=${PLATES / 2}&page[size]=2` });
    expect(res.body.data.map((p: any) => p.id)).toEqual(allPlates().slice(0, 2));
    // Each plate and what it includes as its own GET renders them: the page is their union, the shared purpose once.
    const alone = await Promise.all(
      res.body.data.map((p: any) =>
        call(
          'GET',
          `/api/v2/plates/${p.id}?${search(1)
            .split('&')
            .find((q) => q.startsWith('include='))}`,
        ),
      ),
    );
    expect(res.body.data).toEqual(alone.map((one) => one.body.data));
    const union = new Map(alone.flatMap((one) => one.body.included.map((r: any) => [`${r.type}:${r.id}`, r])));
    expect(res.body.included).toHaveLength(union.size);
    for (const resource of res.body.included) expect(resource).toEqual(union.get(`${resource.type}:${resource.id}`));
  });
});

describe("the reads' budget shortens a page the same way", () => {
  /**
   * The walk of Limber's includes over the 40 plates with a budget of a few items. Each plate's includes
   * need one item read: the index entry of its request book (its requests are read with it); its wells
   * and aliquots are in its own item, its requests' primer panels and its aliquots' requests are none. The
   * first plate's also need their purpose.
   */
  const walkWith = async (budget: number) => {
    const ctx = newRequestContext(registry, { baseUrl: 'https://lts.test', requestId: 'budget', apiKey: null });
    const loaded = await ctx.loader.load(plates.map((p) => ({ type: 'plates', id: p.id })));
    const primary = plates.map((p) => loaded.get(`plates:${p.id}`)!);
    const tree = parseIncludes(registry, ['plates'], PLATE_DEFAULT_INCLUDES);
    const { counts, result } = countCalls(() => resolveIncludes(ctx, primary, tree, budget));
    return { walk: await result, counts };
  };

  it('keeps the plates whose reads fit, and reads no request book for the plates past them (but the three read at once)', async () => {
    const budget = 10;
    const { walk, counts } = await walkWith(budget);
    const fit = budget - 1;
    expect(walk.resolved).toBe(fit);
    // One Query per plate's request books, four at once: those under way when the budget ran out are the only ones past it.
    expect(counts.Query).toBeGreaterThanOrEqual(fit + 1);
    expect(counts.Query).toBeLessThanOrEqual(fit + 4);
    const requests = [...walk.included].filter(([record, { root }]) => record.type === 'requests' && root < walk.resolved);
    expect(requests).toHaveLength(fit * WELLS * 2);
  });

  it('a first plate whose includes alone would pass it is a 400 naming the include and the budget', async () => {
    await expect(walkWith(1)).rejects.toMatchObject({
      status: 400,
      errors: [
        expect.objectContaining({
          code: 'include_too_large',
          source: { parameter: 'include' },
          detail: expect.stringMatching(/^include "wells\.requests_as_source" of plates \d+ would read more than the 1 items one request may read/),
        }),
      ],
    });
  });
});
