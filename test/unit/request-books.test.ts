import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ITEM_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { bookOfRequest, parseHeldUuid, REQUESTS_PER_BOOK, requestId } from '#lib/domain/labware-ids.ts';
import { changeBooked, hasRoom, MAX_REQUEST_GROWTH_BYTES, type BookedRequest, type RequestBook } from '#lib/domain/request-books.ts';
import { registry } from '#lib/resources/index.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/**
 * Request books (lib/domain/request-books.ts): what a page holds, how big a request is, where the 1,001st
 * request goes, and the requests a book renders (ids, uuids, counts) as the engine reads them.
 */

const NOW = Date.parse('2026-11-27T09:30:00.000Z');
const LARGEST_ID = 999_999_999_999;

/** A request as POST /requests makes it for a well of a stock plate: an order, a request type, 12-digit ids (the longest). */
const typical = (i: number): BookedRequest => ({
  state: 'pending',
  requestType: 12,
  asset: ['wells', LARGEST_ID - i],
  order: LARGEST_ID,
  created: NOW,
  updated: NOW,
});

/** The same request after everything that may later happen to it: metadata with the largest options, failed as the customer's responsibility, cancelled, moved on to a tube's receptacle, a million changes. */
const grown = (request: BookedRequest): BookedRequest => ({
  ...changeBooked(
    request,
    {
      state: 'cancelled',
      asset: ['receptacles', LARGEST_ID],
      target: ['receptacles', LARGEST_ID],
      metadata: LARGEST_ID,
      options: { number_of_pools: Number.MAX_SAFE_INTEGER, cells_per_chip_well: Number.MAX_SAFE_INTEGER, customer_accepts_responsibility: true },
    },
    NOW,
  ),
  version: 999_999,
});

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** The book record as the unit of work measures it (lib/store/write-plan.ts: the record's JSON). */
const bookRecord = (book: RequestBook, id = LARGEST_ID): StoredRecord => ({
  family: 'request_books',
  id,
  type: 'request_books',
  uuid: '0b1f6c2e-1d4a-4b8e-9f3a-5c7d8e9f0000',
  createdAt: new Date(NOW).toISOString(),
  updatedAt: new Date(NOW).toISOString(),
  version: 1,
  attrs: book as unknown as Record<string, unknown>,
  rels: {},
});

/** Fills a page as POST /requests does: one request after another while it has room. */
function fill(requests: (i: number) => BookedRequest, count: number): { pages: RequestBook[] } {
  const pages: RequestBook[] = [{ submission: LARGEST_ID, labware: LARGEST_ID, page: 1, requests: [] }];
  for (let i = 0; i < count; i++) {
    const request = requests(i);
    if (!hasRoom(pages.at(-1)!, request)) pages.push({ submission: LARGEST_ID, labware: LARGEST_ID, page: pages.length + 1, requests: [] });
    pages.at(-1)!.requests.push(request);
  }
  return { pages };
}

describe('a page of a request book', () => {
  it('a request is ~140 bytes as made and grows by at most MAX_REQUEST_GROWTH_BYTES (~230)', () => {
    const request = typical(0);
    expect(bytes(request)).toBeLessThan(140);
    expect(bytes(grown(request)) - bytes(request)).toBeLessThanOrEqual(MAX_REQUEST_GROWTH_BYTES);
    expect(MAX_REQUEST_GROWTH_BYTES).toBeLessThan(230);
  });

  it('holds 1,000 requests: the 1,001st of one (submission, labware) starts page 2', () => {
    const { pages } = fill(typical, REQUESTS_PER_BOOK + 1);
    expect(pages.map((p) => p.requests.length)).toEqual([REQUESTS_PER_BOOK, 1]);
  });

  it('stays inside ITEM_SIZE_LIMIT when every one of its 1,000 requests has grown as far as it can', () => {
    const { pages } = fill(typical, REQUESTS_PER_BOOK);
    const full = { ...pages[0]!, requests: pages[0]!.requests.map(grown) };
    const size = bytes(bookRecord(full));
    expect(size).toBeLessThanOrEqual(ITEM_SIZE_LIMIT);
    // Written down in docs/decisions.md: ~140 KB as made, ~365 KB at the very most.
    expect(bytes(bookRecord(pages[0]!))).toBeLessThan(140_000);
  });

  it('closes early when its requests are large (long roles), so no page can outgrow an item', () => {
    const long = (i: number): BookedRequest => ({ ...typical(i), role: 'R'.repeat(4096) });
    const { pages } = fill(long, 200);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(bytes(bookRecord({ ...page, requests: page.requests.map(grown) }))).toBeLessThanOrEqual(ITEM_SIZE_LIMIT);
  });
});

describe('changing a booked request', () => {
  it('changes only what it names, stamps the time and counts the version; a change to what it has is no change', () => {
    const request = typical(1);
    const [later, again] = [NOW + 1_000, NOW + 2_000];
    expect(changeBooked(request, { state: 'pending' }, later)).toBe(request);
    expect(changeBooked(request, { state: 'started' }, later)).toEqual({ ...request, state: 'started', updated: later, version: 2 });
    const linked = changeBooked(request, { metadata: 7, options: { number_of_pools: 2 } }, later);
    expect(changeBooked(linked, { metadata: null, options: {} }, again)).toEqual({ ...request, updated: again, version: 3 });
  });
});

describe('the requests a book renders', () => {
  const requests = registry.require('requests').embedded!;

  it('are as many as it counts, each with an id and a uuid derived from the book and its place', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 9 }), fc.integer({ min: 0, max: 40 }), (id, count) => {
        const book = bookRecord({ submission: null, labware: 1, page: 1, requests: Array.from({ length: count }, (_, i) => typical(i)) }, id);
        const views = requests.extract(book);
        expect(requests.count(book)).toBe(views.length);
        views.forEach((view, n) => {
          expect(view.id).toBe(requestId(id, n));
          expect(requests.parentId(view.id)).toBe(id);
          const held = parseHeldUuid(view.uuid)!;
          expect(held.holderUuid).toBe(book.uuid);
          expect(requests.atSlot!(book, held.slot)).toEqual(view);
        });
        // Slots past the book's requests, and slot 0 (no request's), hold nothing.
        expect(requests.atSlot!(book, count + 1)).toBeUndefined();
        expect(requests.atSlot!(book, 0)).toBeUndefined();
      }),
    );
  });

  it('the last place of a page still names its book', () => {
    expect(bookOfRequest(requestId(5, REQUESTS_PER_BOOK - 1))).toBe(5);
    expect(bookOfRequest(requestId(5, 0))).toBe(5);
  });

  it('a book is indexed once per labware its requests are in and once under its submission, however many requests', () => {
    const book = bookRecord({
      submission: 9,
      labware: 1,
      page: 1,
      requests: [
        typical(0),
        { ...typical(1), asset: ['wells', 1_002] },
        { ...typical(2), asset: ['wells', 1_096] },
        { ...typical(3), asset: ['receptacles', 4_001] },
      ],
    });
    const terms = registry.termsOf(book).map((t) => `${t.scope} ${t.value}`);
    expect(terms.filter((t) => t.startsWith('requests.asset')).sort()).toEqual(
      [`requests.asset labware:${Math.floor((LARGEST_ID - 0) / 1000)}`, 'requests.asset labware:1', 'requests.asset labware:4'].sort(),
    );
    expect(terms.filter((t) => t.startsWith('requests.submission'))).toEqual(['requests.submission submissions:9']);
    expect(terms.filter((t) => t.startsWith('request_books.page'))).toEqual(['request_books.page 9/1/1']);
  });
});
