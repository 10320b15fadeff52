import type { RequestContext } from '#lib/jsonapi/context.ts';
import { allMatches, planFilter, readAll, recordMatches, type FilterPlan } from '#lib/jsonapi/filters.ts';
import { inMemoryPage, listOrder, pageOfSorted, positionOf, type Cursor, type Page, type Sort } from '#lib/jsonapi/paging.ts';
import type { ResourceDef } from '#lib/jsonapi/resource.ts';
import { readCounts } from '#lib/store/counts.ts';
import {
  countRange,
  ordersByUpdate,
  readRange,
  recordKey,
  type IndexRange,
  type ListHit,
  type ListPosition,
  type StoredRecord,
  type TermHit,
} from '#lib/store/records.ts';

/** Listing a type: one page of its records, filtered and sorted, read from its indexes in proportion to the page. */

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
 * - filters that test records (a derived state, whether a labware has children: `test` in lib/jsonapi/resource.ts):
 *   what the other filters (or the type) give, read whole up to `MAX_IN_MEMORY` — from the earliest update time
 *   an `updated_at_gt` allows — then tested, so the count stays exact;
 * - what no index orders (several broad filters, `sort=updated_at` on an index kept in id order): at most
 *   `MAX_IN_MEMORY` matches, else a 400.
 */
export async function listRecords(ctx: RequestContext, def: ResourceDef, filters: Map<string, string[]>, sort: Sort, page: Page): Promise<CollectionPage> {
  const types = new Set(ctx.registry.concreteTypes(def.type));
  const plans = (await Promise.all([...filters].map(([name, values]) => planFilter(ctx, def, name, values)))).filter((p) => !p.keepsAll);
  if (plans.length === 0 && [...types].some((t) => ctx.registry.get(t)?.embedded)) return listEmbedded(ctx, def, types, sort, page);
  const counter = ctx.registry.counterOf(ctx.registry.familyOf(def.type));
  if (plans.length === 0) {
    const ranges = [...types].map((type): IndexRange => ({ kind: 'type', type }));
    // A polymorphic type counts as the sum of its members: a type added over existing records (purposes) counts them too.
    return rangedPage(ctx, ranges, types, sort, page, async () => {
      const counts = await readCounts(counter);
      return [...types].reduce((sum, type) => sum + (counts.get(type) ?? 0), 0);
    });
  }

  if (plans.some((p) => p.selective || p.post)) return inMemoryPage(await matchingRecords(ctx, def, types, plans), sort, page);
  const [plan] = plans;
  if (plans.length === 1 && (sort.field !== 'updated_at' || plan!.ranges.every(ordersByUpdate))) {
    const counted = plan!.countKeys;
    const count =
      counted &&
      (async () => {
        const counts = await readCounts(counter);
        return counted.reduce((sum, key) => sum + (counts.get(key) ?? 0), 0);
      });
    return rangedPage(ctx, plan!.ranges, types, sort, page, count);
  }
  // No index serves this order or combination: intersect the (bounded) matches of every filter by their keys.
  const why = plans.length > 1 ? `to combine with ${plans.map((p) => `filter[${p.name}]`).join(' and ')}` : 'to sort by updated_at';
  const hits = await intersection(ctx, plans, types, why);
  if (sort.field === 'updated_at') return inMemoryPage(await loadHits(ctx, hits), sort, page);
  const { items, next } = pageOfSorted(
    hits.sort((a, b) => (sort.descending ? b.id - a.id : a.id - b.id)),
    sort,
    page,
  );
  return { records: await loadHits(ctx, items), count: hits.length, ...(next ? { next } : {}) };
}

/** An id past every id: a position after every record of one update time. */
const LAST_ID = 10 ** 12 - 1;

/**
 * Every record matching the filters, when a selective filter or a filter that tests records (`test`, e.g.
 * a derived state) makes the listing one to hold in memory: the selective filter's few matches, else what
 * the index filters (or the type's listing) give — read whole, bounded by `MAX_IN_MEMORY`, from the
 * earliest update time a filter allows where the ranges are in update-time order — then tested by the rest.
 * The count is therefore exact, as clients that page by `page[number]` need.
 */
async function matchingRecords(ctx: RequestContext, def: ResourceDef, types: ReadonlySet<string>, plans: FilterPlan[]): Promise<StoredRecord[]> {
  const selective = plans.find((p) => p.selective);
  // The filters whose index gives the records; the others test them.
  const reading = selective ? [selective] : plans.filter((p) => !p.post);
  const why = `to ${plans.length > 1 ? `combine ${plans.map((p) => `filter[${p.name}]`).join(' and ')}` : `test filter[${plans[0]!.name}]`} in memory`;
  const since = plans
    .map((p) => ('updatedAfter' in p.filter ? p.filter.updatedAfter?.(p.values) : undefined))
    .filter((t) => t !== undefined)
    .sort()
    .at(-1);
  const after = since === undefined ? undefined : { updatedAt: since, id: LAST_ID };
  const hits =
    reading.length === 0
      ? await readAll(
          [...types].map((type): IndexRange => ({ kind: 'type', type })),
          types,
          `the ${def.type} listing`,
          why,
          after,
        )
      : await intersection(ctx, reading, types, why, after);
  const records = await loadHits(ctx, hits);
  const rest = plans.filter((p) => !reading.includes(p));
  const passes = await Promise.all(rest.map((p) => testRecords(ctx, def, p, records)));
  return records.filter((_, i) => passes.every((pass) => pass[i]));
}

/** Whether each record passes one filter: a testing filter tests them all at once, others one by one. */
async function testRecords(ctx: RequestContext, def: ResourceDef, plan: FilterPlan, records: StoredRecord[]): Promise<boolean[]> {
  if ('test' in plan.filter) return plan.filter.test(ctx, records, plan.values);
  return Promise.all(records.map((r) => recordMatches(ctx, def, plan.filter, plan.values, r)));
}

/** The entries every one of several (bounded) index filters matches. */
async function intersection(ctx: RequestContext, plans: FilterPlan[], types: ReadonlySet<string>, why: string, after?: ListPosition): Promise<TermHit[]> {
  const matched = await Promise.all(plans.map((p) => allMatches(ctx, p, types, why, after)));
  const keys = matched.slice(1).map((hits) => new Set(hits.map((h) => recordKey(h.family, h.id))));
  return matched[0]!.filter((h) => keys.every((k) => k.has(recordKey(h.family, h.id))));
}

/**
 * The first `want` entries of several ranges in one order, of the given types, each record once: a k-way
 * merge that reads every range only as far as the merged order needs (a range whose buffer runs dry is
 * read again after its own last entry). `more` says whether entries remain after them. With `records`,
 * entries come with their records where an index holds them (a type's listing in id order).
 */
async function mergedRead(
  ranges: IndexRange[],
  types: ReadonlySet<string>,
  sort: Sort,
  want: number,
  { after, records = false }: { after?: ListPosition | undefined; records?: boolean } = {},
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
          const batch = await readRange(s.range, { byUpdated, limit, descending: sort.descending, records, ...(s.after ? { after: s.after } : {}) });
          s.done = batch.length < limit;
          if (batch.length > 0) s.after = positionOf(batch.at(-1)!, sort);
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
  const [kept, { hits: pageHits, more }] = await Promise.all([known ?? keptCount?.(), pageRead(ranges, types, sort, page, skip)]);
  const last = pageHits.at(-1);
  // Without a kept count: the count the walk carries in its cursor (its pages may have been shortened, so
  // their numbers do not count the records before); else a bare page that ends the listing tells it
  // (earlier pages were full), or DynamoDB counts the keys once, on the first page.
  const count =
    kept ??
    page.cursor?.count ??
    (!more ? (page.number - 1) * page.size + pageHits.length : (await Promise.all(ranges.map(countRange))).reduce((a, b) => a + b, 0));
  return {
    records: await loadHits(ctx, pageHits),
    count,
    ...(more && last ? { next: { after: positionOf(last, sort), ...(kept === undefined ? { count } : {}) } } : {}),
  };
}
/**
 * The entries of a page, with their records where the index holds them (one type's range): after the
 * cursor, or after the `skip` entries of earlier pages, which are read as keys only (about 80 bytes each,
 * where a record is about a kilobyte) to find where the page starts.
 */
async function pageRead(ranges: IndexRange[], types: ReadonlySet<string>, sort: Sort, page: Page, skip: number): Promise<{ hits: ListHit[]; more: boolean }> {
  // Several ranges (a polymorphic type's members): reading records, each would be read a page deep for
  // entries the merge may not keep, and a bare page number would read every range twice (keys, then
  // records: Limber's purposes by page number went from 4 calls a page to 7). So they merge keys, as
  // before, and the page's records are read by key.
  if (ranges.length > 1) {
    const { hits, more } = await mergedRead(ranges, types, sort, skip + page.size, { after: page.cursor?.after });
    return { hits: hits.slice(skip), more };
  }
  let after = page.cursor?.after;
  if (skip > 0) {
    const { hits: before, more } = await mergedRead(ranges, types, sort, skip);
    if (before.length < skip || !more) return { hits: [], more: false };
    after = positionOf(before.at(-1)!, sort);
  }
  return mergedRead(ranges, types, sort, page.size, { after, records: true });
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
      const { hits: batch, more } = await mergedRead(ranges, new Set(parentTypes), sort, PARENT_BATCH, { after: position, records: true });
      const parents = await loadHits(ctx, batch);
      for (const parent of parents) {
        const own = ctx.registry
          .embeddedIn(parent.type)
          .filter((d) => types.has(d.type))
          .flatMap((d) => ctx.registry.viewsOf(d, parent))
          .sort((a, b) => (a.id - b.id) * (sort.descending ? -1 : 1));
        // Only the last record's own parent was partly returned; other parents (in update-time order) may have any ids.
        const resumed = last && parent.id === parentId(last.id);
        children.push(...own.filter((c) => !resumed || (sort.descending ? c.id < last.id : c.id > last.id)));
      }
      if (children.length > skip + page.size || !more) break;
      position = positionOf(batch.at(-1)!, sort);
    }
  };
  const [counts] = await Promise.all([readCounts(ctx.registry.counterOf(ctx.registry.familyOf(parentTypes[0]!))), walk()]);
  const records = children.slice(skip, skip + page.size);
  const lastRecord = records.at(-1);
  return {
    records,
    count: counts.get(def.type) ?? 0,
    ...(children.length > skip + page.size && lastRecord ? { next: { after: positionOf(lastRecord, sort) } } : {}),
  };
}

/**
 * The records of some entries, in their order: those read with their entry as they are, the others by key.
 * The records read with a listing stay out of the request's loader: includes and reads by id read by key.
 */
async function loadHits(ctx: RequestContext, hits: ListHit[]): Promise<StoredRecord[]> {
  const loaded = await ctx.loader.load(hits.filter((h) => !h.record).map((h) => ({ type: h.type, id: h.id })));
  return hits.map((h) => h.record ?? loaded.get(`${h.type}:${h.id}`)).filter((r): r is StoredRecord => r !== undefined);
}
