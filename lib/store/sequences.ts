import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { tableDefinition } from '#lib/store/table.ts';

/**
 * Id sequences (contract §1.3): one item per sequence, advanced by one atomic `ADD` per request, outside
 * the write's transaction. Concurrent creators never contend on it as a lock: DynamoDB serialises the
 * additions and each caller gets its own range. A request that then fails leaves a gap, which the
 * contract allows.
 *
 * The item also keeps the latest creation time handed out, so a later id never gets an earlier creation
 * time (`sort=created_at` is served in id order): the first call sets it only if it does not go back; if
 * another process's clock is ahead, a second call takes that time instead.
 */
export interface Reservation {
  /** The first of the reserved ids; the others follow it. */
  first: number;
  /** The creation time of records with these ids. */
  createdAt: string;
}

const key = (name: string) => ({ [tableDefinition.partitionKey]: `$lts#sequence_${name}`, [tableDefinition.sortKey]: '$sequence' });

export async function reserve(name: string, count: number, now: string): Promise<Reservation> {
  const base = { TableName: config().LTS_TABLE_NAME, Key: key(name), ReturnValues: 'ALL_NEW' as const };
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        ...base,
        UpdateExpression: 'ADD #v :n SET #t = :now',
        ConditionExpression: 'attribute_not_exists(#t) OR #t <= :now',
        ExpressionAttributeNames: { '#v': 'value', '#t': 'createdAt' },
        ExpressionAttributeValues: { ':n': count, ':now': now },
      }),
    );
    return { first: Number(Attributes!.value) - count + 1, createdAt: now };
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
  }
  const { Attributes } = await dynamo().send(
    new UpdateCommand({ ...base, UpdateExpression: 'ADD #v :n', ExpressionAttributeNames: { '#v': 'value' }, ExpressionAttributeValues: { ':n': count } }),
  );
  return { first: Number(Attributes!.value) - count + 1, createdAt: String(Attributes!.createdAt) };
}
