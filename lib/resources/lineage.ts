import { refKey, refOf, type RequestContext } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { toMany, type IndexDef, type RelationshipDef } from '#lib/jsonapi/resource.ts';
import { bounded } from '#lib/store/bounded.ts';
import { readRange, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { parentsOf } from '#lib/operations/labware-records.ts';

/**
 * Family links of labware (lib/domain/lineage.ts): a child stores its `parents`; its parents find it
 * through the parent index, one index item per link, written with the child. Making a child therefore
 * never writes its parents.
 */

/** Children of one labware that `children`, `child_plates` and `descendants` list; past it they answer 400. A stock plate has tens. */
export const MAX_CHILDREN = 1_000;
/** Labware one `ancestors` or `descendants` walk may reach; past it a 400. */
export const MAX_LINEAGE = 1_000;
/** Generations a walk follows at most. */
const MAX_GENERATIONS = 50;
/** Index Queries one request runs at once (a generation of many labware, or `include=children` on a page). */
const PARALLEL_QUERIES = 8;

/** Under each parent's id, its children in id order. */
const PARENT_SCOPE = 'labware.parents';
export const parentIndex: IndexDef = { scope: PARENT_SCOPE, values: (record) => parentsOf(record).map((parent) => parent.id) };

/** The links of some labware to their parents or their children, by labware id. */
type Links = (ctx: RequestContext, labware: Ref[]) => Promise<Map<number, Ref[]>>;

const parentLinks: Links = async (ctx, labware) => {
  const loaded = await ctx.loader.load(labware);
  return new Map(labware.map((ref) => [ref.id, parentsOf(loaded.get(refKey(ref)))]));
};

/** One strongly consistent Query of the parent index per labware, once per request (a plate page's `child_plates` and its wells' `downstream_tubes` both need it). */
export const childLinks: Links = async (ctx, labware) => {
  const children = new Map<number, Ref[]>();
  await bounded(labware, PARALLEL_QUERIES, async ({ type, id }) => {
    const range = { kind: 'term', scope: PARENT_SCOPE, value: String(id) } as const;
    const hits = await ctx.loader.once(`${PARENT_SCOPE} ${id}`, () => readRange(range, { byUpdated: false, limit: MAX_CHILDREN + 1, descending: false }));
    if (hits.length > MAX_CHILDREN) throw errors.badRequest(`${type} ${id} has more than ${MAX_CHILDREN} children; this service lists at most ${MAX_CHILDREN}`);
    children.set(
      id,
      hits.map((hit) => ({ type: hit.type, id: hit.id })),
    );
  });
  return children;
};

/** Which of some labware have at least one child: one Query of the parent index (one entry read) per labware, a few at once. */
export async function withChildren(_ctx: RequestContext, labware: readonly Ref[]): Promise<Set<number>> {
  const parents = new Set<number>();
  await bounded(labware, PARALLEL_QUERIES, async ({ id }) => {
    const range = { kind: 'term', scope: PARENT_SCOPE, value: String(id) } as const;
    if ((await readRange(range, { byUpdated: false, limit: 1, descending: false })).length > 0) parents.add(id);
  });
  return parents;
}

/**
 * Ancestors or descendants of each record: the links followed generation by generation, each generation
 * read once for all the records together, so the calls grow with the depth, not with the number of
 * records. `known` holds links already at hand (a record's own parents).
 */
async function walk(
  ctx: RequestContext,
  records: StoredRecord[],
  links: Links,
  kin: string,
  known = new Map<number, Ref[]>(),
): Promise<Map<StoredRecord, RelValue>> {
  const reached = new Map(records.map((record) => [record, new Map<number, Ref>()]));
  let frontiers = new Map(records.map((record) => [record, [refOf(record)]]));
  for (let generation = 0; generation < MAX_GENERATIONS && [...frontiers.values()].some((f) => f.length > 0); generation++) {
    const unread = new Map([...frontiers.values()].flat().flatMap((ref) => (known.has(ref.id) ? [] : [[ref.id, ref] as const])));
    for (const [id, refs] of await links(ctx, [...unread.values()])) known.set(id, refs);
    frontiers = new Map(
      [...frontiers].map(([record, frontier]) => {
        const seen = reached.get(record)!;
        const next: Ref[] = [];
        for (const ref of frontier.flatMap((f) => known.get(f.id) ?? [])) {
          if (ref.id === record.id || seen.has(ref.id)) continue;
          seen.set(ref.id, ref);
          next.push(ref);
        }
        if (seen.size > MAX_LINEAGE)
          throw errors.badRequest(`${record.type} ${record.id} has more than ${MAX_LINEAGE} ${kin}; this service lists at most ${MAX_LINEAGE}`);
        return [record, next];
      }),
    );
  }
  return new Map([...reached].map(([record, refs]) => [record, [...refs.values()].sort((a, b) => a.id - b.id)]));
}

async function children(ctx: RequestContext, records: StoredRecord[], types?: string): Promise<Map<StoredRecord, RelValue>> {
  const links = await childLinks(ctx, records.map(refOf));
  return new Map(records.map((record) => [record, (links.get(record.id) ?? []).filter((child) => types === undefined || child.type === types)]));
}

export const lineageRelationships: Record<string, RelationshipDef> = {
  parents: toMany('labware', 'R'),
  children: { ...toMany('labware', 'R'), resolve: (ctx, records) => children(ctx, records) },
  ancestors: {
    ...toMany('labware', 'R'),
    resolve: (ctx, records) => walk(ctx, records, parentLinks, 'ancestors', new Map(records.map((r) => [r.id, parentsOf(r)]))),
  },
  descendants: { ...toMany('labware', 'R'), resolve: (ctx, records) => walk(ctx, records, childLinks, 'descendants') },
};

/** A labware's children of one type (a plate's or tube's `child_plates`, a tube's `child_tubes`). */
export const childrenOfType = (type: string): RelationshipDef => ({ ...toMany(type, 'R'), resolve: (ctx, records) => children(ctx, records, type) });
export const childPlates = childrenOfType('plates');
