/**
 * The one DynamoDB table. Its key schema is the single source of truth for the entities
 * (lib/store/entities.ts), the local table (lib/local/dynamodb.ts) and the CDK stack.
 *
 * Every access pattern is served by the base table (GetItem, Query, BatchGetItem) so reads can be
 * strongly consistent: a client that POSTs and immediately filters by uuid sees its record. Secondary
 * access paths are index items written in the same transaction as the record (see entities.ts).
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Expired idempotency records and published outbox events are removed by DynamoDB's TTL. */
  timeToLiveAttribute: 'ttl',
} as const;

export const defaultTableName = 'lts';
