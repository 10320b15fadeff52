import type { RequestContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, show } from '#lib/jsonapi/errors.ts';
import { buildQuery, type ParsedQuery } from '#lib/jsonapi/query.ts';
import { Registry } from '#lib/jsonapi/registry.ts';
import { own, type FilterDef, type ResourceDef } from '#lib/jsonapi/resource.ts';
import type { Fieldsets } from '#lib/jsonapi/render.ts';
import { readCounts } from '#lib/store/counts.ts';
import {
  countRange,
  ordersByUpdate,
  padId,
  readRange,
  recordKey,
  type IndexRange,
  type ListHit,
  type ListPosition,
  type StoredRecord,
  type TermHit,
} from '#lib/store/records.ts';

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

/** Validates `fields[type]=…` against the types and their fields. */
export function parseFieldsets(registry: Registry, fields: Map<string, string[]>): Fieldsets {
  const result: Fieldsets = new Map();
  const problems: JsonApiError[] = [];
  for (const [type, names] of fields) {
    const defs = registry.get(type) ? registry.concreteTypes(type).map((t) => registry.require(t)) : [];
    if (defs.length === 0) {
      problems.push(errors.invalidField(`fields[${type}]`, `${show(type)} is not a valid resource type`));
      continue;
    }
    const known = (name: string) => defs.some((d) => (own(d.attributes, name) && own(d.attributes, name)!.access !== 'W') || own(d.relationships, name));
    for (const name of names) {
      if (!known(name)) problems.push(errors.invalidField(`fields[${type}]`, `${show(name)} is not a valid field for ${type}`));
    }
    for (const t of [type, ...registry.concreteTypes(type)]) result.set(t, new Set([...(result.get(t) ?? []), ...names]));
  }
  if (problems.length > 0) throw JsonApiError.all(problems);
  return result;
}

export function checkFilterNames(def: ResourceDef, filters: Map<string, string[]>): void {
  const problems = [...filters.keys()].filter((name) => !own(def.filters, name)).map((name) => errors.filterNotAllowed(`filter[${name}]`, name, def.type));
  if (problems.length > 0) throw JsonApiError.all(problems);
}

/** Values one filter may name (after removing repeats): a longer list is a 400, not an unbounded read. */
export const MAX_FILTER_VALUES = 500;
/**
 * Matches a listing may hold in memory: the records of a selective filter, or the index entries where
 * no index serves the order or the combination asked (several broad filters; `sort=updated_at` on an
 * index kept in id order). Past it the request is a 400 naming the filters.
 */
export const MAX_IN_MEMORY = 1_000;

/** The index definition behind a filter, looked up on the type or, for a polymorphic type, its members. */
function filterIndex(registry: Registry, def: ResourceDef, filter: Extract<FilterDef, { index: string }>) {
  const owner = [def, ...registry.concreteTypes(def.type).map((t) => registry.require(t))].find((d) => d.indexes?.[filter.index]);
  if (!owner) throw new Error(`${def.type} filters on undeclared index ${filter.index}`);
  return { scope: registry.indexScope(owner, filter.index), index: owner.indexes![filter.index]! };
}

/** One filter of a request, ready to read: its index ranges, or a direct lookup for filters that find records themselves. */
interface FilterPlan {
  name: string;
  values: string[];
  filter: FilterDef;
  /** Matches few records per value: read them all. */
  selective: boolean;
  ranges: IndexRange[];
  /** Count keys of the records matched, when the index keeps counts (lib/store/counts.ts). */
  countKeys?: string[];
}

async function planFilter(ctx: RequestContext, def: ResourceDef, name: string, raw: string[]): Promise<FilterPlan> {
  const values = [...new Set(raw)];
  if (values.length > MAX_FILTER_VALUES) {
    throw errors.invalidParameter(`filter[${name}]`, `filter[${name}] names ${values.length} values; at most ${MAX_FILTER_VALUES} are allowed in one request`);
  }
  const filter = def.filters[name]!;
  if ('lookup' in filter) return { name, values, filter, selective: true, ranges: [] };
  const { scope, index } = filterIndex(ctx.registry, def, filter);
  const translated = filter.translate ? await filter.translate(ctx, values) : values;
  const normalized = [...new Set(translated.map((v) => (index.normalize ?? String)(v)))];
  return {
    name,
    values,
    filter,
    selective: Boolean(index.unique || index.selective),
    ranges: normalized.map((v): IndexRange => (index.slot ? { kind: 'lookup', slot: index.slot, key: `${scope}#${v}` } : { kind: 'term', scope, value: v })),
    ...(index.counted ? { countKeys: normalized.map((v) => Registry.countKey(def.type, scope, v)) } : {}),
  };
}

/** Every match of a filter, when it is known to be small: more than `MAX_IN_MEMORY` is a 400. */
async function allMatches(ctx: RequestContext, plan: FilterPlan, types: ReadonlySet<string>, why: string): Promise<TermHit[]> {
  const hits =
    'lookup' in plan.filter
      ? await plan.filter.lookup(ctx, plan.values)
      : (await Promise.all(plan.ranges.map((range) => readRange(range, { byUpdated: false, limit: MAX_IN_MEMORY + 1, descending: false })))).flat();
  const matching = [...new Map(hits.filter((h) => types.has(h.type)).map((h) => [recordKey(h.family, h.id), h])).values()];
  if (matching.length > MAX_IN_MEMORY) {
    throw errors.invalidParameter(
      `filter[${plan.name}]`,
      `filter[${plan.name}] matches more than ${MAX_IN_MEMORY} records, too many ${why}; narrow it or page in id order`,
    );
  }
  return matching;
}

/** Whether a record passes one filter: used for related collections and selective listings, which filter in memory. */
export async function recordMatches(ctx: RequestContext, def: ResourceDef, filter: FilterDef, values: string[], record: StoredRecord): Promise<boolean> {
  if ('lookup' in filter) return filter.matches(record, values);
  const { index } = filterIndex(ctx.registry, def, filter);
  const translated = filter.translate ? await filter.translate(ctx, values) : values;
  const wanted = new Set(translated.map((v) => (index.normalize ?? String)(v)));
  return ctx.registry.indexValues(index, record).some((v) => wanted.has(v));
}

export interface CollectionPage {
  records: StoredRecord[];
  count: number;
  /** Where the next page starts, when the page was read from an ordered listing. */
  next?: Cursor;
}

/**
 * One page of a type's records, filtered and sorted, read in proportion to the page:
 * - no filter: the type's listing index (merged over the members of a polymorphic type), counts from the count shards;
 * - one broad filter: its index ranges in the asked order, counted by its count keys, by the page when it ends the
 *   listing, or by DynamoDB counting the matches' keys once (the walk's cursor carries that count);
 * - a selective filter (uuid, barcode, a unique name): its few matches read whole, other filters applied to them;
 * - what no index orders (several broad filters, `sort=updated_at` on an index kept in id order): at most
 *   `MAX_IN_MEMORY` matches, else a 400.
 */
export async function listRecords(ctx: RequestContext, def: ResourceDef, filters: Map<string, string[]>, sort: Sort, page: Page): Promise<CollectionPage> {
  const types = new Set(ctx.registry.concreteTypes(def.type));
  if (filters.size === 0 && [...types].some((t) => ctx.registry.get(t)?.embedded)) return listEmbedded(ctx, def, types, sort, page);
  const family = ctx.registry.familyOf(def.type);
  if (filters.size === 0) {
    const ranges = [...types].map((type): IndexRange => ({ kind: 'type', type }));
    return rangedPage(ctx, ranges, types, sort, page, async () => (await readCounts(family)).get(def.type) ?? 0);
  }

  const plans = await Promise.all([...filters].map(([name, values]) => planFilter(ctx, def, name, values)));
  const selective = plans.find((p) => p.selective);
  if (selective) {
    const records = await loadHits(ctx, await allMatches(ctx, selective, types, 'to read at once'));
    const others = plans.filter((p) => p !== selective);
    const keep = await Promise.all(
      records.map(async (r) => (await Promise.all(others.map((p) => recordMatches(ctx, def, p.filter, p.values, r)))).every(Boolean)),
    );
    return inMemoryPage(
      records.filter((_, i) => keep[i]),
      sort,
      page,
    );
  }
  const [plan] = plans;
  if (plans.length === 1 && (sort.field !== 'updated_at' || plan!.ranges.every(ordersByUpdate))) {
    const counted = plan!.countKeys;
    const count =
      counted &&
      (async () => {
        const counts = await readCounts(family);
        return counted.reduce((sum, key) => sum + (counts.get(key) ?? 0), 0);
      });
    return rangedPage(ctx, plan!.ranges, types, sort, page, count);
  }
  // No index serves this order or combination: intersect the (bounded) matches of every filter by their keys.
  const why = plans.length > 1 ? `to combine with ${plans.map((p) => `filter[${p.name}]`).join(' and ')}` : 'to sort by updated_at';
  const matched = await Promise.all(plans.map((p) => allMatches(ctx, p, types, why)));
  const keys = matched.slice(1).map((hits) => new Set(hits.map((h) => recordKey(h.family, h.id))));
  const hits = matched[0]!.filter((h) => keys.every((k) => k.has(recordKey(h.family, h.id))));
  if (sort.field === 'updated_at') return inMemoryPage(await loadHits(ctx, hits), sort, page);
  const ordered = hits.sort((a, b) => (sort.descending ? b.id - a.id : a.id - b.id));
  return { records: await loadHits(ctx, ordered.slice((page.number - 1) * page.size, page.number * page.size)), count: hits.length };
}

function inMemoryPage(records: StoredRecord[], sort: Sort, page: Page): CollectionPage {
  return { records: sortRecords(records, sort).slice((page.number - 1) * page.size, page.number * page.size), count: records.length };
}

/** The order of listing entries: by update time then id, or by id, as the sort asks. */
const listOrder = (sort: Sort) => (a: ListPosition, b: ListPosition) =>
  (sort.field === 'updated_at' && a.updatedAt !== b.updatedAt ? (a.updatedAt! < b.updatedAt! ? -1 : 1) : a.id - b.id) * (sort.descending ? -1 : 1);

const positionOf = (hit: ListPosition, byUpdated: boolean): ListPosition => ({
  id: hit.id,
  ...(byUpdated && hit.updatedAt !== undefined ? { updatedAt: hit.updatedAt } : {}),
});

/**
 * The first `want` entries of several ranges in one order, of the given types, each record once: a k-way
 * merge that reads every range only as far as the merged order needs (a range whose buffer runs dry is
 * read again after its own last entry). `more` says whether entries remain after them.
 */
async function mergedRead(
  ranges: IndexRange[],
  types: ReadonlySet<string>,
  sort: Sort,
  want: number,
  after?: ListPosition,
): Promise<{ hits: ListHit[]; more: boolean }> {
  const byUpdated = sort.field === 'updated_at';
  const order = listOrder(sort);
  const streams = ranges.map((range) => ({ range, buffer: [] as ListHit[], after, done: false }));
  const hits: ListHit[] = [];
  const seen = new Set<string>();
  for (;;) {
    await Promise.all(
      streams
        .filter((s) => s.buffer.length === 0 && !s.done)
        .map(async (s) => {
          const limit = Math.max(1, want + 1 - hits.length);
          const batch = await readRange(s.range, { byUpdated, limit, descending: sort.descending, ...(s.after ? { after: s.after } : {}) });
          s.done = batch.length < limit;
          if (batch.length > 0) s.after = positionOf(batch.at(-1)!, byUpdated);
          s.buffer.push(...batch);
        }),
    );
    const live = streams.filter((s) => s.buffer.length > 0);
    if (live.length === 0) return { hits, more: false };
    const next = live.reduce((best, s) => (order(s.buffer[0]!, best.buffer[0]!) < 0 ? s : best));
    const hit = next.buffer.shift()!;
    const key = recordKey(hit.family, hit.id);
    if (!types.has(hit.type) || seen.has(key)) continue;
    if (hits.length === want) return { hits, more: true };
    seen.add(key);
    hits.push(hit);
  }
}

/** A page of ordered ranges: after the cursor, or past the records of earlier pages (bare `page[number]`). */
async function rangedPage(
  ctx: RequestContext,
  ranges: IndexRange[],
  types: ReadonlySet<string>,
  sort: Sort,
  page: Page,
  keptCount?: () => Promise<number>,
): Promise<CollectionPage> {
  const skip = page.cursor ? 0 : (page.number - 1) * page.size;
  // A bare page past the end reads nothing more.
  const known = keptCount && skip > 0 ? await keptCount() : undefined;
  if (known !== undefined && skip >= known) return { records: [], count: known };
  const [kept, { hits, more }] = await Promise.all([known ?? keptCount?.(), mergedRead(ranges, types, sort, skip + page.size, page.cursor?.after)]);
  const pageHits = hits.slice(skip);
  const last = pageHits.at(-1);
  // Without a kept count: a page that ends the listing tells it (earlier pages were full); else DynamoDB
  // counts the keys once, on the first page, and the walk carries that count in its cursor.
  const count =
    kept ??
    (!more ? (page.number - 1) * page.size + pageHits.length : (page.cursor?.count ?? (await Promise.all(ranges.map(countRange))).reduce((a, b) => a + b, 0)));
  return {
    records: await loadHits(ctx, pageHits),
    count,
    ...(more && last ? { next: { after: positionOf(last, sort.field === 'updated_at'), ...(kept === undefined ? { count } : {}) } } : {}),
  };
}
/** Parents are read this many at a time while walking them for their embedded records. */
const PARENT_BATCH = 25;

/**
 * Lists an embedded type by walking its parents in the requested order: embedded records share their
 * parent's timestamps and their ids follow their parent's, so the flattened walk is in order for every
 * sort. The cursor is the last record's id (its parent is derived from it).
 */
async function listEmbedded(ctx: RequestContext, def: ResourceDef, types: Set<string>, sort: Sort, page: Page): Promise<CollectionPage> {
  const embedded = [...types].map((t) => ctx.registry.get(t)?.embedded).filter((e) => e !== undefined);
  const parentTypes = [...new Set(embedded.flatMap((e) => e.parentTypes))];
  const parentId = embedded[0]!.parentId;
  const byUpdated = sort.field === 'updated_at';
  const skip = page.cursor ? 0 : (page.number - 1) * page.size;
  const last = page.cursor?.after;
  // Resume at the parent of the last record returned (inclusive), then skip what was already returned.
  let position: ListPosition | undefined = last && { id: parentId(last.id) + (sort.descending ? 1 : -1), ...(byUpdated ? { updatedAt: last.updatedAt } : {}) };
  const ranges = parentTypes.map((type): IndexRange => ({ kind: 'type', type }));
  const children: StoredRecord[] = [];
  const walk = async () => {
    for (;;) {
      const { hits: batch, more } = await mergedRead(ranges, new Set(parentTypes), sort, PARENT_BATCH, position);
      const parents = await loadHits(ctx, batch);
      for (const parent of parents) {
        const own = ctx.registry
          .embeddedIn(parent.type)
          .filter((d) => types.has(d.type))
          .flatMap((d) => d.embedded!.extract(parent))
          .sort((a, b) => (a.id - b.id) * (sort.descending ? -1 : 1));
        // Only the last record's own parent was partly returned; other parents (in update-time order) may have any ids.
        const resumed = last && parent.id === parentId(last.id);
        children.push(...own.filter((c) => !resumed || (sort.descending ? c.id < last.id : c.id > last.id)));
      }
      if (children.length > skip + page.size || !more) break;
      position = positionOf(batch.at(-1)!, byUpdated);
    }
  };
  const [counts] = await Promise.all([readCounts(ctx.registry.familyOf(parentTypes[0]!)), walk()]);
  const records = children.slice(skip, skip + page.size);
  const lastRecord = records.at(-1);
  return {
    records,
    count: counts.get(def.type) ?? 0,
    ...(children.length > skip + page.size && lastRecord ? { next: { after: positionOf(lastRecord, byUpdated) } } : {}),
  };
}

async function loadHits(ctx: RequestContext, hits: TermHit[]): Promise<StoredRecord[]> {
  const loaded = await ctx.loader.load(hits.map((h) => ({ type: h.type, id: h.id })));
  return hits.map((h) => loaded.get(`${h.type}:${h.id}`)).filter((r): r is StoredRecord => r !== undefined);
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
