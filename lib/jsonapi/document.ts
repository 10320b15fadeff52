import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { own, type ResourceDef } from '#lib/jsonapi/resource.ts';
import type { Ref } from '#lib/store/records.ts';

/**
 * Parses the body of a POST or PATCH against a resource definition, checking structure and permissions
 * only (400/403/409) — the values are checked afterwards. Every offending key gets its own error.
 */
export interface ParsedWrite {
  attributes: Record<string, unknown>;
  /** Relationships sent as linkage; null clears. */
  links: Record<string, Ref | Ref[] | null>;
}

export type WriteMode = 'create' | 'update';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Ids are positive integers, sent as numbers or strings. */
export function parseId(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || !/^[1-9]\d{0,14}$/.test(text)) return undefined;
  return Number(text);
}

/** `data.type` as sent; some resources also accept legacy spellings (see ResourceDef.acceptedTypes). */
function checkEnvelope(def: ResourceDef, body: unknown, mode: WriteMode, urlId: number | undefined, acceptedTypes: readonly string[]) {
  if (!isObject(body)) throw errors.invalidMember('', 'the request body must be a JSON object with a data member');
  if (!('data' in body)) throw errors.missingMember('/data', 'data');
  const data = body.data;
  if (!isObject(data)) throw errors.invalidMember('/data', 'data must be a resource object');
  const { type, id } = data;
  if (type === undefined) {
    if (!acceptedTypes.includes('')) throw errors.missingMember('/data/type', 'data.type');
  } else if (typeof type !== 'string') {
    throw errors.invalidMember('/data/type', `data.type must be a string, got ${show(type)}`);
  } else if (type !== def.type && !acceptedTypes.includes(type)) {
    throw errors.conflict(`data.type ${show(type)} does not match the endpoint's type ${def.type}`, '/data/type');
  }
  if (mode === 'create' && id !== undefined) throw errors.clientIdNotAllowed();
  if (mode === 'update') {
    if (id === undefined) throw errors.missingMember('/data/id', 'data.id');
    // Only a string or a number can name the URL's id (String() of a deeply nested array would overflow the stack).
    if ((typeof id !== 'string' && typeof id !== 'number') || String(id) !== String(urlId))
      throw errors.conflict(`data.id ${show(id)} does not match the id in the URL (${urlId})`, '/data/id');
  }
  for (const member of ['attributes', 'relationships'] as const) {
    if (member in data && !isObject(data[member])) throw errors.invalidMember(`/data/${member}`, `data.${member} must be an object, got ${show(data[member])}`);
  }
  return { attributes: (data.attributes ?? {}) as Record<string, unknown>, relationships: (data.relationships ?? {}) as Record<string, unknown> };
}

function accessProblem(access: string, mode: WriteMode, acceptOnCreate: boolean | undefined): string | undefined {
  if (access === 'R' && !(mode === 'create' && acceptOnCreate)) return 'it is read-only';
  if (mode === 'update' && (access === 'WO' || acceptOnCreate)) return 'it can only be set on create';
  return undefined;
}

function parseLinkage(
  registry: Registry,
  name: string,
  at: string,
  value: unknown,
  accepted: readonly string[],
  aliases: readonly string[],
  linkedAs: string | undefined,
): Ref {
  if (!isObject(value) || !('type' in value) || !('id' in value))
    throw errors.invalidLinkage(at, name, `linkage must be an object with type and id, got ${show(value)}`);
  const { type } = value;
  if (typeof type !== 'string') throw errors.invalidLinkage(at, name, `linkage type must be a string, got ${show(type)}`);
  const id = parseId(value.id);
  if (id === undefined) throw errors.invalidId(value.id, { pointer: `${at}/id` });
  if (aliases.includes(type)) return { type: accepted[0]!, id };
  // The type the relationship renders its linkage as (`purposes`): what a client read, it may send back.
  if (type === linkedAs) return { type, id };
  if (!accepted.includes(type) && !accepted.some((t) => registry.concreteTypes(t).includes(type))) {
    throw errors.typeMismatch(`${at}/type`, name, type, accepted);
  }
  return { type, id };
}

export function parseWriteDocument(
  registry: Registry,
  def: ResourceDef,
  body: unknown,
  mode: WriteMode,
  urlId?: number,
  acceptedTypes: readonly string[] = [],
): ParsedWrite {
  const { attributes, relationships } = checkEnvelope(def, body, mode, urlId, acceptedTypes);
  const problems: JsonApiError[] = [];
  const result: ParsedWrite = { attributes: {}, links: {} };

  for (const [name, value] of Object.entries(attributes)) {
    const at = pointer('data', 'attributes', name);
    const attribute = own(def.attributes, name);
    const why = attribute ? accessProblem(attribute.access, mode, attribute.acceptOnCreate) : `it is not an attribute of ${def.type}`;
    if (why) problems.push(errors.paramNotAllowed(at, name, why));
    else result.attributes[name] = value;
  }

  for (const [name, value] of Object.entries(relationships)) {
    const at = pointer('data', 'relationships', name);
    const relationship = own(def.relationships, name);
    const why = relationship ? accessProblem(relationship.access, mode, relationship.acceptOnCreate) : `it is not a relationship of ${def.type}`;
    if (why) {
      problems.push(errors.paramNotAllowed(at, name, why));
      continue;
    }
    try {
      if (!isObject(value) || !('data' in value))
        throw errors.invalidLinkage(at, name, `a relationship must be an object with a data member, got ${show(value)}`);
      const data = value.data;
      const aliases = relationship!.aliases ?? [];
      if (relationship!.kind === 'many') {
        if (!Array.isArray(data)) throw errors.invalidLinkage(`${at}/data`, name, `a to-many relationship takes an array of linkage, got ${show(data)}`);
        result.links[name] = data.map((d, i) => parseLinkage(registry, name, `${at}/data/${i}`, d, relationship!.types, aliases, relationship!.linkedAs));
      } else {
        result.links[name] = data === null ? null : parseLinkage(registry, name, `${at}/data`, data, relationship!.types, aliases, relationship!.linkedAs);
      }
    } catch (error) {
      if (!(error instanceof JsonApiError)) throw error;
      problems.push(error);
    }
  }
  if (problems.length > 0) throw JsonApiError.all(problems);
  return result;
}
