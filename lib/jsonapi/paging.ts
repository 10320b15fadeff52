import type { RequestContext } from '#lib/jsonapi/context.ts';
import { errors, show } from '#lib/jsonapi/errors.ts';
import { buildQuery, type ParsedQuery } from '#lib/jsonapi/query.ts';
import { padId, type ListPosition, type StoredRecord } from '#lib/store/records.ts';

/** Paging and sorting: `page[…]` and `sort` parsed, cursors issued and checked, pagination links. */

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

export interface Page {
  number: number;
  size: number;
  cursor?: Cursor;
}
/** Where a walk through `links.next` continues, and the record count its first page found where no kept count serves it. */
export interface Cursor {
  after: ListPosition;
  count?: number;
}
export interface Sort {
  field: 'id' | 'created_at' | 'updated_at';
  descending: boolean;
}

function positiveInteger(raw: string | undefined, parameter: string, fallback: number, max?: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim())) throw errors.invalidPage(parameter, `${show(raw)} is not a valid value for ${parameter}; use a whole number`);
  const n = Number(raw);
  if (n < 1) throw errors.invalidPage(parameter, `${parameter} must be at least 1, got ${raw}`);
  if (max !== undefined && n > max) throw errors.invalidPage(parameter, `${parameter} exceeds the maximum page size of ${max}, got ${raw}`);
  return n;
}

/** The cursor of a `next` link: the position after the last record of a page, valid for one page number and sort. */
const encodeCursor = (page: number, sort: Sort, { after, count }: Cursor) =>
  Buffer.from(JSON.stringify({ p: page, s: `${sort.descending ? '-' : ''}${sort.field}`, a: after, ...(count !== undefined ? { n: count } : {}) })).toString(
    'base64url',
  );

/** What a position may hold: a record id and, for update-time order, a timestamp as the service writes them. */
const isPosition = (a: unknown): a is ListPosition => {
  const { id, updatedAt } = (a ?? {}) as Partial<ListPosition>;
  return (
    typeof a === 'object' &&
    Number.isSafeInteger(id) &&
    id! > 0 &&
    (updatedAt === undefined || (typeof updatedAt === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(updatedAt)))
  );
};

function decodeCursor(raw: string, page: number, sort: Sort): Cursor | undefined {
  const invalid = () => errors.invalidPage('page[cursor]', `${show(raw)} is not a cursor this service issued; follow the links it returns`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { p, s, a, n } = (parsed ?? {}) as { p?: unknown; s?: unknown; a?: unknown; n?: unknown };
  if (!isPosition(a) || typeof p !== 'number' || typeof s !== 'string' || (n !== undefined && !(Number.isSafeInteger(n) && (n as number) >= 0)))
    throw invalid();
  // A cursor only continues the walk it came from; a client that changed the page or sort gets plain paging.
  return p === page && s === `${sort.descending ? '-' : ''}${sort.field}` ? { after: a, ...(n !== undefined ? { count: n as number } : {}) } : undefined;
}

export function parseSort(sort: string[] | undefined): Sort {
  const [first, ...rest] = sort ?? ['id'];
  for (const key of [first!, ...rest]) {
    if (!/^-?(id|created_at|updated_at)$/.test(key)) throw errors.invalidSort(key);
  }
  return { field: first!.replace(/^-/, '') as Sort['field'], descending: first!.startsWith('-') };
}

export function parsePage(query: ParsedQuery, sort: Sort): Page {
  const number = positiveInteger(query.page.number, 'page[number]', 1);
  const size = positiveInteger(query.page.size, 'page[size]', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const cursor = query.page.cursor ? decodeCursor(query.page.cursor, number, sort) : undefined;
  return { number, size, ...(cursor ? { cursor } : {}) };
}

/** Created-at order is id order: ids and creation times advance together within a family (see docs). */
export function sortRecords(records: StoredRecord[], sort: Sort): StoredRecord[] {
  const key = (r: StoredRecord) => (sort.field === 'updated_at' ? `${r.updatedAt}#${padId(r.id)}` : padId(r.id));
  return [...records].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (sort.descending ? -1 : 1));
}

/** The order of listing positions: by update time then id, or by id, as the sort asks. */
export const listOrder = (sort: Sort) => (a: ListPosition, b: ListPosition) =>
  (sort.field === 'updated_at' && a.updatedAt !== b.updatedAt ? (a.updatedAt! < b.updatedAt! ? -1 : 1) : a.id - b.id) * (sort.descending ? -1 : 1);

/** Where a record (or an index entry) stands in a listing of this sort: what a cursor after it holds. */
export const positionOf = (at: ListPosition, sort: Sort): ListPosition => ({
  id: at.id,
  ...(sort.field === 'updated_at' && at.updatedAt !== undefined ? { updatedAt: at.updatedAt } : {}),
});

/**
 * A page of items held in the sort's order: by page number, or after the cursor of a walk — a walk that
 * a shortened page sent on by cursor (lib/jsonapi/compound.ts), which page numbers cannot express — and
 * then with the cursor of the next page when more follow.
 */
export function pageOfSorted<T extends ListPosition>(sorted: readonly T[], sort: Sort, page: Page): { items: T[]; next?: Cursor } {
  if (!page.cursor) return { items: sorted.slice((page.number - 1) * page.size, page.number * page.size) };
  const { after, count } = page.cursor;
  const order = listOrder(sort);
  const start = sorted.findIndex((item) => order(positionOf(item, sort), after) > 0);
  const rest = start < 0 ? [] : sorted.slice(start);
  const items = rest.slice(0, page.size);
  return { items, ...(rest.length > page.size ? { next: { after: positionOf(items.at(-1)!, sort), ...(count !== undefined ? { count } : {}) } } : {}) };
}

/**
 * Top-level pagination links: absolute, every other parameter kept, brackets percent-encoded. `next` when
 * the listing has a cursor for it (more records follow), or while page numbers go on; a page after a
 * shortened one is numbered on, so its number can pass the last page's while records remain.
 */
export function pageLinks(ctx: RequestContext, path: string, query: ParsedQuery, page: Page, sort: Sort, count: number, next?: Cursor) {
  const kept = query.pairs.filter(([k]) => !k.startsWith('page'));
  const lastPage = Math.max(1, Math.ceil(count / page.size));
  const link = (n: number, cursor?: string) =>
    `${ctx.baseUrl}${path}?${buildQuery([...kept, ['page[number]', String(n)], ['page[size]', String(page.size)], ...(cursor ? [['page[cursor]', cursor] as [string, string]] : [])])}`;
  return {
    first: link(1),
    ...(page.number > 1 ? { prev: link(Math.min(page.number - 1, lastPage)) } : {}),
    ...(next || page.number < lastPage ? { next: link(page.number + 1, next ? encodeCursor(page.number + 1, sort, next) : undefined) } : {}),
    last: link(lastPage),
  };
}

/** A page of records held in memory (selective filters, related collections). */
export function inMemoryPage(records: StoredRecord[], sort: Sort, page: Page): { records: StoredRecord[]; count: number; next?: Cursor } {
  const { items, next } = pageOfSorted(sortRecords(records, sort), sort, page);
  return { records: items, count: records.length, ...(next ? { next } : {}) };
}
