import { refKey, refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { flatBudget, READ_BUDGET_ITEMS, type ReadBudget } from '#lib/jsonapi/read-budget.ts';
import type { ReverseDef } from '#lib/jsonapi/resource.ts';
import { bounded } from '#lib/store/bounded.ts';
import { readRange, recordKey, refsOf, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';

/**
 * Reverse relationships: the records of another type that point at these (the requests out of a well,
 * the poly metadata of any record). The pointing type keeps an index entry per record under the
 * aggregate of what it points at (`aggregateIndex`), so the pointing records of every well of a plate
 * are one Query, whichever and however many of its wells are asked for.
 */

/**
 * Pointing records one aggregate (a labware and what it holds, or a record stored alone) may have for one
 * relationship: one record's relationship is read with its whole aggregate, so this bounds what one
 * record's relationship reads. Past it the request is a 400, never an unbounded read. A lab's largest
 * labware stays well inside: a 384-well plate with a library and a sequencing request out of each well has
 * 768 requests, in one request book (one index entry); its poly metadata or transfer requests are as many
 * as its wells times the few per well. A page of many labware is bounded by its reads' budget instead
 * (lib/jsonapi/read-budget.ts): an include walk shortens the page there (lib/jsonapi/include.ts).
 */
export const MAX_REVERSE_RECORDS = 5_000;

/** Aggregates read at once: as many Queries as the store runs at once for one read (lib/store/records.ts). */
const PARALLEL_AGGREGATES = 4;

const isWrite = (ctx: RequestContext): ctx is WriteContext => 'uow' in ctx;

/** During a write, the records of a type it created or changed (or that hold such records): their index entries reach the table only at the commit. */
const stagedOf = (ctx: RequestContext, type: string): StoredRecord[] =>
  isWrite(ctx)
    ? [...ctx.uow.created, ...ctx.uow.updated.map((u) => u.after)].filter(
        (r) => r.type === type || ctx.registry.embeddedIn(r.type).some((d) => d.type === type),
      )
    : [];

/**
 * The index entries under each aggregate, in the order given, while the budget lets them be read for the
 * records in it: one Query each (read to its end, at most `max` + 1 entries), four at once. An aggregate
 * with more than `max` is a 400; one the budget refuses is left out.
 */
async function readAggregates<R extends Ref>(
  ctx: RequestContext,
  scope: string,
  records: readonly R[],
  max: number,
  budget: ReadBudget,
  refuse: () => Error,
): Promise<Map<string, Ref[]>> {
  const byAggregate = new Map<string, R[]>();
  for (const record of records) {
    const key = ctx.registry.aggregateKey(record);
    const held = byAggregate.get(key);
    if (held) held.push(record);
    else byAggregate.set(key, [record]);
  }
  const read = new Map<string, Ref[]>();
  await bounded([...byAggregate], PARALLEL_AGGREGATES, async ([aggregate, held]) => {
    if (!budget.open(held)) return;
    // An aggregate this write creates has no committed entries (ids are never reused): what points at it is staged (stagedOf).
    if (isWrite(ctx) && ctx.uow.createsKey(aggregate)) {
      if (budget.charge(held, 0)) read.set(aggregate, []);
      return;
    }
    const hits = await readRange({ kind: 'term', scope, value: aggregate }, { byUpdated: false, limit: max + 1, descending: false });
    if (hits.length > max) throw refuse();
    if (budget.charge(held, hits.length)) read.set(aggregate, hits);
  });
  return read;
}

/**
 * Resolves a reverse relationship for many records: one Query per distinct aggregate they belong to,
 * one batched read of the pointing records found (or of the records holding them: an embedded type's
 * index entries are its parents', e.g. request books), each then matched to the records it points at.
 * Linkage is in id order.
 *
 * With a budget (an include walk's), aggregates are read in the order of the records given while it
 * lets them, and the records of aggregates it refused are absent from the result: the walk shortens its
 * page before the first of them. Without one, a lone resolution (a related link, a write's rule, an
 * attribute) reads at most READ_BUDGET_ITEMS entries and is a 400 past them. An entry is counted as one
 * item with the record it names (read next, in one batch).
 */
export async function resolveReverse<R extends Ref>(
  ctx: RequestContext,
  name: string,
  reverse: ReverseDef,
  records: readonly R[],
  budget?: ReadBudget,
): Promise<Map<R, RelValue>> {
  const { registry } = ctx;
  const max = reverse.max ?? MAX_REVERSE_RECORDS;
  const refuse = () => errors.tooManyRelated(name, reverse.type, max);
  const read = await readAggregates(ctx, registry.reverseScope(reverse), records, max, budget ?? flatBudget(), refuse);
  if (!budget && read.size < new Set(records.map((r) => registry.aggregateKey(r))).size) throw errors.tooManyRelated(name, reverse.type, READ_BUDGET_ITEMS);
  const hits = [...read.values()].flat();
  const pointing = new Map([...hits, ...stagedOf(ctx, reverse.type)].map((r) => [refKey(r), { type: r.type, id: r.id }]));

  // Matched on the pointing records as they are now (or staged), so one that was moved away is not.
  const loaded = await ctx.loader.load([...pointing.values()]);
  const sources = [...loaded.values()].flatMap((record) => registry.recordsOfType(record, reverse.type));
  const byTarget = new Map<string, StoredRecord[]>();
  const perAggregate = new Map<string, number>();
  for (const source of sources) {
    for (const target of refsOf(source.rels[reverse.relationship])) {
      const key = recordKey(registry.familyOf(target.type), target.id);
      const list = byTarget.get(key);
      if (list) list.push(source);
      else byTarget.set(key, [source]);
      const aggregate = registry.aggregateKey(target);
      const count = (perAggregate.get(aggregate) ?? 0) + 1;
      if (count > max) throw refuse();
      perAggregate.set(aggregate, count);
    }
  }
  return new Map(
    records
      .filter((r) => read.has(registry.aggregateKey(r)))
      .map((r) => [r, (byTarget.get(recordKey(registry.familyOf(r.type), r.id)) ?? []).sort((a, b) => a.id - b.id).map(refOf)]),
  );
}
