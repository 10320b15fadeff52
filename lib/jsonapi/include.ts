import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { own, type RelationshipDef } from '#lib/jsonapi/resource.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { refsOf, type RelValue, type StoredRecord } from '#lib/store/records.ts';

export type IncludeTree = Map<string, IncludeTree>;

/** Limber's tube-rack page includes `racked_tubes.tube.receptacle.aliquots.request.request_type` (6 levels); 8 leaves room. */
export const MAX_INCLUDE_DEPTH = 8;
export const MAX_INCLUDE_PATHS = 20;
/**
 * Included resources one response may carry: a bound on what a request reads (a full 384-well plate with
 * `include=wells.aliquots.sample.sample_metadata` includes 1,536). It does not bound the answer's bytes — a
 * well renders to ~2.9 KB, so 5,000 of them are ~14 MB — which lib/http/response-size.ts keeps within
 * Lambda's 6 MB response.
 */
export const MAX_INCLUDED = 5_000;

/** Types a relationship may lead to, polymorphic types expanded to their members. */
function targetTypes(registry: Registry, relationship: RelationshipDef): string[] {
  return relationship.types.flatMap((t) => [...registry.concreteTypes(t)]);
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

/** The linkage of one relationship for many records, resolved in one batch. */
export async function resolveRelationship(ctx: RequestContext, name: string, records: readonly StoredRecord[]): Promise<Map<StoredRecord, RelValue>> {
  const result = new Map<StoredRecord, RelValue>();
  const byType = new Map<string, StoredRecord[]>();
  for (const record of records) {
    if (!own(ctx.registry.get(record.type)?.relationships, name)) continue;
    byType.set(record.type, [...(byType.get(record.type) ?? []), record]);
  }
  await Promise.all(
    [...byType].map(async ([type, group]) => {
      const relationship = ctx.registry.require(type).relationships[name]!;
      const { reverse, resolve } = relationship;
      const resolved = reverse ? await resolveReverse(ctx, name, reverse, group) : resolve ? await resolve(ctx, group) : undefined;
      if (resolved) {
        for (const [record, value] of resolved) result.set(record, value);
      } else {
        for (const record of group) result.set(record, record.rels[name] ?? (relationship.kind === 'many' ? [] : null));
      }
    }),
  );
  return result;
}

export interface IncludeResult {
  /** Linkage to render on each record, for the relationships that were included. */
  linkages: Map<StoredRecord, Map<string, RelValue>>;
  included: StoredRecord[];
}

/**
 * Walks the include tree breadth-first per path: at each level one batched load serves every record, so
 * the number of DynamoDB calls grows with the depth and number of paths, never with the number of records.
 */
export async function resolveIncludes(ctx: RequestContext, records: readonly StoredRecord[], tree: IncludeTree): Promise<IncludeResult> {
  const result: IncludeResult = { linkages: new Map(), included: [] };
  const seen = new Set(records.map((r) => refKey(r)));
  const setLinkage = (record: StoredRecord, name: string, value: RelValue) => {
    let map = result.linkages.get(record);
    if (!map) {
      map = new Map();
      result.linkages.set(record, map);
    }
    map.set(name, value);
  };

  async function expand(level: readonly StoredRecord[], node: IncludeTree): Promise<void> {
    if (node.size === 0 || level.length === 0) return;
    const resolved = await Promise.all([...node].map(async ([name, child]) => ({ name, child, values: await resolveRelationship(ctx, name, level) })));
    const refs = resolved.flatMap(({ name, values }) =>
      [...values].flatMap(([record, value]) => {
        setLinkage(record, name, value);
        return refsOf(value);
      }),
    );
    // Counted before reading: a request past the budget is refused without loading what it asked for.
    const fresh = new Set(refs.map(refKey).filter((key) => !seen.has(key)));
    if (result.included.length + fresh.size > MAX_INCLUDED) {
      throw errors.invalidParameter(
        'include',
        `include would add more than ${MAX_INCLUDED} resources to this response; ask for fewer related resources or a smaller page[size]`,
      );
    }
    const loaded = await ctx.loader.load(refs);
    for (const record of loaded.values()) {
      if (!seen.has(refKey(record))) {
        seen.add(refKey(record));
        result.included.push(record);
      }
    }
    await Promise.all(
      resolved.map(({ child, values }) => {
        const targets = [...values.values()]
          .flatMap(refsOf)
          .map((ref) => loaded.get(refKey(ref)))
          .filter((r): r is StoredRecord => r !== undefined);
        return expand([...new Set(targets)], child);
      }),
    );
  }

  await expand(records, tree);
  return result;
}
