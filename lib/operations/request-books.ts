import { requestId, bookOfRequest, slotUuid } from '#lib/domain/labware-ids.ts';
import {
  bookKey,
  changeBooked,
  fillPages,
  hasRoom,
  type BookedRef,
  type BookedRequest,
  type RequestBook,
  type RequestChange,
} from '#lib/domain/request-books.ts';
import { refKey, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { findHolders, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * Writing requests into their books (lib/domain/request-books.ts): a new request appended to the last
 * page of its (submission, labware) book, many at once page by page, and changes of requests staged as one
 * update of each book they are in. The books are an internal type (lib/resources/request-books.ts), whose
 * `page` index keeps one book per page under concurrency; a book and its requests as records are read here.
 */

const REQUEST_BOOKS = 'request_books';

export const bookAttrs = (record: StoredRecord): RequestBook => record.attrs as unknown as RequestBook;

const refOfBooked = ([type, id]: BookedRef): Ref => ({ type, id });
const link = (type: string, id: number | null | undefined): Ref | null => (id === null || id === undefined ? null : { type, id });

/**
 * The record a booked request renders as: its id and uuid derived from its book's and its place n (the
 * uuid is the book's with n + 1 in its last four hex digits, so it needs no storage and finds the book with
 * one read); its own timestamps and version.
 */
export function requestView(book: StoredRecord, n: number, request: BookedRequest): StoredRecord {
  return {
    family: 'requests',
    id: requestId(book.id, n),
    type: 'requests',
    uuid: slotUuid(book.uuid, n + 1),
    createdAt: new Date(request.created).toISOString(),
    updatedAt: new Date(request.updated).toISOString(),
    version: request.version ?? 1,
    attrs: {
      role: request.role ?? null,
      priority: request.priority ?? null,
      state: request.state,
      options: request.options ?? {},
      // Its order's library type, when the order's request options named one (lib/operations/submission-build.ts).
      library_type: request.options?.library_type ?? null,
    },
    rels: {
      submission: link('submissions', bookAttrs(book).submission),
      order: link('orders', request.order),
      request_type: { type: 'request_types', id: request.requestType },
      asset: request.asset ? refOfBooked(request.asset) : null,
      target_asset: request.target ? refOfBooked(request.target) : null,
      request_metadata: link('request_metadata', request.metadata),
    },
  };
}

/** Pages whose guards one read asks for: a (submission, labware) past 8,000 requests costs one read more. */
const PAGES_PER_READ = 8;

/** The last page of a (submission, labware)'s book: one this write opened, else the last whose guard is found (one batched read). */
async function lastPage(ctx: WriteContext, submission: number | null, labware: number): Promise<StoredRecord | undefined> {
  const opened = ctx.uow.created.filter((r) => r.type === REQUEST_BOOKS && bookAttrs(r).submission === submission && bookAttrs(r).labware === labware);
  if (opened.length > 0) return opened.reduce((a, b) => (bookAttrs(b).page > bookAttrs(a).page ? b : a));
  const scope = ctx.registry.indexScope(REQUEST_BOOKS, 'page');
  let last: number | undefined;
  for (let first = 1; ; first += PAGES_PER_READ) {
    const keys = Array.from({ length: PAGES_PER_READ }, (_, i) => bookKey({ submission, labware, page: first + i }));
    const holders = await findHolders(scope, keys);
    // Pages are opened one after another, so those found are the first ones asked for.
    last = holders.get(keys[holders.size - 1]!)?.id ?? last;
    if (holders.size < PAGES_PER_READ) break;
  }
  return last === undefined ? undefined : ctx.loader.one({ type: REQUEST_BOOKS, id: last });
}

/**
 * Stages a new request: appended to the last page of the book of its submission and its asset's labware,
 * or on a new page when that one is full (lib/domain/request-books.ts, hasRoom). Answers the request.
 */
export async function appendRequest(ctx: WriteContext, submission: number | null, fields: Omit<BookedRequest, 'created' | 'updated'>): Promise<StoredRecord> {
  const labware = ctx.registry.storageOf(refOfBooked(fields.asset!)).id;
  const now = Date.parse(ctx.uow.now);
  const request: BookedRequest = { ...fields, created: now, updated: now };
  const book = await lastPage(ctx, submission, labware);
  if (book && hasRoom(bookAttrs(book), request)) {
    const held = bookAttrs(book).requests;
    return requestView(ctx.uow.update(book, { attrs: { requests: [...held, request] } }), held.length, request);
  }
  const page = book ? bookAttrs(book).page + 1 : 1;
  const opened = await ctx.uow.create(REQUEST_BOOKS, { attrs: { submission, labware, page, requests: [request] }, rels: {} });
  return requestView(opened, 0, request);
}

/** A request a submission makes: its fields, and the labware of its book when it has no asset (lib/operations/submission-build.ts). */
export interface NewRequest {
  fields: Omit<BookedRequest, 'created' | 'updated'>;
  labware?: number;
}

/**
 * Stages many new requests of one submission at once: those out of each labware appended to the last page
 * of its book and on as many new pages as they need (lib/domain/request-books.ts, fillPages) — one update
 * or create of each book, not one per request. Answers the new requests, labware by labware.
 */
export async function appendRequests(ctx: WriteContext, submission: number, requests: readonly NewRequest[]): Promise<StoredRecord[]> {
  const now = Date.parse(ctx.uow.now);
  const byLabware = new Map<number, BookedRequest[]>();
  for (const { fields, labware } of requests) {
    const at = fields.asset ? ctx.registry.storageOf(refOfBooked(fields.asset)).id : labware!;
    const group = byLabware.get(at) ?? byLabware.set(at, []).get(at)!;
    group.push({ ...fields, created: now, updated: now });
  }
  const made: StoredRecord[] = [];
  // The requests a book holds from its nth on, as records.
  const viewsFrom = (book: StoredRecord, n: number) =>
    bookAttrs(book)
      .requests.slice(n)
      .map((request, k) => requestView(book, n + k, request));
  for (const [labware, adding] of byLabware) {
    const book = await lastPage(ctx, submission, labware);
    const [first, ...more] = fillPages(book ? bookAttrs(book) : undefined, adding);
    let page = book ? bookAttrs(book).page : 0;
    if (book) made.push(...viewsFrom(ctx.uow.update(book, { attrs: { requests: first } }), bookAttrs(book).requests.length));
    for (const requests of book ? more : [first!, ...more]) {
      page += 1;
      made.push(...viewsFrom(await ctx.uow.create(REQUEST_BOOKS, { attrs: { submission, labware, page, requests }, rels: {} }), 0));
    }
  }
  return made;
}

/** A book's write: the book as read and as staged. */
export interface BookChange {
  before: StoredRecord;
  after: StoredRecord;
}

/** Stages changes of requests, by id: one update of each book they are in. Answers the books that changed. */
export async function changeRequests(ctx: WriteContext, changes: ReadonlyMap<number, RequestChange>): Promise<BookChange[]> {
  const books = await readBooksOf(ctx, changes.keys());
  return writeBookChanges(ctx, planBookChanges(books, changes, Date.parse(ctx.uow.now)));
}

/** The books that hold some requests, by the requests' ids (one batched read; a write that read the requests finds them in its cache). */
export async function readBooksOf(ctx: RequestContext, requestIds: Iterable<number>): Promise<StoredRecord[]> {
  const bookIds = [...new Set([...requestIds].map(bookOfRequest))];
  const books = await ctx.loader.load(bookIds.map((id): Ref => ({ type: REQUEST_BOOKS, id })));
  return bookIds.map((id) => {
    const book = books.get(refKey({ type: REQUEST_BOOKS, id }));
    // The ids come from reads of these books in the same write.
    if (!book) throw new Error(`request book ${id} is not there`);
    return book;
  });
}

/** A book's planned change: the book as read and its requests after the changes. */
export interface PlannedBook {
  before: StoredRecord;
  requests: BookedRequest[];
}

/**
 * The books the changes (by request id) change, made at `now`, in the order of the changes' requests: a
 * book none of whose requests changes is left out. `books` holds at least the books of those requests.
 */
export function planBookChanges(books: readonly StoredRecord[], changes: ReadonlyMap<number, RequestChange>, now: number): PlannedBook[] {
  const byId = new Map(books.map((book) => [book.id, book]));
  return [...new Set([...changes.keys()].map(bookOfRequest))].flatMap((id) => {
    const before = byId.get(id);
    if (!before) throw new Error(`request book ${id} was not read`);
    const held = bookAttrs(before).requests;
    const requests = held.map((request, n) => {
      const change = changes.get(requestId(before.id, n));
      return change ? changeBooked(request, change, now) : request;
    });
    return requests.every((request, n) => request === held[n]) ? [] : [{ before, requests }];
  });
}

/** Stages each planned book once. */
export const writeBookChanges = (ctx: WriteContext, planned: readonly PlannedBook[]): BookChange[] =>
  planned.map(({ before, requests }) => ({ before, after: ctx.uow.update(before, { attrs: { requests } }) }));

/** Index entries the changes of books add or remove (a work completion moving requests into new labware adds one per book and labware). */
export function indexEntriesChanged(ctx: WriteContext, books: readonly BookChange[]): number {
  const keys = (record: StoredRecord) => new Set(ctx.registry.termsOf(record).map((t) => `${t.scope}\u0000${t.value}`));
  return books.reduce((total, { before, after }) => {
    const [was, is] = [keys(before), keys(after)];
    return total + [...is].filter((k) => !was.has(k)).length + [...was].filter((k) => !is.has(k)).length;
  }, 0);
}

/** A receptacle as a book names it. */
export const booked = (ref: Ref): BookedRef => [ref.type, ref.id];
