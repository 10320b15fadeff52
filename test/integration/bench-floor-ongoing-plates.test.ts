import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRecord } from '#lib/store/records.ts';
import { call, doc, idOf, warmKeyCache } from '../support/api.ts';
import { purposeId } from '../support/fixtures.ts';
import { startFloor, type RunningFloor } from '../support/floor-server.ts';
import { adminUuid, submitWholePlates, uuidOf } from '../support/lab.ts';
import { LIMBER_ACCEPT_ENCODING, ongoingPlatesQuery, SEARCH_PER_PAGE } from '../support/limber.ts';
import { seedPlates, seedSamples } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';

/**
 * The bench's floor of Limber's ongoing-plates page (test/bench/floor/ongoing-plates.ts) is a floor only if
 * it answers what the service answers: page by page the same plates, the same includes rendered the same
 * way, the same links and count, gzip-encoded as Limber's client accepts it. The data is the ongoing-plates
 * test's (test/integration/limber-ongoing-plates.test.ts) at a smaller size, with a plate of the purpose that
 * has a child (Limber's search leaves used plates out) and a plate of another purpose (not searched).
 */
const SUBMITTED = 5;
const WELLS = 96;
const PURPOSE = 'Stock Plate';
const OPTIONS = { library_type: 'Standard', read_length: 150, fragment_size_required_from: '300', fragment_size_required_to: '500' };

let floorUrl: string;
let floor: RunningFloor;
let submitted: StoredRecord[];
/** The plates of the purpose the search reads, the used one among them. */
let ofPurpose: number;

beforeAll(async () => {
  const store = await freshStore();
  floor = await startFloor(store);
  floorUrl = floor.url;

  const [stock, other] = [Number(await purposeId('plate_purposes', PURPOSE)), Number(await purposeId('plate_purposes', 'Working Dilution'))];
  const study = Number(await idOf('studies', 'name', 'Study A'));
  const samples = await seedSamples((SUBMITTED + 2) * WELLS, 'floor-ongoing');
  const well = (offset: number) => (i: number, slot: number) => [{ sample: samples[(offset + i) * WELLS + slot - 1]!.id, study }];
  // The used plate is the third of the purpose, so that pages are cut around it.
  const plates = await seedPlates(SUBMITTED + 1, stock, 'FLOOR-ONGOING', WELLS, well(0));
  const used = plates.splice(2, 1)[0]!;
  submitted = plates;
  ofPurpose = SUBMITTED + 1;
  await seedPlates(1, other, 'FLOOR-OTHER', WELLS, well(SUBMITTED + 1));
  const user = await adminUuid();
  const child = await call('POST', '/api/v2/plate_creations', {
    body: doc('plate_creations', { child_purpose_uuid: await uuidOf('plate_purposes', 'name', 'Working Dilution'), parent_uuid: used.uuid, user_uuid: user }),
  });
  expect(child.status, JSON.stringify(child.body)).toBe(201);
  await submitWholePlates(submitted, WELLS, 'Library Creation - Illumina', OPTIONS);
});
afterAll(() => floor.close());

interface Page {
  body: any;
  calls: number;
  encoding: string | undefined;
}

/** A page as the bench compares it (test/bench/parity.ts): its base URL taken out, its included resources in one order. */
function normalized(page: Page, base: string): unknown {
  const body = JSON.parse(JSON.stringify(page.body).split(base).join(''));
  body.included.sort((a: any, b: any) => (a.type === b.type ? Number(a.id) - Number(b.id) : a.type < b.type ? -1 : 1));
  return body;
}

/** Limber's search walked by `links.next` on one side, gzip accepted as Limber's client accepts it. */
async function walk(get: (path: string) => Promise<Page>, base: string, perPage: number): Promise<Page[]> {
  const pages: Page[] = [];
  for (let path: string | undefined = `/api/v2/plates?${ongoingPlatesQuery([PURPOSE], 1, perPage)}`; path !== undefined; ) {
    const page = await get(path);
    pages.push(page);
    path = page.body.links.next?.slice(base.length);
  }
  return pages;
}

const viaService = async (path: string): Promise<Page> => {
  await warmKeyCache();
  const res = await call('GET', path, { headers: { 'accept-encoding': LIMBER_ACCEPT_ENCODING } });
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return { body: res.body, calls: res.calls, encoding: res.headers['Content-Encoding'] };
};

const viaFloor = async (path: string): Promise<Page> => {
  // fetch inflates the body; the header says how it came.
  const res = await fetch(`${floorUrl}${path}`, { headers: { 'Accept-Encoding': LIMBER_ACCEPT_ENCODING } });
  const text = await res.text();
  expect(res.status, text.slice(0, 500)).toBe(200);
  return { body: JSON.parse(text), calls: Number(res.headers.get('X-DynamoDB-Calls')), encoding: res.headers.get('Content-Encoding') ?? undefined };
};

/**
 * The floor's calls for a page of `kept` plates: the purpose by name, its plates by the lookup index, one
 * BatchGetItem of them and the purpose, a Query for a child of each, a Query for the request books of each
 * plate kept, one BatchGetItem of the books.
 */
const floorCalls = (kept: number) => 3 + ofPurpose + kept + 1;

async function bothWalks(perPage: number) {
  const [service, floor] = [await walk(viaService, 'https://lts.test', perPage), await walk(viaFloor, floorUrl, perPage)];
  return { service, floor };
}

describe("the bench floor of Limber's ongoing-plates page", () => {
  it("Limber's page of 30: the same document as the service's, gzip, the used plate and the other purpose's left out, one call fewer", async () => {
    const { service, floor } = await bothWalks(SEARCH_PER_PAGE);
    expect(service).toHaveLength(1);
    expect(floor).toHaveLength(1);
    expect(service[0]!.body.data.map((p: any) => p.id)).toEqual(submitted.map((p) => String(p.id)));
    expect(normalized(floor[0]!, floorUrl)).toEqual(normalized(service[0]!, 'https://lts.test'));
    // Each plate with its wells, their aliquots and the two requests out of each, and the purpose once.
    expect(floor[0]!.body.included).toHaveLength(1 + SUBMITTED * WELLS * 4);
    expect([service[0]!.encoding, floor[0]!.encoding]).toEqual(['gzip', 'gzip']);
    // The service reads the purpose after the plates (an include); the floor reads it with them.
    expect(floor[0]!.calls).toBe(floorCalls(SUBMITTED));
    expect(service[0]!.calls).toBe(floor[0]!.calls + 1);
  });

  it('pages of 2 walked by links.next: each page the same, with its prev, next and last links, the last page short', async () => {
    const { service, floor } = await bothWalks(2);
    expect(service.map((page) => page.body.data.length)).toEqual([2, 2, 1]);
    expect(floor.map((page) => normalized(page, floorUrl))).toEqual(service.map((page) => normalized(page, 'https://lts.test')));
    expect(floor.map((page) => page.calls)).toEqual([floorCalls(2), floorCalls(2), floorCalls(1)]);
    expect(service.map((page) => page.calls)).toEqual(floor.map((page) => page.calls + 1));
  });
});
