/**
 * The one DynamoDB table. Its key schema is the single source of truth for the entities
 * (lib/store/entities.ts), the local table (lib/local/dynamodb.ts) and the CDK stack (infra/).
 *
 * Secondary indexes serve what every record has: its place in its type's listings (by id, and by update
 * time). A uuid needs none: it names its record's key (lib/store/uuids.ts). They are maintained by DynamoDB itself, so they cost no items in a write
 * transaction — which is what lets the largest operations (a rack of 96 tubes) fit its 100 items.
 * Most project only what a listing needs, and the records are then read by key (strongly consistent);
 * `byTypeRecord` carries whole records, so a page by id is one Query (docs/decisions.md, "Listing pages read
 * from a projected index"). Filters and uniqueness use index items in the table instead (see entities.ts),
 * written in the transaction.
 */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** Non-key attributes copied into the index, or `all` of them (the whole item). */
  projected: readonly string[] | 'all';
}

// ElectroDB reads its entity markers (__edb_e__, __edb_v__) with every item, so indexes project them too.
// Only the indexes ordered by update time project it: elsewhere an update then rewrites no index entry.
const keys = ['family', 'id', 'type', '__edb_e__', '__edb_v__'] as const;
const keysAndUpdated = [...keys, 'updatedAt'] as const;

export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Expired request records (idempotency, published events) are removed by DynamoDB's TTL. */
  timeToLiveAttribute: 'ttl',
  /** Record changes feed the event publisher. */
  stream: 'NEW_IMAGE',
  indexes: [
    { name: 'byType', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projected: keys },
    { name: 'byTypeUpdated', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projected: keysAndUpdated },
    // Two general lookup slots for single-valued filters that must cost no transaction item (a labware's
    // barcode, its purpose): the key is `<scope>#<value>`, entries in id order; records without one are not
    // indexed. The second slot is also ordered by update time (limber lists plates of a purpose by it).
    { name: 'byLookup1', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projected: keys },
    { name: 'byLookup2', partitionKey: 'gsi4pk', sortKey: 'gsi4sk', projected: keys },
    { name: 'byLookup2Updated', partitionKey: 'gsi5pk', sortKey: 'gsi5sk', projected: keysAndUpdated },
    // byType's keys with the whole record: a record's type and id never change, so an update rewrites its copy
    // in place (one index write) and never moves it. It replaces byType, which a later release removes once
    // every deployed table has it (a GSI's projection cannot change, so it is a new index: "Listing pages read
    // from a projected index"); reads fall back to byType while DynamoDB backfills it.
    { name: 'byTypeRecord', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projected: 'all' },
  ],
} as const satisfies { indexes: readonly IndexDefinition[] } & Record<string, unknown>;

/** An index's projection as DynamoDB's API (CreateTable, UpdateTable) names it. */
export const indexProjection = (index: IndexDefinition) =>
  index.projected === 'all' ? { ProjectionType: 'ALL' as const } : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projected] };
