import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { singularOf } from '#lib/jsonapi/fieldsets.ts';
import { KEPT_TYPES, referenceTypeOf, relationshipRows, relationshipsTable, RELATIONSHIPS_FILE, typeOfName } from '#lib/jsonapi/relationships-table.ts';
import { registry } from '#lib/resources/index.ts';

const row = (type: string, name: string) => relationshipRows(registry).find((r) => r.type === type && r.name === name)!;

it('docs/relationships.md is the table the resource definitions generate (else: npm run docs:types)', () => {
  expect(readFileSync(RELATIONSHIPS_FILE, 'utf8')).toBe(relationshipsTable(registry));
});

it("reads a declaration's type as JSONAPI::Resources does: polymorphic, class_name, else the relationship's name", () => {
  expect(referenceTypeOf('purpose', 'has_one :purpose, write_once: true, foreign_key: :plate_purpose_id, class_name: "Purpose"')).toBe('purposes');
  expect(referenceTypeOf('parents', 'has_many :parents, readonly: true, polymorphic: true')).toBe('polymorphic');
  expect(referenceTypeOf('labware', 'has_one :labware, write_once: true')).toBe('labware');
  expect(referenceTypeOf('purpose', 'has_one :purpose, class_name: "PlatePurpose"')).toBe('plate_purposes');
  // A name that names no resource: the model's association decides, not the resource file.
  expect(referenceTypeOf('requests_as_source', 'has_many :requests_as_source, readonly: true')).toBeUndefined();
  expect(['PolyMetadatum', 'SampleMetadata', 'Labware', 'TubeRackPurpose', 'Study'].map(typeOfName)).toEqual([
    'poly_metadata',
    'sample_metadata',
    'labware',
    'tube_rack_purposes',
    'studies',
  ]);
});

it("types a labware's purpose `purposes` and a receptacle's labware `labware`; the interface's own typings stand (contract §7.4)", () => {
  for (const type of ['plates', 'tubes', 'labware']) expect(row(type, 'purpose').rendered).toBe('purposes');
  // The rack's own resource file declares `class_name: "TubeRackPurpose"`.
  expect(row('tube_racks', 'purpose').rendered).toBe('tube_rack_purposes');
  for (const type of ['wells', 'receptacles']) expect(row(type, 'labware')).toMatchObject({ rendered: 'labware', expected: 'labware', agrees: true });
  expect(row('plate_conversions', 'purpose')).toMatchObject({ rendered: 'plate_purposes', interface: 'plate_purposes', agrees: true });
  expect(row('tube_from_plate_creations', 'child_purpose')).toMatchObject({ rendered: 'tube_purposes', interface: 'tube_purposes', agrees: true });
  expect(row('plates', 'parents')).toMatchObject({ expected: 'polymorphic', agrees: true });
});

it('every relationship renders the type the reference declares, or says in KEPT_TYPES why not', () => {
  const rows = relationshipRows(registry);
  const differing = rows.filter((r) => !r.agrees).map((r) => `${r.type}.${r.name}`);
  expect(differing.sort()).toEqual(Object.keys(KEPT_TYPES).sort());
});

it("takes the reference's singular type names in fields[...] (JSONAPI::Resources finds a type's resource by its singular)", () => {
  expect(['plates', 'studies', 'purposes', 'poly_metadata', 'sample_metadata', 'labware', 'tube_rack_statuses'].map(singularOf)).toEqual([
    'plate',
    'study',
    'purpose',
    'poly_metadatum',
    'sample_metadatum',
    'labware',
    'tube_rack_status',
  ]);
  // No served type's singular is another served type: a singular names one type.
  const singulars = registry.types.map(singularOf);
  expect(new Set(singulars).size).toBe(singulars.length);
  expect(singulars.filter((s, i) => s !== registry.types[i] && registry.serves(s))).toEqual([]);
});
