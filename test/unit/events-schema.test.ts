import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { eventsSchema, eventsSchemaText, SCHEMA_FILE } from '#lib/events/schema.ts';
import { registry } from '#lib/resources/index.ts';

it('docs/events.schema.json is the one the resource definitions generate (else: npm run events:schema)', () => {
  expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(eventsSchemaText(registry));
});

it('describes an event type per action of each written type, and the message outcomes', () => {
  const types = Object.keys(eventsSchema(registry).$defs as object);
  expect(types).toEqual(
    expect.arrayContaining(['samples.created', 'samples.updated', 'requests.state_changed', 'transfers.created', 'messages.processed', 'messages.refused']),
  );
  expect(types).not.toContain('samples.state_changed');
  expect(types).not.toContain('users.created');
});
