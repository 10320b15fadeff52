import { errors, JsonApiError, show } from '#lib/jsonapi/errors.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { own } from '#lib/jsonapi/resource.ts';
import type { Fieldsets } from '#lib/jsonapi/render.ts';

/**
 * The singular the reference's clients may name a type by: JSONAPI::Resources finds a `fields[...]` type's
 * resource by Rails' `singularize` (`fields[plate]`, `fields[purpose]`, `fields[study]`, as samples_extraction
 * sends), so the reference takes both. The inflections the served types need: studies → study, statuses →
 * status, poly_metadata → poly_metadatum, plates → plate; labware stays labware.
 */
export function singularOf(type: string): string {
  if (type.endsWith('ies')) return `${type.slice(0, -3)}y`;
  if (type.endsWith('uses')) return type.slice(0, -2);
  if (type.endsWith('data')) return `${type.slice(0, -1)}um`;
  if (type.endsWith('s')) return type.slice(0, -1);
  return type;
}

const pluralsByRegistry = new WeakMap<Registry, Map<string, string>>();

/** The served type a `fields[...]` key names: itself, or the type whose singular it is. */
function typeNamed(registry: Registry, name: string): string | undefined {
  if (registry.serves(name)) return name;
  let plurals = pluralsByRegistry.get(registry);
  if (!plurals) {
    plurals = new Map(registry.types.map((type) => [singularOf(type), type]));
    pluralsByRegistry.set(registry, plurals);
  }
  return plurals.get(name);
}

/** Validates `fields[type]=…` against the types and their fields; a type may be named by its singular. */
export function parseFieldsets(registry: Registry, fields: Map<string, string[]>): Fieldsets {
  const result: Fieldsets = new Map();
  const problems: JsonApiError[] = [];
  for (const [given, names] of fields) {
    const type = typeNamed(registry, given);
    if (!type) {
      problems.push(errors.invalidField(`fields[${given}]`, `${show(given)} is not a valid resource type`));
      continue;
    }
    // A polymorphic type with fields of its own (`labware`, `purposes`: records linked as it) is checked against them too.
    const defs = [...new Set([type, ...registry.concreteTypes(type)])].map((t) => registry.require(t));
    const known = (name: string) => defs.some((d) => (own(d.attributes, name) && own(d.attributes, name)!.access !== 'W') || own(d.relationships, name));
    for (const name of names) {
      if (!known(name)) problems.push(errors.invalidField(`fields[${given}]`, `${show(name)} is not a valid field for ${type}`));
    }
    for (const t of [type, ...registry.concreteTypes(type)]) result.set(t, new Set([...(result.get(t) ?? []), ...names]));
  }
  if (problems.length > 0) throw JsonApiError.all(problems);
  return result;
}
