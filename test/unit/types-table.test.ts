import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { typesTable, TYPES_FILE } from '#lib/jsonapi/types-table.ts';
import { registry } from '#lib/resources/index.ts';

it('docs/types.md is the table the resource definitions generate (else: npm run docs:types)', () => {
  expect(readFileSync(TYPES_FILE, 'utf8')).toBe(typesTable(registry));
});

it('has a row per type with its methods, filters, writable fields and relationships', () => {
  const rows = typesTable(registry)
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
