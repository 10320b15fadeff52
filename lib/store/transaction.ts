import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { CapacityError, capacityReason, THROTTLED_RETRY_AFTER_SECONDS } from '#lib/store/errors.ts';
import { dynamo } from '#lib/store/client.ts';

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
