import { COUNT_SHARDS, countShardKey } from './keys.ts';
import type { Db } from './db.ts';

/** The record count of a listing, read the way the service keeps it: one BatchGetItem of the family's count shards, summed. */
export async function readCount(db: Db, table: string, family: string, type: string): Promise<number> {
  const shards = await db.batchGet(
    table,
    Array.from({ length: COUNT_SHARDS }, (_, shard) => countShardKey(family, shard)),
  );
  return shards.reduce((sum, item) => sum + Number(item[`n:${type}`] ?? 0), 0);
}
