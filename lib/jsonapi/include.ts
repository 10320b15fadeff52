import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { asLinked, own, type RelationshipDef } from '#lib/jsonapi/resource.ts';
import { pastReadBudget, READ_BUDGET_ITEMS, type ReadBudget } from '#lib/jsonapi/read-budget.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { recordKey, refsOf, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';

export type IncludeTree = Map<string, IncludeTree>;

/** Limber's tube-rack page includes `racked_tubes.tube.receptacle.aliquots.request.request_type` (6 levels); 8 leaves room. */
export const MAX_INCLUDE_DEPTH = 8;
export const MAX_INCLUDE_PATHS = 20;

/** Types a relationship may lead to: the type it renders its records as, or its types with polymorphic ones expanded to their members. */
function targetTypes(registry: Registry, relationship: RelationshipDef): string[] {
  return relationship.linkedAs ? [relationship.linkedAs] : relationship.types.flatMap((t) => [...registry.concreteTypes(t)]);
}

/**
 * Validates include paths against the types the primary data may have. A segment is valid when at least
 * one of the types reached at that depth declares it (polymorphic data mixes types).
 */
export function parseIncludes(registry: Registry, rootTypes: readonly string[], paths: readonly string[] | undefined): IncludeTree {
  const tree: IncludeTree = new Map();
  if (!paths) return tree;
  if (paths.length > MAX_INCLUDE_PATHS)
    throw errors.invalidParameter('include', `include names ${paths.length} paths; at most ${MAX_INCLUDE_PATHS} are allowed`);
  for (const path of paths) {
    const segments = path.split('.');
    if (segments.length > MAX_INCLUDE_DEPTH)
      throw errors.invalidParameter('include', `include path "${path}" is ${segments.length} levels deep; at most ${MAX_INCLUDE_DEPTH} are allowed`);
    let types = rootTypes.flatMap((t) => [...registry.concreteTypes(t)]);
    let node = tree;
    for (const segment of segments) {
      const relationships = types.map((t) => own(registry.get(t)?.relationships, segment)).filter((r): r is RelationshipDef => r !== undefined);
      if (relationships.length === 0)
        throw errors.invalidInclude(path, segment, types.join(' / '), [...new Set(types.flatMap((t) => Object.keys(registry.get(t)?.relationships ?? {})))]);
      types = [...new Set(relationships.flatMap((r) => targetTypes(registry, r)))];
      let child = node.get(segment);
      if (!child) {
        child = new Map();
        node.set(segment, child);
      }
      node = child;
    }
  }
  return tree;
}

/**
 * The linkage of one relationship for many records, resolved in one batch. With a read budget (an include
 * walk's), a reverse relationship resolves the records its budget reaches, in the order given, and leaves
 * the others out (lib/jsonapi/reverse.ts).
 */
export async function resolveRelationship(
  ctx: RequestContext,
  name: string,
  records: readonly StoredRecord[],
  budget?: ReadBudget,
): Promise<Map<StoredRecord, RelValue>> {
  const result = new Map<StoredRecord, RelValue>();
  const byType = new Map<string, StoredRecord[]>();
  for (const record of records) {
    if (!relationshipOf(ctx, record, name)) continue;
    // Pushed, not copied: an include level may hold tens of thousands of records (a page of 384-well plates' wells).
    const group = byType.get(record.type);
    if (group) group.push(record);
    else byType.set(record.type, [record]);
  }
  await Promise.all(
    [...byType].map(async ([type, group]) => {
      const relationship = ctx.registry.require(type).relationships[name]!;
      const { reverse, resolve } = relationship;
      const resolved = reverse ? await resolveReverse(ctx, name, reverse, group, budget) : resolve ? await resolve(ctx, group) : undefined;
      if (resolved) {
        for (const [record, value] of resolved) result.set(record, asLinked(relationship, value));
      } else {
        for (const record of group) result.set(record, asLinked(relationship, record.rels[name] ?? (relationship.kind === 'many' ? [] : null)));
      }
    }),
  );
  return result;
}

const relationshipOf = (ctx: RequestContext, record: StoredRecord, name: string): RelationshipDef | undefined =>
  own(ctx.registry.get(record.type)?.relationships, name);

/** What a record or a linkage of a compound document is there for: the first primary record (its place in the page) that needs it. */
export interface Needed<T> {
  value: T;
  root: number;
}

export interface IncludeResult {
  /** Linkage to render on each record, for the relationships that were included. */
  linkages: Map<StoredRecord, Map<string, Needed<RelValue>>>;
  /**
   * Every record the includes reached, in the order first read, with the include path that first reached
   * it for its primary record. Primary records another one's include reaches are among them.
   */
  included: Map<StoredRecord, Needed<string>>;
  /** How many of the primary records, the first ones, the walk resolved within its read budget. */
  resolved: number;
}

/**
 * Walks the include tree relationship by relationship: each relationship is resolved for all the records
 * of its level at once and its records read in one batched load, shared with every other load started at
 * the same time (lib/jsonapi/context.ts), so the number of DynamoDB calls grows with the depth and number
 * of paths, never with the number of records, and a branch never waits for a sibling's reads.
 *
 * Each record reached is noted with the first primary record that needs it, so that a page can be cut
 * after any of its records (lib/jsonapi/compound.ts). Reads are counted for the first primary record they
 * are made for, before they are made (a level's items; a reverse relationship's aggregates, one by one):
 * once the primary records up to one would need more than `budget` items, the walk keeps those before it,
 * reads only for those, and says how many it kept. When not even the first one's fit, the request is a 400
 * naming the include.
 */
export async function resolveIncludes(
  ctx: RequestContext,
  records: readonly StoredRecord[],
  tree: IncludeTree,
  budget = READ_BUDGET_ITEMS,
): Promise<IncludeResult> {
  const result: IncludeResult = { linkages: new Map(), included: new Map(), resolved: records.length };
  const itemOf = (ref: Ref) => {
    const { family, id } = ctx.registry.storageOf(ref);
    return recordKey(family, id);
  };
  const viewsByKey = new Map<string, StoredRecord>();
  // The items read so far (the primary records' are), and how many each primary record's includes needed.
  const read = new Set(records.map(itemOf));
  const charged = new Array<number>(records.length).fill(0);
  const charge = (root: number, items: number, path: string) => {
    charged[root]! += items;
    const fits = fittingPrefix(charged, budget);
    if (fits >= result.resolved) return;
    if (fits === 0) throw errors.includeTooLarge(records[0]!, path, pastReadBudget(budget));
    result.resolved = fits;
  };
  const setLinkage = (record: StoredRecord, name: string, value: RelValue, root: number) => {
    let map = result.linkages.get(record);
    if (!map) {
      map = new Map();
      result.linkages.set(record, map);
    }
    map.set(name, { value, root: Math.min(root, map.get(name)?.root ?? root) });
  };

  /** `level`: the records at this node of the tree, each with the first primary record it is reached for. */
  async function expand(level: Map<StoredRecord, number>, node: IncludeTree, path: string): Promise<void> {
    const alive = [...level.keys()].filter((r) => level.get(r)! < result.resolved);
    if (node.size === 0 || alive.length === 0) return;
    await Promise.all([...node].map(([name, child]) => follow(level, alive, name, child, `${path}${name}`)));
  }

  /**
   * One relationship of a level's records, then the include tree below it: each relationship goes on as
   * soon as its own records are read, not when its siblings' are (a plate's purpose does not wait for
   * its children's Query). Reads started at once share a batch (the loader's).
   */
  async function follow(level: Map<StoredRecord, number>, alive: readonly StoredRecord[], name: string, child: IncludeTree, at: string): Promise<void> {
    const rootOf = (held: readonly Ref[]) => held.reduce((min, r) => Math.min(min, level.get(r as StoredRecord) ?? min), records.length);
    // A reverse relationship's aggregates are read for the first primary record in each.
    const reads: ReadBudget = {
      open: (held) => rootOf(held) < result.resolved,
      charge: (held, items) => {
        charge(rootOf(held), items, at);
        return rootOf(held) < result.resolved;
      },
    };
    const values = await resolveRelationship(ctx, name, alive, reads);
    const wanted: { ref: Ref; root: number }[] = [];
    for (const [record, value] of values) {
      const root = level.get(record)!;
      setLinkage(record, name, value, root);
      // What a reverse relationship found was read with its entries, and counted with them.
      const counted = relationshipOf(ctx, record, name)?.reverse !== undefined;
      for (const ref of refsOf(value)) {
        if (counted) read.add(itemOf(ref));
        wanted.push({ ref, root });
      }
    }
    // Counted before reading: the items not read yet, each for the first primary record needing it.
    const fresh = new Map<string, number>();
    for (const { ref, root } of wanted) {
      const item = itemOf(ref);
      if (!read.has(item)) fresh.set(item, Math.min(root, fresh.get(item) ?? root));
    }
    const freshByRoot = new Array<number>(records.length).fill(0);
    for (const root of fresh.values()) freshByRoot[root]! += 1;
    for (const [root, items] of freshByRoot.entries()) if (items > 0 && root < result.resolved) charge(root, items, at);
    for (const [item, root] of fresh) if (root < result.resolved) read.add(item);

    const loaded = await ctx.loader.load(wanted.filter(({ root }) => root < result.resolved).map(({ ref }) => ref));
    const next = new Map<StoredRecord, number>();
    for (const [record, value] of values) {
      const root = level.get(record)!;
      if (root >= result.resolved) continue;
      for (const ref of refsOf(value)) {
        const stored = loaded.get(refKey(ref));
        if (!stored) continue;
        // A linkage typed by a supertype (`labware`) reaches the record as that type: one object per linkage in a document.
        const target = viewsByKey.get(refKey(ref)) ?? ctx.registry.as(stored, ref.type);
        if (target !== stored) viewsByKey.set(refKey(ref), target);
        const known = result.included.get(target);
        if (!known || root < known.root) result.included.set(target, { value: at, root });
        next.set(target, Math.min(root, next.get(target) ?? root));
      }
    }
    return expand(next, child, `${at}.`);
  }

  await expand(new Map(records.map((r, i) => [r, i])), tree, '');
  return result;
}

/**
 * How many of the first records fit: the longest prefix whose costs (what each record adds, in the page's
 * order) add up to at most `budget`. The rule that shortens a page, for its reads and its bytes alike.
 */
export function fittingPrefix(costs: readonly number[], budget: number): number {
  let total = 0;
  for (const [i, cost] of costs.entries()) {
    total += cost;
    if (total > budget) return i;
  }
  return costs.length;
}
