import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { CapacityError, THROTTLED_RETRY_AFTER_SECONDS } from '#lib/store/errors.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { tableDefinition } from '#lib/store/table.ts';
import type { RecordModel, StagedChanges } from '#lib/store/write-plan.ts';

/**
 * Record counts (`meta.record_count`) without a shared lock. Each counter (an id family, or families
 * counted together: ResourceDef.countedWith) is split into
 * SHARDS items; a write adds its changes to one shard, chosen at random, with a plain `ADD` inside its
 * own transaction — exact, visible at once, and never conditional, so writes of different records never
 * wait on one another. Reading a counter sums its shards with one BatchGetItem.
 *
 * A shard holds one number per counted key: a type (`plates`), or a type and an index value with few
 * distinct values (`plates|purpose#3`, for filtered counts).
 */
export const SHARDS = 16;

export const shardKey = (name: string, shard: number) => ({
  [tableDefinition.partitionKey]: `$lts#counts_${name}`,
  [tableDefinition.sortKey]: `$counts#shard_${String(shard).padStart(2, '0')}`,
});

const PREFIX = 'n:';

/** The transaction item adding `deltas` to one shard of a counter. */
export function countUpdate(name: string, deltas: ReadonlyMap<string, number>, shard: number) {
  const entries = [...deltas];
  return {
    Update: {
      TableName: config().LTS_TABLE_NAME,
      Key: shardKey(name, shard),
      UpdateExpression: `ADD ${entries.map((_, i) => `#k${i} :d${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#k${i}`, PREFIX + k])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, d], i) => [`:d${i}`, d])),
    },
  };
}

export const randomShard = (): number => Math.floor(Math.random() * SHARDS);

/** The counts kept under a counter, summed over its shards (one consistent BatchGetItem). */
export async function readCounts(name: string): Promise<Map<string, number>> {
  const keys = Array.from({ length: SHARDS }, (_, shard) => shardKey(name, shard));
  const totals = new Map<string, number>();
  let pending: Record<string, unknown>[] | undefined = keys;
  for (let attempt = 0; pending && pending.length > 0; attempt++) {
    if (attempt === 6) throw new CapacityError(`BatchGetItem left ${pending.length} count shards unprocessed`, THROTTLED_RETRY_AFTER_SECONDS);
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
    const table = config().LTS_TABLE_NAME;
    const result: { Responses?: Record<string, Record<string, unknown>[]>; UnprocessedKeys?: Record<string, { Keys?: Record<string, unknown>[] }> } =
      await dynamo().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
    for (const item of result.Responses?.[table] ?? []) {
      for (const [attribute, value] of Object.entries(item)) {
        if (attribute.startsWith(PREFIX)) totals.set(attribute.slice(PREFIX.length), (totals.get(attribute.slice(PREFIX.length)) ?? 0) + Number(value));
      }
    }
    pending = result.UnprocessedKeys?.[table]?.Keys;
  }
  return totals;
}

/** Per counter (an id family's, or the one it is counted with), how a write's changes change its counted keys (each counter then gets one ADD). */
export function countDeltas(model: Pick<RecordModel, 'countsOf' | 'counterOf'>, changes: StagedChanges): Map<string, Map<string, number>> {
  const deltas = new Map<string, Map<string, number>>();
  const add = (record: StoredRecord, sign: number) => {
    const name = model.counterOf(record.family);
    let counter = deltas.get(name);
    if (!counter) {
      counter = new Map();
      deltas.set(name, counter);
    }
    for (const [key, n] of Object.entries(model.countsOf(record))) counter.set(key, (counter.get(key) ?? 0) + sign * n);
  };
  for (const record of changes.created) add(record, 1);
  for (const { before, after } of changes.updated) {
    add(before, -1);
    add(after, 1);
  }
  for (const record of changes.deleted) add(record, -1);
  for (const [name, keys] of deltas) {
    for (const [key, n] of keys) if (n === 0) keys.delete(key);
    if (keys.size === 0) deltas.delete(name);
  }
  return deltas;
}
