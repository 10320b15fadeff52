import { errors, JsonApiError, show } from '#lib/jsonapi/errors.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { own } from '#lib/jsonapi/resource.ts';
import type { Fieldsets } from '#lib/jsonapi/render.ts';

/** Validates `fields[type]=…` against the types and their fields. */
export function parseFieldsets(registry: Registry, fields: Map<string, string[]>): Fieldsets {
  const result: Fieldsets = new Map();
  const problems: JsonApiError[] = [];
  for (const [type, names] of fields) {
    const defs = registry.serves(type) ? registry.concreteTypes(type).map((t) => registry.require(t)) : [];
    if (defs.length === 0) {
      problems.push(errors.invalidField(`fields[${type}]`, `${show(type)} is not a valid resource type`));
      continue;
    }
    const known = (name: string) => defs.some((d) => (own(d.attributes, name) && own(d.attributes, name)!.access !== 'W') || own(d.relationships, name));
    for (const name of names) {
      if (!known(name)) problems.push(errors.invalidField(`fields[${type}]`, `${show(name)} is not a valid field for ${type}`));
    }
    for (const t of [type, ...registry.concreteTypes(type)]) result.set(t, new Set([...(result.get(t) ?? []), ...names]));
  }
  if (problems.length > 0) throw JsonApiError.all(problems);
  return result;
}
