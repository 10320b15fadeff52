import * as z from '#lib/zod.ts';
import { OUTCOME_EVENTS } from '#lib/events/inbound.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import type { ResourceDef } from '#lib/jsonapi/resource.ts';
import { STOCK_REGISTERED, stockResourceSchema } from '#lib/operations/stock-registration.ts';

/**
 * The machine-readable description of the events (contract §4): one JSON Schema (draft 2020-12) with a
 * definition per event type, generated from the resource definitions, committed as
 * docs/events.schema.json by `npm run events:schema` (a test fails when it is stale).
 *
 * Every type the API writes (POST or PATCH) has `<type>.created` and `<type>.updated`, and
 * `<type>.state_changed` when it has a `state` attribute: the set of event types that can occur, not a
 * promise that each does (a transfer is only ever created). Actions add the events they name
 * (ACTION_EVENTS), and inbound messages the outcome events.
 */

type JsonSchema = Record<string, unknown>;

/** The schema of a value, without its own `$schema` (it sits inside this document). */
function schemaOf(schema: z.core.$ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

/** The resource object as the API renders it into an event: its readable attributes, links, no relationship data. */
function resourceSchema(def: ResourceDef): JsonSchema {
  const attributes = Object.entries(def.attributes).filter(([, a]) => a.access !== 'WO');
  return {
    type: 'object',
    required: ['type', 'id', 'attributes', 'links'],
    properties: {
      type: { const: def.type },
      id: { type: 'string' },
      attributes: {
        type: 'object',
        properties: Object.fromEntries(attributes.map(([name, a]) => [name, a.required ? schemaOf(a.schema) : nullable(schemaOf(a.schema))])),
      },
      relationships: { type: 'object' },
      links: { type: 'object', required: ['self'], properties: { self: { type: 'string', format: 'uri' } } },
    },
  };
}

const envelope = (type: string, resourceType: string, data: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['id', 'type', 'occurred_at', 'resource', 'data', 'actor'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: type },
    occurred_at: { type: 'string', format: 'date-time' },
    resource: {
      type: 'object',
      required: ['type', 'id', 'uuid', 'version'],
      properties: {
        type: { const: resourceType },
        id: { type: 'string' },
        uuid: { type: ['string', 'null'] },
        version: { type: 'integer', minimum: 1, description: "The record's version after the write: order and de-duplicate a resource's events by it." },
      },
    },
    data,
    actor: { $ref: '#/$defs/actor' },
  },
});

/**
 * Events named after an action rather than a record's creation or change, each a resource object of its
 * type, with what its `meta` carries: a plate's stock registration and each well it registered
 * (lib/operations/stock-registration.ts).
 */
const ACTION_EVENTS: { type: string; resource: string; meta?: Record<string, z.core.$ZodType> }[] = [
  { type: `plates.${STOCK_REGISTERED}`, resource: 'plates' },
  { type: `wells.${STOCK_REGISTERED}`, resource: 'wells', meta: { stock_resource: stockResourceSchema() } },
  // A cherrypicking given with a Heron plate (lib/operations/heron-reception.ts): the event lighthouse built, as it sent it.
  { type: 'plates.cherrypicked', resource: 'plates', meta: { event: z.record(z.string(), z.unknown()) } },
];

/** An action event's data: its resource object, with its `meta` members when it carries any. */
function actionEventData({ resource, meta }: (typeof ACTION_EVENTS)[number]): JsonSchema {
  const data = { $ref: `#/$defs/resource.${resource}` };
  if (!meta) return data;
  const members = Object.fromEntries(Object.entries(meta).map(([name, schema]) => [name, schemaOf(schema)]));
  return {
    allOf: [data, { type: 'object', required: ['meta'], properties: { meta: { type: 'object', required: Object.keys(members), properties: members } } }],
  };
}

/** The outcome of an inbound message (lib/events/inbound.ts MessageOutcome). */
const outcomeSchema: JsonSchema = {
  type: 'object',
  required: ['method', 'path', 'idempotency_key', 'status', 'location', 'resources', 'errors'],
  properties: {
    method: {},
    path: {},
    idempotency_key: {},
    status: { type: 'integer' },
    location: { type: ['string', 'null'] },
    resources: { type: 'array', items: { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string' }, id: { type: 'string' } } } },
    errors: { type: 'array', items: { type: 'object' } },
  },
};

/** The schema document of every event type. */
export function eventsSchema(registry: Registry): JsonSchema {
  const written = registry.types.map((type) => registry.require(type)).filter((def) => def.methods.includes('create') || def.methods.includes('update'));
  const events: Record<string, JsonSchema> = {};
  const resources: Record<string, JsonSchema> = {};
  for (const def of written) {
    const data = resourceSchema(def);
    const actions = ['created', 'updated', ...('state' in def.attributes ? ['state_changed'] : [])];
    resources[`resource.${def.type}`] = data;
    for (const action of actions) events[`${def.type}.${action}`] = envelope(`${def.type}.${action}`, def.type, { $ref: `#/$defs/resource.${def.type}` });
  }
  for (const action of ACTION_EVENTS) {
    resources[`resource.${action.resource}`] ??= resourceSchema(registry.require(action.resource));
    events[action.type] = envelope(action.type, action.resource, actionEventData(action));
  }
  for (const type of Object.values(OUTCOME_EVENTS)) events[type] = envelope(type, 'messages', outcomeSchema);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Laboratory Tracking Service events',
    description:
      'Every domain event (contract §4). On EventBridge: source "lts", detail-type = type, detail = the event; an event over 256 KB has data cut to {type, id, links: {self}} and data_omitted: true. Generated by npm run events:schema.',
    oneOf: Object.keys(events).map((type) => ({ $ref: `#/$defs/${type}` })),
    $defs: {
      actor: {
        type: 'object',
        required: ['api_key', 'user'],
        properties: {
          api_key: { type: ['string', 'null'] },
          user: nullable({
            type: 'object',
            required: ['type', 'id'],
            properties: { type: { type: 'string' }, id: { type: 'string' }, uuid: { type: ['string', 'null'] } },
          }),
        },
      },
      ...resources,
      ...events,
    },
  };
}

/** Where the document is committed. */
export const SCHEMA_FILE = 'docs/events.schema.json';

/** The committed document's text: the schema, two-space indented, with a final newline. */
export const eventsSchemaText = (registry: Registry): string => `${JSON.stringify(eventsSchema(registry), null, 2)}\n`;
