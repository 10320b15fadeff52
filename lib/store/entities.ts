import { Entity, Service } from 'electrodb';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { tableDefinition } from '#lib/store/table.ts';

/**
 * The single-table model. Every item shares the table's `pk`/`sk`; ElectroDB prefixes keys with the
 * entity so the kinds of item never collide.
 *
 * - record: one JSON:API resource (or one aggregate, e.g. a plate with its wells), keyed by id family and
 *   id (its uuid names that key too); the secondary indexes list its type by id or update time, and find it by up to
 *   two single-valued lookups (`lookup1`, `lookup2`: `<scope>#<value>`).
 * - term: an index entry for a filter or a uniqueness rule. `scope`+`value` is what is looked up (a name,
 *   a sample id), `ref` orders the entries (the padded id) or is `-` for a unique entry, which then
 *   doubles as the uniqueness guard (created with attribute_not_exists).
 * - sequences and count shards are plain items written with lib-dynamodb (lib/store/sequences.ts,
 *   lib/store/counts.ts): their attributes are named at run time, which ElectroDB entities cannot express.
 * - request: one per committed write — its domain events (the outbox) and, under an Idempotency-Key,
 *   the response to replay; a large payload compressed, or in requestChunk items beside it
 *   (lib/store/request-payload.ts).
 * - apiKey / apiKeyName: a hashed API key with its name and scope, found by hash (requests) or name (admin).
 * - a write larger than one transaction keeps its transaction record, staged keys, after-images and its
 *   entry among the open ones in plain items of its own key space (lib/store/tx-items.ts).
 */
const pk = tableDefinition.partitionKey;
const sk = tableDefinition.sortKey;
const [byType, byTypeUpdated, byLookup1, byLookup2, byLookup2Updated] = tableDefinition.indexes;
/** Ids sort as text in keys, so they are zero-padded there. */
const idPadding = { length: 12, char: '0' };
/**
 * A write larger than one transaction marks the records and index entries it stages with its id and what
 * it does to them (lib/store/large-write.ts); readers resolve the marks (lib/store/visibility.ts).
 */
const markerAttributes = { tx: { type: 'string' }, txOp: { type: 'string' } } as const;

function build() {
  const options = { table: config().LTS_TABLE_NAME, client: dynamo() };

  const record = new Entity(
    {
      model: { entity: 'record', version: '1', service: 'lts' },
      attributes: {
        family: { type: 'string', required: true },
        id: { type: 'number', required: true, padding: idPadding },
        type: { type: 'string', required: true },
        uuid: { type: 'string', required: true },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
        version: { type: 'number', required: true },
        attrs: { type: 'any', required: true },
        rels: { type: 'any', required: true },
        lookup1: { type: 'string' },
        lookup2: { type: 'string' },
        // The sort values of the lookup indexes, set only with their lookup, so records without one stay out of them.
        lookup1Id: { type: 'number', padding: idPadding },
        lookup2Id: { type: 'number', padding: idPadding },
        lookup2UpdatedAt: { type: 'string' },
        ...markerAttributes,
      },
      indexes: {
        byId: { pk: { field: pk, composite: ['family', 'id'], casing: 'none' }, sk: { field: sk, composite: [], casing: 'none' } },
        byType: {
          index: byType.name,
          pk: { field: byType.partitionKey, composite: ['type'], casing: 'none' },
          sk: { field: byType.sortKey, composite: ['id'], casing: 'none' },
        },
        byTypeUpdated: {
          index: byTypeUpdated.name,
          pk: { field: byTypeUpdated.partitionKey, composite: ['type'], casing: 'none' },
          sk: { field: byTypeUpdated.sortKey, composite: ['updatedAt', 'id'], casing: 'none' },
        },
        // Sparse: a record without the lookup value gets no key in the index.
        byLookup1: {
          index: byLookup1.name,
          condition: (a) => typeof a.lookup1 === 'string',
          pk: { field: byLookup1.partitionKey, composite: ['lookup1'], casing: 'none' },
          sk: { field: byLookup1.sortKey, composite: ['lookup1Id'], casing: 'none' },
        },
        byLookup2: {
          index: byLookup2.name,
          condition: (a) => typeof a.lookup2 === 'string',
          pk: { field: byLookup2.partitionKey, composite: ['lookup2'], casing: 'none' },
          sk: { field: byLookup2.sortKey, composite: ['lookup2Id'], casing: 'none' },
        },
        byLookup2Updated: {
          index: byLookup2Updated.name,
          condition: (a) => typeof a.lookup2 === 'string',
          pk: { field: byLookup2Updated.partitionKey, composite: ['lookup2'], casing: 'none' },
          sk: { field: byLookup2Updated.sortKey, composite: ['lookup2UpdatedAt', 'lookup2Id'], casing: 'none' },
        },
      },
    },
    options,
  );

  const term = new Entity(
    {
      model: { entity: 'term', version: '1', service: 'lts' },
      attributes: {
        scope: { type: 'string', required: true },
        value: { type: 'string', required: true },
        ref: { type: 'string', required: true },
        family: { type: 'string', required: true },
        type: { type: 'string', required: true },
        id: { type: 'number', required: true },
        ...markerAttributes,
      },
      indexes: { byValue: { pk: { field: pk, composite: ['scope', 'value'], casing: 'none' }, sk: { field: sk, composite: ['ref'], casing: 'none' } } },
    },
    options,
  );

  const request = new Entity(
    {
      model: { entity: 'request', version: '1', service: 'lts' },
      attributes: {
        key: { type: 'string', required: true },
        committedAt: { type: 'string', required: true },
        requestHash: { type: 'string' },
        // The payload in one of three forms (lib/store/request-payload.ts): events and response as they are,
        // gzipped (payload), or gzipped in requestChunk items (chunks names them).
        events: { type: 'any' },
        response: { type: 'any' },
        payload: { type: 'any' },
        chunks: { type: 'any' },
        ttl: { type: 'number', required: true },
      },
      indexes: { byKey: { pk: { field: pk, composite: ['key'], casing: 'none' }, sk: { field: sk, composite: [], casing: 'none' } } },
    },
    options,
  );

  // A part of a large request payload, in its request item's partition.
  const requestChunk = new Entity(
    {
      model: { entity: 'requestChunk', version: '1', service: 'lts' },
      attributes: {
        key: { type: 'string', required: true },
        set: { type: 'string', required: true },
        n: { type: 'number', required: true, padding: { length: 3, char: '0' } },
        data: { type: 'any', required: true },
        ttl: { type: 'number', required: true },
      },
      indexes: { byKey: { pk: { field: pk, composite: ['key'], casing: 'none' }, sk: { field: sk, composite: ['set', 'n'], casing: 'none' } } },
    },
    options,
  );

  const apiKey = new Entity(
    {
      model: { entity: 'apiKey', version: '1', service: 'lts' },
      attributes: {
        hash: { type: 'string', required: true },
        name: { type: 'string', required: true },
        scope: { type: 'string', required: true },
        createdAt: { type: 'string', required: true },
      },
      indexes: { byHash: { pk: { field: pk, composite: ['hash'], casing: 'none' }, sk: { field: sk, composite: [], casing: 'none' } } },
    },
    options,
  );

  // Keys by name: guards name uniqueness and lets the admin list and revoke keys by name.
  const apiKeyName = new Entity(
    {
      model: { entity: 'apiKeyName', version: '1', service: 'lts' },
      attributes: {
        realm: { type: 'string', required: true },
        name: { type: 'string', required: true },
        hash: { type: 'string', required: true },
        scope: { type: 'string', required: true },
        createdAt: { type: 'string', required: true },
      },
      indexes: { byName: { pk: { field: pk, composite: ['realm'], casing: 'none' }, sk: { field: sk, composite: ['name'], casing: 'none' } } },
    },
    options,
  );

  return new Service({ record, term, request, requestChunk, apiKey, apiKeyName }, options);
}

export type LtsService = ReturnType<typeof build>;

let service: LtsService | undefined;

/** The ElectroDB service, built once per process (after configuration is known). */
export function store(): LtsService {
  service ??= build();
  return service;
}

export function resetStore(): void {
  service = undefined;
}
