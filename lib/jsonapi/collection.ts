import type { RequestContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, show } from '#lib/jsonapi/errors.ts';
import { buildQuery, type ParsedQuery } from '#lib/jsonapi/query.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { own, type FilterDef, type ResourceDef } from '#lib/jsonapi/resource.ts';
import type { Fieldsets } from '#lib/jsonapi/render.ts';
import { familyCounts, findByLookup, findTerms, listPage, padId, recordKey, type ListPosition, type StoredRecord, type TermHit } from '#lib/store/records.ts';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

export interface Page {
  number: number;
  size: number;
  cursor?: { after: ListPosition };
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
const encodeCursor = (page: number, sort: Sort, after: ListPosition) =>
  Buffer.from(JSON.stringify({ p: page, s: `${sort.descending ? '-' : ''}${sort.field}`, a: after })).toString('base64url');

const isPosition = (a: unknown): a is ListPosition =>
  typeof a === 'object' && a !== null && Number.isSafeInteger((a as ListPosition).id) && ['string', 'undefined'].includes(typeof (a as ListPosition).updatedAt);

function decodeCursor(raw: string, page: number, sort: Sort): { after: ListPosition } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw errors.invalidPage('page[cursor]', `${show(raw)} is not a cursor this service issued; follow the links it returns`);
  }
  const { p, s, a } = (parsed ?? {}) as { p?: unknown; s?: unknown; a?: unknown };
  if (!isPosition(a) || typeof p !== 'number' || typeof s !== 'string') {
    throw errors.invalidPage('page[cursor]', `${show(raw)} is not a cursor this service issued; follow the links it returns`);
  }
  // A cursor only continues the walk it came from; a client that changed the page or sort gets plain paging.
  return p === page && s === `${sort.descending ? '-' : ''}${sort.field}` ? { after: a } : undefined;
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

/** The index definition behind a filter, looked up on the type or, for a polymorphic type, its members. */
function filterIndex(registry: Registry, def: ResourceDef, filter: Extract<FilterDef, { index: string }>) {
  const owner = [def, ...registry.concreteTypes(def.type).map((t) => registry.require(t))].find((d) => d.indexes?.[filter.index]);
  if (!owner) throw new Error(`${def.type} filters on undeclared index ${filter.index}`);
  return { scope: registry.indexScope(owner, filter.index), index: owner.indexes![filter.index]! };
}

async function candidates(ctx: RequestContext, def: ResourceDef, filter: FilterDef, values: string[]): Promise<TermHit[]> {
  if ('lookup' in filter) return filter.lookup(ctx, values);
  const { scope, index } = filterIndex(ctx.registry, def, filter);
  const translated = filter.translate ? await filter.translate(ctx, values) : values;
  const normalized = [...new Set(translated.map((v) => (index.normalize ?? String)(v)))];
  const slot = index.slot;
  return (await Promise.all(normalized.map((v) => (slot ? findByLookup(slot, `${scope}#${v}`) : findTerms(scope, v))))).flat();
}

/** Whether a record passes one filter: used for related collections, which are filtered in memory. */
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
  nextAfter?: ListPosition;
}

/** One page of a type's records, filtered and sorted. Reads are proportional to the page (and to the matches of a filter). */
export async function listRecords(ctx: RequestContext, def: ResourceDef, filters: Map<string, string[]>, sort: Sort, page: Page): Promise<CollectionPage> {
  const types = new Set(ctx.registry.concreteTypes(def.type));
  if (filters.size === 0 && [...types].some((t) => ctx.registry.get(t)?.embedded)) return listEmbedded(ctx, def, types, sort, page);
  if (filters.size === 0) {
    // A polymorphic type lists its member types merged in order; each member query reads at most one page.
    const byUpdated = sort.field === 'updated_at';
    const skip = page.cursor ? 0 : (page.number - 1) * page.size;
    const counted = familyCounts(ctx.registry.familyOf(def.type)).then((counts) => counts[def.type] ?? 0);
    // A bare page past the end reads nothing more (and never asks DynamoDB for a Limit beyond its range).
    if (skip > 0 && skip >= (await counted)) return { records: [], count: await counted };
    const [pages, count] = await Promise.all([
      Promise.all(
        [...types].map((type) =>
          listPage(type, { byUpdated, limit: skip + page.size + 1, descending: sort.descending, ...(page.cursor ? { after: page.cursor.after } : {}) }),
        ),
      ),
      counted,
    ]);
    const hits = pages.flat().sort(listOrder(sort));
    const pageHits = hits.slice(skip, skip + page.size);
    const last = pageHits.at(-1);
    return {
      records: await loadHits(ctx, pageHits),
      count,
      ...(hits.length > skip + page.size && last ? { nextAfter: { id: last.id, ...(byUpdated ? { updatedAt: last.updatedAt } : {}) } } : {}),
    };
  }

  let matched: Map<string, TermHit> | undefined;
  for (const [name, values] of filters) {
    const hits = (await candidates(ctx, def, def.filters[name]!, values)).filter((h) => types.has(h.type));
    const keyed = new Map(hits.map((h) => [recordKey(h.family, h.id), h]));
    matched = matched ? new Map([...matched].filter(([k]) => keyed.has(k))) : keyed;
  }
  const all = [...matched!.values()];
  if (sort.field === 'updated_at') {
    const records = sortRecords(await loadHits(ctx, all), sort);
    return { records: records.slice((page.number - 1) * page.size, page.number * page.size), count: records.length };
  }
  all.sort((a, b) => (sort.descending ? b.id - a.id : a.id - b.id));
  return { records: await loadHits(ctx, all.slice((page.number - 1) * page.size, page.number * page.size)), count: all.length };
}

/** The order of merged listing pages: by update time then id, or by id, as the sort asks. */
const listOrder = (sort: Sort) => (a: ListPosition, b: ListPosition) =>
  (sort.field === 'updated_at' && a.updatedAt !== b.updatedAt ? (a.updatedAt! < b.updatedAt! ? -1 : 1) : a.id - b.id) * (sort.descending ? -1 : 1);

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
  const children: StoredRecord[] = [];
  for (;;) {
    const pages = await Promise.all(
      parentTypes.map((type) => listPage(type, { byUpdated, limit: PARENT_BATCH, descending: sort.descending, ...(position ? { after: position } : {}) })),
    );
    const batch = pages.flat().sort(listOrder(sort)).slice(0, PARENT_BATCH);
    if (batch.length === 0) break;
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
    if (children.length > skip + page.size) break;
    const tail = batch.at(-1)!;
    position = { id: tail.id, ...(byUpdated ? { updatedAt: tail.updatedAt } : {}) };
  }
  const records = children.slice(skip, skip + page.size);
  const lastRecord = records.at(-1);
  const counts = await familyCounts(ctx.registry.familyOf(embedded[0]!.parentTypes[0]!));
  return {
    records,
    count: counts[def.type] ?? 0,
    ...(children.length > skip + page.size && lastRecord ? { nextAfter: { id: lastRecord.id, ...(byUpdated ? { updatedAt: lastRecord.updatedAt } : {}) } } : {}),
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
export function pageLinks(ctx: RequestContext, path: string, query: ParsedQuery, page: Page, sort: Sort, count: number, nextAfter?: ListPosition) {
  const kept = query.pairs.filter(([k]) => !k.startsWith('page'));
  const lastPage = Math.max(1, Math.ceil(count / page.size));
  const link = (n: number, cursor?: string) =>
    `${ctx.baseUrl}${path}?${buildQuery([...kept, ['page[number]', String(n)], ['page[size]', String(page.size)], ...(cursor ? [['page[cursor]', cursor] as [string, string]] : [])])}`;
  return {
    first: link(1),
    ...(page.number > 1 ? { prev: link(Math.min(page.number - 1, lastPage)) } : {}),
    ...(page.number < lastPage ? { next: link(page.number + 1, nextAfter ? encodeCursor(page.number + 1, sort, nextAfter) : undefined) } : {}),
    last: link(lastPage),
  };
}
