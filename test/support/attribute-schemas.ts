import { registry } from '#lib/resources/index.ts';

interface ResourceObject {
  type: string;
  id?: string;
  attributes?: Record<string, unknown>;
}

/**
 * Throws when a rendered attribute does not match its definition's schema: the schemas describe
 * responses too (the API's description is generated from them), so every response the tests see is
 * checked against them. Null is any attribute's "no value".
 */
export function assertAttributesMatchSchemas(document: { data?: unknown; included?: unknown[] }): void {
  const resources = [
    ...(Array.isArray(document.data) ? document.data : document.data ? [document.data] : []),
    ...(document.included ?? []),
  ] as ResourceObject[];
  for (const resource of resources) {
    const def = registry.get(resource.type);
    if (!def || !resource.attributes) continue;
    // An answering action's answer (a preview) renders the attributes it declares, under its own name as id.
    const action = resource.id === undefined ? undefined : def.actions?.[resource.id];
    const declared = action?.answer ? action.answers : def.attributes;
    for (const [name, value] of Object.entries(resource.attributes)) {
      const attribute = declared[name];
      if (!attribute) throw new Error(`${resource.type} ${resource.id} renders ${name}, which its definition does not declare`);
      if (value === null) continue;
      const parsed = attribute.schema.safeParse(value);
      if (!parsed.success) {
        throw new Error(
          `${resource.type} ${resource.id} renders ${name} = ${JSON.stringify(value)}, outside its schema: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
        );
      }
    }
  }
}
