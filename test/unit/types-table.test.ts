import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REFERENCE_RESOURCE_FILES } from '#lib/jsonapi/reference-directory.ts';
import { referenceStatus, typesTable, TYPES_FILE } from '#lib/jsonapi/types-table.ts';
import { registry } from '#lib/resources/index.ts';

it('docs/types.md is the table the resource definitions generate (else: npm run docs:types)', () => {
  expect(readFileSync(TYPES_FILE, 'utf8')).toBe(typesTable(registry));
});

it('has a row per type with its methods, filters, writable fields and relationships', () => {
  const rows = typesTable(registry)
    .split("## The reference's types")[0]!
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  expect(rows).toHaveLength(registry.types.length);
  const samples = rows.find((r) => r.startsWith('| `samples`'))!;
  expect(samples.startsWith('| `samples` | GET, POST, PATCH | `id`, `uuid`, `name`, `site_sample_id`, `sanger_sample_id` | ')).toBe(true);
  expect(samples).toContain('`name`*');
  expect(samples).toContain('`studies`*');
  expect(rows.find((r) => r.startsWith('| `poly_metadata`'))).toContain('POST `/bulk_create`');
  // An action on one record names its path from the record.
  expect(rows.find((r) => r.startsWith('| `plates`'))).toContain('POST `/{id}/register_stock_for_plate`');
  expect(rows.find((r) => r.startsWith('| `users`'))).toMatch(/^\| `users` \| GET \| [^|]+ \| – \|/);
});

describe("the reference's directory (lib/jsonapi/reference-directory.ts)", () => {
  const rows = () =>
    typesTable(registry)
      .split("## The reference's types")[1]!
      .split('\n')
      .filter((line) => line.startsWith('| `'));

  it('has a row per file of the reference, each served, or not served with a reason, or no type with a reason', () => {
    expect(rows()).toHaveLength(REFERENCE_RESOURCE_FILES.length);
    expect(new Set(REFERENCE_RESOURCE_FILES.map((f) => f.file)).size).toBe(REFERENCE_RESOURCE_FILES.length);
    for (const entry of REFERENCE_RESOURCE_FILES) {
      const status = referenceStatus(registry, entry);
      expect(status, entry.file).not.toContain('(no reason given)');
      // A type of the registry is served; any other type of the reference carries a reason.
      expect(status.startsWith('served'), entry.file).toBe(entry.type !== undefined && registry.types.includes(entry.type));
    }
    expect(rows().find((r) => r.startsWith('| `lane_resource.rb`'))).toContain('| `lanes` | served, read only;');
    expect(rows().find((r) => r.startsWith('| `asset_resource.rb`'))).toContain('| not served: ');
  });

  it('keeps no reason for a type that is served (a stale reason fails here)', () => {
    const stale = REFERENCE_RESOURCE_FILES.filter((f) => f.type && registry.types.includes(f.type) && (f.notServed || f.notType));
    expect(stale.map((f) => f.file)).toEqual([]);
  });

  it('says so when a served type is not in the list', () => {
    // In name order, as the table is (the registry's order is the order types were added in).
    const others = registry.types.filter((t) => !REFERENCE_RESOURCE_FILES.some((f) => f.type === t)).sort();
    expect(typesTable(registry)).toContain(`Served here and not among them: ${others.map((t) => `\`${t}\``).join(', ')}.`);
  });
});
