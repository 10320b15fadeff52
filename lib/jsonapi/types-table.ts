import type { Registry } from '#lib/jsonapi/registry.ts';
import type { ResourceDef } from '#lib/jsonapi/resource.ts';
import { writable, writableRelationships } from '#lib/jsonapi/openapi.ts';
import { REFERENCE_RESOURCE_FILES, type ReferenceResourceFile } from '#lib/jsonapi/reference-directory.ts';

/**
 * `docs/types.md`: one short row per type — methods, filters, writable fields, relationships — generated
 * from the resource definitions like the OpenAPI document (`npm run docs:types` rewrites it; a unit test
 * fails while it is stale). The OpenAPI document has the detail; this is the page to scan.
 */
export const TYPES_FILE = 'docs/types.md';

const code = (names: string[]) => (names.length === 0 ? '–' : names.map((n) => `\`${n}\``).join(', '));

function methods(def: ResourceDef): string {
  const verbs = [
    ...(def.methods.includes('list') || def.methods.includes('read') ? ['GET'] : []),
    ...(def.methods.includes('create') ? ['POST'] : []),
    ...(def.methods.includes('update') ? ['PATCH'] : []),
  ];
  const actions = Object.entries(def.actions ?? {}).map(([name, action]) => `${action.method} \`/${action.on === 'member' ? '{id}/' : ''}${name}\``);
  return [...verbs, ...actions].join(', ');
}

/** Attributes and relationships a POST may send; those a PATCH may change too are marked with *. */
function writableFields(def: ResourceDef): string {
  const names = (mode: 'create' | 'update') =>
    def.methods.includes(mode) ? [...writable(def, mode), ...writableRelationships(def, mode)].map(([name]) => name) : [];
  const onUpdate = new Set(names('update'));
  const all = [...new Set([...names('create'), ...onUpdate])];
  return all.length === 0 ? '–' : all.map((n) => `\`${n}\`${onUpdate.has(n) ? '*' : ''}`).join(', ');
}

/** Whether a file of the reference's directory is served here, or why not. */
export function referenceStatus(registry: Registry, entry: ReferenceResourceFile): string {
  if (entry.notType) return `not a type: ${entry.notType}`;
  if (entry.type && registry.types.includes(entry.type)) return entry.servedNote ? `served, ${entry.servedNote}` : 'served';
  return `not served: ${entry.notServed ?? '(no reason given)'}`;
}

/** The reference's directory, a row per file: its type and whether it is served here (contract §7.5). */
function referenceTable(registry: Registry): string[] {
  const listed = new Set(REFERENCE_RESOURCE_FILES.map((f) => f.type));
  const own = registry.types.filter((type) => !listed.has(type));
  return [
    "## The reference's types",
    '',
    "Every file of the reference's API v2 directory (sanger/sequencescape `app/resources/api/v2/*.rb` and",
    '`sapio/*.rb`; the list is `lib/jsonapi/reference-directory.ts`), served here or not and why.',
    own.length === 0 ? 'Every type served here is one of them.' : `Served here and not among them: ${code([...own].sort())}.`,
    '',
    '| reference file | type | here |',
    '| --- | --- | --- |',
    ...REFERENCE_RESOURCE_FILES.map((f) => `| \`${f.file}\` | ${f.type ? `\`${f.type}\`` : '–'} | ${referenceStatus(registry, f)} |`),
  ];
}

export function typesTable(registry: Registry): string {
  const rows = [...registry.types].sort().map((type) => {
    const def = registry.require(type);
    const relationships = Object.entries(def.relationships).map(([name, r]) => (r.types[0] === name ? name : `${name} → ${r.types.join('/')}`));
    return `| \`${type}\` | ${methods(def)} | ${code(Object.keys(def.filters))} | ${writableFields(def)} | ${code(relationships)} |`;
  });
  return [
    '# Types',
    '',
    '<!-- Generated from the resource definitions by `npm run docs:types`; do not edit (a test fails while it is stale). -->',
    '',
    'Every type served under `/api/v2`, one row each. Every type also takes `include` (its relationships, dotted for',
    'deeper ones), `fields[<type>]`, `page[number]`/`page[size]` and `sort`; a filter takes a comma-separated list of',
    'values. Writable are the attributes and relationships a POST may send; `*` marks those a PATCH may change',
    'too. A relationship shows the type it links to unless that is its name. The full',
    'description, with every document and error, is the OpenAPI document at `/api/v2/openapi.json` (and the',
    'docs page at `/api/v2/docs`).',
    '',
    '| type | methods | filters | writable | relationships |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...referenceTable(registry),
    '',
  ].join('\n');
}
