/**
 * The one DynamoDB table. Its key schema is the single source of truth for the entities
 * (lib/store/entities.ts), the local table (lib/local/dynamodb.ts) and the CDK stack (infra/).
 *
 * Secondary indexes serve what every record has: its place in its type's listings (by id, and by update
 * time). A uuid needs none: it names its record's key (lib/store/uuids.ts). They are maintained by DynamoDB itself, so they cost no items in a write
 * transaction — which is what lets the largest operations (a rack of 96 tubes) fit its 100 items.
 * They project only what a listing needs; the records themselves are then read (strongly consistent).
 * Filters and uniqueness use index items in the table instead (see entities.ts), written in the transaction.
 */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** Non-key attributes copied into the index. */
  projected: readonly string[];
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
  ],
} as const;
