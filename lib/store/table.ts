/**
 * The one DynamoDB table. Its key schema is the single source of truth for the entities
 * (lib/store/entities.ts), the local table (lib/local/dynamodb.ts) and the CDK stack (infra/).
 *
 * Secondary indexes serve what every record has: its uuid and its place in its type's listings (by id,
 * and by update time). They are maintained by DynamoDB itself, so they cost no items in a write
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
const listed = ['family', 'id', 'type', 'updatedAt', '__edb_e__', '__edb_v__'] as const;

export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Expired request records (idempotency, published events) are removed by DynamoDB's TTL. */
  timeToLiveAttribute: 'ttl',
  /** Record changes feed the event publisher. */
  stream: 'NEW_IMAGE',
  indexes: [
    { name: 'byUuid', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projected: listed },
    { name: 'byType', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projected: listed },
    { name: 'byTypeUpdated', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projected: listed },
    // Two general lookup slots for single-valued filters that must cost no transaction item (e.g. a
    // labware's barcode and purpose): the key is `<scope>#<value>`; records without one are not indexed.
    { name: 'byLookup1', partitionKey: 'gsi4pk', sortKey: 'gsi4sk', projected: listed },
    { name: 'byLookup2', partitionKey: 'gsi5pk', sortKey: 'gsi5sk', projected: listed },
  ],
} as const;
