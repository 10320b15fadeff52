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

/** Top-level pagination links: absolute, every other parameter kept, brackets percent-encoded. */
export function pageLinks(ctx: RequestContext, path: string, query: ParsedQuery, page: Page, sort: Sort, count: number, next?: Cursor) {
  const kept = query.pairs.filter(([k]) => !k.startsWith('page'));
  const lastPage = Math.max(1, Math.ceil(count / page.size));
  const link = (n: number, cursor?: string) =>
    `${ctx.baseUrl}${path}?${buildQuery([...kept, ['page[number]', String(n)], ['page[size]', String(page.size)], ...(cursor ? [['page[cursor]', cursor] as [string, string]] : [])])}`;
  return {
    first: link(1),
    ...(page.number > 1 ? { prev: link(Math.min(page.number - 1, lastPage)) } : {}),
    ...(page.number < lastPage ? { next: link(page.number + 1, next ? encodeCursor(page.number + 1, sort, next) : undefined) } : {}),
    last: link(lastPage),
  };
}

/** A page of records held in memory (selective filters, related collections). */
export function inMemoryPage(records: StoredRecord[], sort: Sort, page: Page): { records: StoredRecord[]; count: number } {
  return { records: sortRecords(records, sort).slice((page.number - 1) * page.size, page.number * page.size), count: records.length };
}
