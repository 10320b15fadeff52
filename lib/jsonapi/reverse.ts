import { refKey, refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import type { ReverseDef } from '#lib/jsonapi/resource.ts';
import { findTermsUnder, recordKey, refsOf, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';

/**
 * Reverse relationships: the records of another type that point at these (the requests out of a well,
 * the poly metadata of any record). The pointing type keeps an index entry per record under the
 * aggregate of what it points at (`aggregateIndex`), so the pointing records of every well of a plate
 * are one Query, whichever and however many of its wells are asked for.
 */

/**
 * Pointing records one resolution may read, over all the aggregates it reads (one response could not
 * include more: MAX_INCLUDED in include.ts). Past it the request is a 400, never an unbounded read.
 */
export const MAX_REVERSE_RECORDS = 5_000;

const isWrite = (ctx: RequestContext): ctx is WriteContext => 'uow' in ctx;

/** During a write, the records of a type it created or changed (or that hold such records): their index entries reach the table only at the commit. */
const stagedOf = (ctx: RequestContext, type: string): StoredRecord[] =>
  isWrite(ctx)
    ? [...ctx.uow.created, ...ctx.uow.updated.map((u) => u.after)].filter(
        (r) => r.type === type || ctx.registry.embeddedIn(r.type).some((d) => d.type === type),
      )
    : [];

/**
 * Resolves a reverse relationship for many records: one Query per distinct aggregate they belong to
 * (at most four at once, each read to its end), one batched read of the pointing records found (or of
 * the records holding them: an embedded type's index entries are its parents', e.g. request books), each
 * then matched to the records it points at. Linkage is in id order.
 */
export async function resolveReverse<R extends Ref>(ctx: RequestContext, name: string, reverse: ReverseDef, records: readonly R[]): Promise<Map<R, RelValue>> {
  const { registry } = ctx;
  const aggregates = [...new Set(records.map((r) => registry.aggregateKey(r)))];
  const max = reverse.max ?? MAX_REVERSE_RECORDS;
  const hits: Ref[] = await findTermsUnder(registry.reverseScope(reverse), aggregates, max);
  const pointing = new Map([...hits, ...stagedOf(ctx, reverse.type)].map((r) => [refKey(r), { type: r.type, id: r.id }]));
  if (pointing.size > max) throw errors.tooManyRelated(name, reverse.type, max);

  // Matched on the pointing records as they are now (or staged), so one that was moved away is not.
  const loaded = await ctx.loader.load([...pointing.values()]);
  const sources = [...loaded.values()].flatMap((record) => registry.recordsOfType(record, reverse.type));
  if (sources.length > max) throw errors.tooManyRelated(name, reverse.type, max);
  const byTarget = new Map<string, StoredRecord[]>();
  for (const source of sources) {
    for (const target of refsOf(source.rels[reverse.relationship])) {
      const key = recordKey(registry.familyOf(target.type), target.id);
      const list = byTarget.get(key);
      if (list) list.push(source);
      else byTarget.set(key, [source]);
    }
  }
  return new Map(records.map((r) => [r, (byTarget.get(recordKey(registry.familyOf(r.type), r.id)) ?? []).sort((a, b) => a.id - b.id).map(refOf)]));
}
