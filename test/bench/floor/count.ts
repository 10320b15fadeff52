import { counterKey } from './keys.ts';
import type { Db } from './db.ts';

/**
 * The record count of a listing, read the way the service keeps it TODAY: one consistent GetItem of the
 * family's counter item, whose `counts` map holds the number of records of each type.
 *
 * This is the one place to change when counts move to sharded `count` items (one BatchGetItem of the
 * shards, summed): keep the signature, swap the body.
 */
export async function readCount(db: Db, table: string, family: string, type: string): Promise<number> {
  const item = await db.get(table, counterKey(family), true);
  const counts = item?.counts as Record<string, number> | undefined;
  return counts?.[type] ?? 0;
}
