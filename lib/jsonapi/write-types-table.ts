import { writeFileSync } from 'node:fs';
import { relationshipsTable, RELATIONSHIPS_FILE } from '#lib/jsonapi/relationships-table.ts';
import { typesTable, TYPES_FILE } from '#lib/jsonapi/types-table.ts';
import { registry } from '#lib/resources/index.ts';

// `npm run docs:types`: regenerates docs/types.md and docs/relationships.md from the resource definitions.
writeFileSync(TYPES_FILE, typesTable(registry));
writeFileSync(RELATIONSHIPS_FILE, relationshipsTable(registry));
console.log(`wrote ${TYPES_FILE} and ${RELATIONSHIPS_FILE}`);
