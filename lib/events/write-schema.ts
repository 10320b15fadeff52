import { writeFileSync } from 'node:fs';
import { eventsSchemaText, SCHEMA_FILE } from '#lib/events/schema.ts';
import { registry } from '#lib/resources/index.ts';

// `npm run events:schema`: regenerates docs/events.schema.json from the resource definitions.
writeFileSync(SCHEMA_FILE, eventsSchemaText(registry));
console.log(`wrote ${SCHEMA_FILE}`);
