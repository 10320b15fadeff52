import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { countUpdate, randomShard } from '#lib/store/counts.ts';
import { CapacityError, capacityReason, ConflictError, IdempotencyRace, THROTTLED_RETRY_AFTER_SECONDS, UniqueValueTaken } from '#lib/store/errors.ts';
import type { StagedOp, TakenValue } from '#lib/store/write-plan.ts';
import { dynamo } from '#lib/store/client.ts';
import { settleLocks } from '#lib/store/recovery.ts';
import type { ItemKey } from '#lib/store/tx-items.ts';

/** One item of a TransactWriteItems call (`Put`, `Update`, `Delete` or `ConditionCheck` with its parameters), as lib-dynamodb takes it. */
export type TransactItem = Partial<Record<'Put' | 'Update' | 'Delete' | 'ConditionCheck', Record<string, unknown>>>;
type SdkItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/** Why DynamoDB cancelled a transaction, per item (`None` for items that were fine). */
export type CancellationCode = 'None' | 'ConditionalCheckFailed' | 'TransactionConflict' | 'ThrottlingError' | 'ProvisionedThroughputExceeded' | string;

/**
 * Sends one transaction. Resolves with undefined when it committed, or with the per-item cancellation
 * codes when DynamoDB cancelled it. A cancellation for capacity is a CapacityError (a 503, never a 500).
 * The client request token makes the SDK's own retries of a timed-out call idempotent: counts are plain
 * ADDs, which must not be applied twice.
 */
export async function transact(items: TransactItem[]): Promise<CancellationCode[] | undefined> {
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items as SdkItems, ClientRequestToken: randomUUID() }));
    return undefined;
  } catch (error) {
    const { name, CancellationReasons } = error as { name?: string; CancellationReasons?: { Code?: string }[] };
    if (name === 'TransactionConflictException') return items.map(() => 'TransactionConflict');
    if (name !== 'TransactionCanceledException' || !CancellationReasons) throw error;
    const codes = CancellationReasons.map((r) => r.Code ?? 'None');
    if (codes.some(capacityReason))
      throw new CapacityError(`transaction cancelled for capacity: ${codes.filter((c) => c !== 'None').join(', ')}`, THROTTLED_RETRY_AFTER_SECONDS);
    return codes;
  }
}

/** Times a plan is re-sent with other count shards when only its count items met a concurrent write. */
const SHARD_RETRIES = 3;

/** Sends the transaction; when only its count shards met another write, again on other shards. */
export async function sendWrite(items: TransactItem[], onReject: StagedOp['onReject'][], deltas: [string, Map<string, number>][]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    // One ADD per counter that changes, on a shard drawn afresh for every attempt.
    const counts = deltas.map(([family, changes]) => countUpdate(family, changes, randomShard()));
    const codes = await transact([...items, ...counts]);
    if (!codes) return;
    const rejected = codes.map((code, i) => ({ code, i })).filter(({ code }) => code !== 'None');
    // Only count shards met another write: the same plan on other shards needs no fresh reads.
    if (rejected.every(({ code, i }) => code === 'TransactionConflict' && i >= items.length) && attempt < SHARD_RETRIES) continue;
    throw await failure(rejected.map(({ code, i }) => ({ code, onReject: onReject[i] ?? 'conflict', item: items[i] })));
  }
}

/** The table key of a transaction's item. */
export const keyOfItem = (item: TransactItem): ItemKey => {
  const params = (item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck)!;
  const { pk, sk } = (params.Item ?? params.Key) as ItemKey;
  return { pk, sk };
};

/**
 * The error a cancelled transaction becomes: values taken, an idempotency race, or a conflict (retried by
 * the engine). A condition that failed on an item a larger write holds (lib/store/large-write.ts) is a
 * conflict whatever the item: that write is ended if it may be (an abandoned one undone, a committed one
 * applied), and the writer starts again and finds it decided.
 */
export async function failure(rejected: { code: string; onReject: StagedOp['onReject']; item?: TransactItem }[]): Promise<Error> {
  const conditions = rejected.filter(({ code, item }) => code === 'ConditionalCheckFailed' && item !== undefined);
  if (await settleLocks(conditions.map(({ item }) => keyOfItem(item!)))) return new ConflictError('an item is held by a larger write');
  return classify(rejected);
}

function classify(rejected: { code: string; onReject: StagedOp['onReject'] }[]): Error {
  const unexpected = rejected.filter(({ code }) => code !== 'ConditionalCheckFailed' && code !== 'TransactionConflict').map(({ code }) => code);
  // Anything but a lost race or a taken value is a fault of ours (e.g. a validation error): a 500, not a retry.
  if (unexpected.length > 0) return new Error(`transaction cancelled: ${unexpected.join(', ')}`);
  const failed = rejected.filter(({ code }) => code === 'ConditionalCheckFailed').map(({ onReject }) => onReject);
  if (failed.includes('idempotency')) return new IdempotencyRace();
  const taken = failed.filter((r): r is TakenValue => typeof r === 'object');
  if (taken.length > 0 && taken.length === rejected.length) return new UniqueValueTaken(taken);
  return new ConflictError();
}
