import { ITEM_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { REQUESTS_PER_BOOK } from '#lib/domain/labware-ids.ts';

/**
 * Request books (docs/decisions.md, "Requests that move together are stored together"): the requests one
 * submission (or none) made out of one labware, stored together in one item, a page of at most
 * REQUESTS_PER_BOOK of them. Requests that move together — a plate's first pass, a work completion —
 * are then one write of their book, not one per request. Pure: what a book holds, where a new request
 * goes, how a request changes.
 */

/** A receptacle as a book names it: its type (wells, receptacles) and id. */
export type BookedRef = readonly [type: string, id: number];

/**
 * A request as its book stores it. Its id and uuid derive from the book's and its place (lib/domain/labware-ids.ts);
 * its submission is the book's; a field not set is left out, so a page of 1,000 requests stays well inside an item.
 */
export interface BookedRequest {
  state: string;
  requestType: number;
  /**
   * The receptacle its work starts from (a work completion may move it on to where the work before it
   * ended); left out after a multiplexing step until the pool is made (lib/domain/submissions.ts).
   */
  asset?: BookedRef;
  order?: number;
  /** The receptacle its work ended in (set by a work completion). */
  target?: BookedRef;
  /** Its request metadata record, whose values it renders as `options`. */
  metadata?: number;
  options?: Record<string, unknown>;
  role?: string;
  priority?: string;
  /** When it was made and last changed, in milliseconds since 1970 (a number is 12 bytes shorter than its ISO text, and a full page holds 2,000 of them). */
  created: number;
  updated: number;
  /** Its version, counting its changes (events carry it, one after another per request); left out while 1. */
  version?: number;
}

/** What a book record holds. `labware` is the labware of its requests' assets when they were made: with `submission` and `page`, its key. */
export interface RequestBook {
  submission: number | null;
  labware: number;
  page: number;
  requests: BookedRequest[];
}

/** The key one book (a page) has, guarded so two writers never open the same page twice. */
export const bookKey = (book: Pick<RequestBook, 'submission' | 'labware' | 'page'>): string => `${book.submission ?? 'none'}/${book.labware}/${book.page}`;

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** The largest ids the service gives (12 digits: lib/store/records.ts pads ids to 12) and option values it accepts. */
const LARGEST_ID = 999_999_999_999;
/**
 * The fields a request may gain after it is made, each at its largest: options from its metadata and a state
 * change, a target receptacle, its metadata's id, a version (a million changes); the state or asset it has
 * may grow by a few bytes (`failed` → `cancelled`, a well → a tube's receptacle).
 */
const LARGEST_LATER_FIELDS = {
  options: { number_of_pools: Number.MAX_SAFE_INTEGER, cells_per_chip_well: Number.MAX_SAFE_INTEGER, customer_accepts_responsibility: true },
  target: ['receptacles', LARGEST_ID],
  metadata: LARGEST_ID,
  version: 999_999,
};
const LONGER_STATE_AND_ASSET = 'cancelled'.length - 'failed'.length + 'receptacles'.length - 'wells'.length + String(LARGEST_ID).length;

/** JSON bytes one booked request may grow by after it is made: a page keeps this much room for each of its requests. */
export const MAX_REQUEST_GROWTH_BYTES = jsonBytes(LARGEST_LATER_FIELDS) + LONGER_STATE_AND_ASSET;

/** JSON bytes a request made without an asset may gain beyond that: the whole asset a work completion gives it. */
const UNPLACED_GROWTH_BYTES = jsonBytes({ asset: ['receptacles', LARGEST_ID] });

/** JSON bytes of a book record beyond its requests (ids, uuid, timestamps, version, the book's own fields, item keys). */
const BOOK_RECORD_BYTES = 1_000;

/** What deciding a page's room needs: its JSON bytes, its requests, and how many of them have no asset yet. */
interface PageSize {
  bytes: number;
  count: number;
  unplaced: number;
}

const sizeOf = (book: RequestBook): PageSize => ({
  bytes: jsonBytes(book),
  count: book.requests.length,
  unplaced: book.requests.filter((r) => !r.asset).length,
});

/** The page's size with one more request of `bytes` JSON bytes, if it has room for it (hasRoom). */
function grown(page: PageSize, request: BookedRequest, bytes: number): PageSize | undefined {
  const next = { bytes: page.bytes + bytes + 1, count: page.count + 1, unplaced: page.unplaced + (request.asset ? 0 : 1) };
  const room = next.count * MAX_REQUEST_GROWTH_BYTES + next.unplaced * UNPLACED_GROWTH_BYTES;
  return next.count <= REQUESTS_PER_BOOK && next.bytes + room + BOOK_RECORD_BYTES <= ITEM_SIZE_LIMIT ? next : undefined;
}

/**
 * Whether a page takes one more request: it holds fewer than REQUESTS_PER_BOOK, and with it (and room for each
 * of its requests to grow, MAX_REQUEST_GROWTH_BYTES, and for those without an asset to gain one) it stays
 * inside ITEM_SIZE_LIMIT — so no later change of its requests can make it too large to write.
 */
export const hasRoom = (book: RequestBook, request: BookedRequest): boolean => grown(sizeOf(book), request, jsonBytes(request)) !== undefined;

/**
 * Many requests of one (submission, labware) added at once: the requests of its last page (`last`, if any)
 * with as many as it has room for, then those of each new page it needs — the pages hasRoom would make one
 * request at a time, with each page's size counted once.
 */
export function fillPages(last: RequestBook | undefined, adding: readonly BookedRequest[]): BookedRequest[][] {
  const empty = (page: number): RequestBook => ({ submission: last?.submission ?? null, labware: last?.labware ?? 0, page, requests: [] });
  const pages: BookedRequest[][] = [last ? [...last.requests] : []];
  let size = sizeOf(last ?? empty(1));
  for (const request of adding) {
    const bytes = jsonBytes(request);
    let next = grown(size, request, bytes);
    if (!next) {
      pages.push([]);
      size = sizeOf(empty((last?.page ?? 1) + pages.length - 1));
      next = grown(size, request, bytes)!;
    }
    pages[pages.length - 1]!.push(request);
    size = next;
  }
  return pages;
}

/** A change of a booked request: each field given replaces its value (null, or empty options, removes it). */
export interface RequestChange {
  state?: string;
  asset?: BookedRef;
  target?: BookedRef | null;
  metadata?: number | null;
  options?: Record<string, unknown>;
}

/** A booked request after a change made at `now` (milliseconds since 1970), its version one more: the same object when the change changes nothing. */
export function changeBooked(request: BookedRequest, change: RequestChange, now: number): BookedRequest {
  const next: Record<string, unknown> = { ...request };
  for (const [field, value] of Object.entries(change)) {
    if (value === undefined) continue;
    if (value === null || (field === 'options' && Object.keys(value as object).length === 0)) delete next[field];
    else next[field] = value;
  }
  const before = request as unknown as Record<string, unknown>;
  const same = Object.keys(change).every((field) => JSON.stringify(next[field]) === JSON.stringify(before[field]));
  return same ? request : ({ ...next, updated: now, version: (request.version ?? 1) + 1 } as unknown as BookedRequest);
}
