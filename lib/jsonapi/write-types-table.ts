import { writeFileSync } from 'node:fs';
import { typesTable, TYPES_FILE } from '#lib/jsonapi/types-table.ts';
import { registry } from '#lib/resources/index.ts';

// `npm run docs:types`: regenerates docs/types.md from the resource definitions.
writeFileSync(TYPES_FILE, typesTable(registry));
console.log(`wrote ${TYPES_FILE}`);
