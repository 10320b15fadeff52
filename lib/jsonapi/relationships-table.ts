import type { Registry } from '#lib/jsonapi/registry.ts';
import { linkedTypes, type RelationshipDef } from '#lib/jsonapi/resource.ts';
import { REFERENCE_RESOURCES } from '#lib/jsonapi/reference-relationships.ts';

/**
 * `docs/relationships.md`: every relationship of every served type with the type its linkage names, next to
 * the reference's declaration and the interface's typing (contract §7.4: the interface's typing stands;
 * where it has none, the reference's resource file decides). Generated with docs/types.md (`npm run
 * docs:types`); a unit test fails while it is stale, and while a relationship renders another type than the
 * reference's declaration gives without a reason in KEPT_TYPES.
 */
export const RELATIONSHIPS_FILE = 'docs/relationships.md';

/** The relationships interface.md types, by `type.relationship` (its "Resources and their fields" tables). */
export const INTERFACE_TYPINGS: Record<string, string> = {
  'transfers.source': 'labware',
  'transfers.destination': 'labware',
  'transfers.user': 'users',
  'samples.sample_metadata': 'sample_metadata',
  'samples.studies': 'studies',
  'samples.component_samples': 'component_samples',
  'plate_conversions.parent': 'plates',
  'plate_conversions.purpose': 'plate_purposes',
  'plate_conversions.target': 'plates',
  'plate_conversions.user': 'users',
  'tube_from_plate_creations.child': 'tubes',
  'tube_from_plate_creations.child_purpose': 'tube_purposes',
  'tube_from_plate_creations.parent': 'plates',
  'tube_from_plate_creations.user': 'users',
  'qcables.asset': 'labware',
  'qcables.labware': 'labware',
  'qcables.lot': 'lots',
  'poly_metadata.metadatable': 'polymorphic',
  'tag_layouts.plate': 'plates',
  'tag_layouts.tag_group': 'tag_groups',
  'tag_layouts.tag2_group': 'tag_groups',
  'tag_layouts.user': 'users',
  'requests.poly_metadata': 'poly_metadata',
  'qc_assays.qc_results': 'qc_results',
};

/**
 * Relationships whose linkage names another type than the reference's declaration gives, and why. Each is a
 * decision (docs/decisions.md, "The reference's names").
 */
export const KEPT_TYPES: Record<string, string> = {
  'aliquots.receptacle': 'own type: a well stays `wells` (Limber reads aliquots through wells; `receptacles` is not yet rendered for wells)',
  'transfer_requests.source_asset': 'own type: a well stays `wells` (as aliquots.receptacle)',
  'transfer_requests.target_asset': 'own type: a well stays `wells` (as aliquots.receptacle)',
  'tubes.receptacle': 'own type, which is `receptacles` for a tube',
  'qc_results.asset': 'own type: the reference names `assets`, not served here',
};

/** A class name's or relationship name's JSON:API type, as the reference's resources name types (Rails' plural of the underscored name). */
export function typeOfName(name: string): string {
  const snake = name.replace(/(?<!^)(?=[A-Z])/g, '_').toLowerCase();
  if (snake === 'labware' || snake.endsWith('metadata')) return snake;
  if (snake.endsWith('metadatum')) return `${snake.slice(0, -2)}a`;
  if (/[^aeiou]y$/.test(snake)) return `${snake.slice(0, -1)}ies`;
  return snake.endsWith('s') ? snake : `${snake}s`;
}

/**
 * The type the reference's declaration gives a relationship's linkage: `polymorphic` (each record its own
 * type), its `class_name`'s type, or the type named by the relationship's name; undefined where the name
 * names no resource (`requests_as_source`: the model's association decides, not the resource file).
 */
export function referenceTypeOf(name: string, declaration: string): string | undefined {
  if (/polymorphic: true/.test(declaration)) return 'polymorphic';
  const className = /class_name: "(\w+)"/.exec(declaration)?.[1];
  if (className) return typeOfName(className);
  const byName = typeOfName(name);
  return byName in REFERENCE_RESOURCES ? byName : undefined;
}

/** What a relationship's linkage names, as the table shows it. */
function rendered(registry: Registry, relationship: RelationshipDef): string {
  if (relationship.linkedAs) return relationship.linkedAs;
  const members = relationship.types.flatMap((t) => registry.get(t)?.members ?? []);
  return members.length > 0 ? `own type (${members.join('/')})` : linkedTypes(relationship).join('/');
}

/** Whether a relationship renders what the reference's declaration gives. */
function agrees(registry: Registry, relationship: RelationshipDef, expected: string): boolean {
  if (expected === 'polymorphic') return relationship.linkedAs === undefined;
  if (relationship.linkedAs) return relationship.linkedAs === expected;
  return relationship.types.length === 1 && relationship.types[0] === expected && !registry.get(expected)?.members;
}

export interface RelationshipRow {
  type: string;
  name: string;
  rendered: string;
  reference: string | undefined;
  expected: string | undefined;
  interface: string | undefined;
  agrees: boolean;
}

export function relationshipRows(registry: Registry): RelationshipRow[] {
  return [...registry.types].sort().flatMap((type) =>
    Object.entries(registry.require(type).relationships).map(([name, relationship]) => {
      const reference = REFERENCE_RESOURCES[type]?.relationships[name];
      const expected = reference ? referenceTypeOf(name, reference) : undefined;
      const typed = INTERFACE_TYPINGS[`${type}.${name}`];
      return {
        type,
        name,
        rendered: rendered(registry, relationship),
        reference,
        expected,
        interface: typed,
        // Where the interface types it, that stands; else the reference's declaration, where it decides.
        agrees: typed !== undefined || expected === undefined || agrees(registry, relationship, expected),
      };
    }),
  );
}

export function relationshipsTable(registry: Registry): string {
  const cell = (text: string | undefined) => (text ? `\`${text}\`` : '–');
  const rows = relationshipRows(registry).map((row) => {
    const kept = KEPT_TYPES[`${row.type}.${row.name}`];
    const file = REFERENCE_RESOURCES[row.type]?.file;
    const reference = row.reference ? `${file}: \`${row.reference}\`` : file ? `${file}: none` : 'no resource';
    return `| \`${row.type}\` | \`${row.name}\` | ${cell(row.rendered)}${kept ? ` (${kept})` : ''} | ${reference} | ${cell(row.interface)} |`;
  });
  return [
    '# Relationships and the types they link',
    '',
    '<!-- Generated from the resource definitions by `npm run docs:types`; do not edit (a test fails while it is stale). -->',
    '',
    "Every relationship of every served type: the type its linkage names, the reference's declaration (sanger/sequencescape",
    '`app/resources/api/v2/`, the resource file or the shared behaviour it includes) and the type interface.md gives it.',
    "The interface's typing stands; where it has none, the reference's declaration decides (contract §7.4): a",
    '`class_name` names the type, a `polymorphic` relationship links each record as its own type, and a relationship',
    'without either links the type of its name. "own type" lists the kinds a polymorphic linkage names; a linkage',
    'to `labware` or `purposes` renders its record as that type. Where this service differs from the reference, the',
    `reason follows in brackets (docs/decisions.md, "The reference's names and types").`,
    '',
    '| type | relationship | linkage type | reference | interface |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
