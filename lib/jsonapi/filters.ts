import type { RequestContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError } from '#lib/jsonapi/errors.ts';
import { Registry } from '#lib/jsonapi/registry.ts';
import { own, type FilterDef, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { ordersByUpdate, readRange, recordKey, type IndexRange, type ListPosition, type StoredRecord, type TermHit } from '#lib/store/records.ts';

/** Filters: names checked, each planned as index ranges (or a direct lookup), small ones read whole, records tested in memory. */

export function checkFilterNames(def: ResourceDef, filters: Map<string, string[]>): void {
  const problems = [...filters.keys()]
    .filter((name) => !own(def.filters, name))
    .map((name) => errors.filterNotAllowed(`filter[${name}]`, name, def.type, Object.keys(def.filters)));
  if (problems.length > 0) throw JsonApiError.all(problems);
}

/** The filters a listing of the type applies: those sent, and each filter with a `default` that was not sent. */
export function withDefaultFilters(def: ResourceDef, filters: Map<string, string[]>): Map<string, string[]> {
  const defaults = Object.entries(def.filters).flatMap(([name, filter]) =>
    'test' in filter && filter.default && !filters.has(name) ? [[name, [...filter.default]] satisfies [string, string[]]] : [],
  );
  return defaults.length === 0 ? filters : new Map([...filters, ...defaults]);
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
export interface FilterPlan {
  name: string;
  values: string[];
  filter: FilterDef;
  /** Matches few records per value: read them all. */
  selective: boolean;
  /** Tests records read by the other filters' listing (no index of its own). */
  post: boolean;
  /** Keeps every record with these values: nothing to do. */
  keepsAll?: boolean;
  ranges: IndexRange[];
  /** Count keys of the records matched, when the index keeps counts (lib/store/counts.ts). */
  countKeys?: string[];
}

export async function planFilter(ctx: RequestContext, def: ResourceDef, name: string, raw: string[]): Promise<FilterPlan> {
  const values = [...new Set(raw)];
  if (values.length > MAX_FILTER_VALUES) {
    throw errors.invalidParameter(`filter[${name}]`, `filter[${name}] names ${values.length} values; at most ${MAX_FILTER_VALUES} are allowed in one request`);
  }
  const filter = def.filters[name]!;
  if ('test' in filter) {
    filter.check?.(name, values);
    return { name, values, filter, selective: false, post: true, ranges: [], keepsAll: filter.keepsAll?.(values) ?? false };
  }
  if ('lookup' in filter) {
    filter.check?.(name, values);
    return { name, values, filter, selective: true, post: false, ranges: [] };
  }
  const { scope, index } = filterIndex(ctx.registry, def, filter);
  const translated = filter.translate ? await filter.translate(ctx, values) : values;
  const normalized = [...new Set(translated.map((v) => (index.normalize ?? String)(v)))];
  return {
    name,
    values,
    filter,
    selective: Boolean(index.unique || index.selective),
    post: false,
    ranges: normalized.map((v): IndexRange => (index.slot ? { kind: 'lookup', slot: index.slot, key: `${scope}#${v}` } : { kind: 'term', scope, value: v })),
    ...(index.counted ? { countKeys: normalized.map((v) => Registry.countKey(def.type, scope, v)) } : {}),
  };
}

/** Every match of a filter, when it is known to be small: more than `MAX_IN_MEMORY` is a 400. */
export async function allMatches(ctx: RequestContext, plan: FilterPlan, types: ReadonlySet<string>, why: string, after?: ListPosition): Promise<TermHit[]> {
  const hits = 'lookup' in plan.filter ? await plan.filter.lookup(ctx, plan.values) : await readAll(plan.ranges, types, `filter[${plan.name}]`, why, after);
  return bounded(hits, types, `filter[${plan.name}]`, why);
}

/**
 * Every entry of some ranges, when they are known to be small: more than `MAX_IN_MEMORY` is a 400 naming
 * `what`. With `after` (an update time) they are read in update-time order from there.
 */
export async function readAll(ranges: IndexRange[], types: ReadonlySet<string>, what: string, why: string, after?: ListPosition): Promise<TermHit[]> {
  const byUpdated = after !== undefined && ranges.every(ordersByUpdate);
  const read = (range: IndexRange) => readRange(range, { byUpdated, limit: MAX_IN_MEMORY + 1, descending: false, ...(byUpdated ? { after } : {}) });
  return bounded((await Promise.all(ranges.map(read))).flat(), types, what, why);
}

function bounded(hits: TermHit[], types: ReadonlySet<string>, what: string, why: string): TermHit[] {
  const matching = [...new Map(hits.filter((h) => types.has(h.type)).map((h) => [recordKey(h.family, h.id), h])).values()];
  if (matching.length > MAX_IN_MEMORY) {
    throw errors.invalidParameter(
      what.startsWith('filter[') ? what : 'filter',
      `${what} matches more than ${MAX_IN_MEMORY} records, too many ${why}; narrow it or page in id order`,
    );
  }
  return matching;
}

/** Whether a record passes one filter: used for related collections and selective listings, which filter in memory. */
export async function recordMatches(ctx: RequestContext, def: ResourceDef, filter: FilterDef, values: string[], record: StoredRecord): Promise<boolean> {
  if ('test' in filter) return (await filter.test(ctx, [record], values))[0]!;
  if ('lookup' in filter) return filter.matches(record, values);
  const { index } = filterIndex(ctx.registry, def, filter);
  const translated = filter.translate ? await filter.translate(ctx, values) : values;
  const wanted = new Set(translated.map((v) => (index.normalize ?? String)(v)));
  return ctx.registry.indexValues(index, record).some((v) => wanted.has(v));
}
