import type { RequestContext } from '#lib/jsonapi/context.ts';
import type { ResourceDef } from '#lib/jsonapi/resource.ts';
import type { RelValue, StoredRecord } from '#lib/store/records.ts';

export interface Linkage {
  type: string;
  id: string;
}

export interface ResourceObject {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, { links: { self: string; related: string }; data?: Linkage | Linkage[] | null }>;
  links: { self: string };
}

/** Sparse fieldsets by type; a type absent from the map renders every field. */
export type Fieldsets = Map<string, Set<string>>;

export const resourceUrl = (ctx: RequestContext, type: string, id: number | string): string => `${ctx.baseUrl}/api/v2/${type}/${id}`;

export function linkage(value: RelValue): Linkage | Linkage[] | null {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((r) => ({ type: r.type, id: String(r.id) }));
  return { type: value.type, id: String(value.id) };
}

/** Renders one record; `data` appears on exactly the relationships in `linkages` (those included) and those always linked. `loaded`: values of attributes that `load` theirs. */
export function renderResource(
  ctx: RequestContext,
  record: StoredRecord,
  fields: Fieldsets,
  linkages: Map<string, RelValue> = new Map(),
  loaded: Map<string, unknown> = new Map(),
): ResourceObject {
  const def: ResourceDef = ctx.registry.require(record.type);
  const wanted = fields.get(record.type);
  const self = resourceUrl(ctx, record.type, record.id);
  const attributes: Record<string, unknown> = {};
  for (const [name, attribute] of Object.entries(def.attributes)) {
    if (attribute.access === 'W' || (wanted ? !wanted.has(name) : attribute.onlyWhenAsked)) continue;
    const value = attribute.load ? loaded.get(name) : attribute.get ? attribute.get(record) : record.attrs[name];
    attributes[name] = value === undefined ? null : value;
  }
  const relationships: ResourceObject['relationships'] = {};
  for (const [name, relationship] of Object.entries(def.relationships)) {
    if (wanted && !wanted.has(name)) continue;
    const value = linkages.has(name) ? linkages.get(name) : relationship.alwaysLinked ? (record.rels[name] ?? null) : undefined;
    relationships[name] = {
      links: { self: `${self}/relationships/${name}`, related: `${self}/${name}` },
      ...(value !== undefined ? { data: linkage(value) } : {}),
    };
  }
  return { type: record.type, id: String(record.id), attributes, relationships, links: { self } };
}

/** The values of the attributes that `load` theirs, for the records about to be rendered: one call per such attribute and type. */
export async function loadAttributes(
  ctx: RequestContext,
  records: readonly StoredRecord[],
  fields: Fieldsets,
  forEvents = false,
): Promise<Map<StoredRecord, Map<string, unknown>>> {
  const result = new Map<StoredRecord, Map<string, unknown>>();
  const byType = new Map<string, StoredRecord[]>();
  for (const record of records) {
    const group = byType.get(record.type);
    if (group) group.push(record);
    else byType.set(record.type, [record]);
  }
  await Promise.all(
    [...byType].flatMap(([type, group]) =>
      Object.entries(ctx.registry.require(type).attributes)
        .filter(([name, attribute]) => attribute.load && !(forEvents && attribute.notInEvents) && (fields.get(type)?.has(name) ?? !attribute.onlyWhenAsked))
        .map(async ([name, attribute]) => {
          for (const [record, value] of await attribute.load!(ctx, group)) {
            if (!result.has(record)) result.set(record, new Map());
            result.get(record)!.set(name, value);
          }
        }),
    ),
  );
  return result;
}
