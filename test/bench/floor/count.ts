import { COUNT_SHARD_SK_PREFIX, countPartitionPk } from './keys.ts';
import type { Db } from './db.ts';

/** The record count of a listing, read the way the service keeps it: one strongly consistent Query of the family's count shards, summed. */
export async function readCount(db: Db, table: string, family: string, type: string): Promise<number> {
  const shards = await db.query({
    TableName: table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :shard)',
    ExpressionAttributeValues: { ':pk': countPartitionPk(family), ':shard': COUNT_SHARD_SK_PREFIX },
    ConsistentRead: true,
  });
  return shards.reduce((sum, item) => sum + Number(item[`n:${type}`] ?? 0), 0);
}
