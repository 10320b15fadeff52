import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { tableDefinition } from '#lib/store/table.ts';
import type { RecordModel, StagedChanges } from '#lib/store/write-plan.ts';

/**
 * Record counts (`meta.record_count`) without a shared lock. Each counter (an id family, or families
 * counted together: ResourceDef.countedWith) is split into
 * SHARDS items; a write adds its changes to one shard, chosen at random, with a plain `ADD` inside its
 * own transaction — exact, visible at once, and never conditional, so writes of different records never
 * wait on one another. A counter's shards share one partition, so reading it is one strongly consistent
 * Query of that partition, charged by the shards' bytes summed (one read unit for up to 4 KB of them)
 * where a BatchGetItem of the 16 keys is charged a unit a shard.
 *
 * A shard holds one number per counted key: a type (`plates`), or a type and an index value with few
 * distinct values (`plates|purpose#3`, for filtered counts).
 */
export const SHARDS = 16;

const counterPartition = (name: string) => `$lts#counts_${name}`;
const SHARD_SK_PREFIX = '$counts#shard_';

export const shardKey = (name: string, shard: number) => ({
  [tableDefinition.partitionKey]: counterPartition(name),
  [tableDefinition.sortKey]: `${SHARD_SK_PREFIX}${String(shard).padStart(2, '0')}`,
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

/** The counts kept under a counter, summed over its shards (one strongly consistent Query of their partition). */
export async function readCounts(name: string): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  let start: Record<string, unknown> | undefined;
  do {
    // A shard grows with the counted keys (a purpose's count is one), so the partition may page past 1 MB.
    const page = await dynamo().send(
      new QueryCommand({
        TableName: config().LTS_TABLE_NAME,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :shard)',
        ExpressionAttributeNames: { '#pk': tableDefinition.partitionKey, '#sk': tableDefinition.sortKey },
        ExpressionAttributeValues: { ':pk': counterPartition(name), ':shard': SHARD_SK_PREFIX },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      for (const [attribute, value] of Object.entries(item)) {
        if (attribute.startsWith(PREFIX)) totals.set(attribute.slice(PREFIX.length), (totals.get(attribute.slice(PREFIX.length)) ?? 0) + Number(value));
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
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
