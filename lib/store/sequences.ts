import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { type CallCount, currentCallCount, dynamo, onBehalfOf, withinDeadline } from '#lib/store/client.ts';
import { GroupCommit } from '#lib/store/group-commit.ts';
import { tableDefinition } from '#lib/store/table.ts';

/**
 * Id sequences (contract §1.3): one item per sequence, advanced by one atomic `ADD` outside the write's
 * transaction. Concurrent creators never contend on it as a lock: DynamoDB serialises the additions and
 * each call gets its own range. A request that then fails leaves a gap, which the contract allows.
 *
 * The item also keeps the latest creation time handed out, so a later id never gets an earlier creation
 * time (`sort=created_at` is served in id order): the call sets it only if it does not go back; if another
 * process's clock is ahead, a second call takes that time instead.
 *
 * One process sends one call per sequence at a time, for every reservation waiting when it goes (a group
 * commit). Sent one per request, concurrent requests of one process (`npm start`, a bench of 10 clients)
 * reached DynamoDB out of the order they read the clock, and a quarter of them failed the time's
 * condition and paid a second call (docs/decisions.md, "Identifiers"). A Lambda serves one request at a time, so there every reservation is its own call, as before.
 */
export interface Reservation {
  /** The first of the reserved ids; the others follow it. */
  first: number;
  /** The creation time of records with these ids. */
  createdAt: string;
}

interface Waiting {
  table: string;
  name: string;
  count: number;
  now: string;
  /** The request's call counter: the shared call counts toward each request it serves. */
  calls: CallCount | undefined;
}

/** Reservations of one table's sequence share its calls: one at a time, serving all that waited. */
const reservations = new GroupCommit<Waiting, Reservation>(async (batch) => {
  const { table, name } = batch[0]!;
  const total = batch.reduce((sum, r) => sum + r.count, 0);
  const now = batch.reduce((latest, r) => (r.now > latest ? r.now : latest), batch[0]!.now);
  const { first, createdAt } = await onBehalfOf(
    batch.map((r) => r.calls),
    () => advance(table, name, total, now),
  );
  let next = first;
  return batch.map((r) => {
    const range = { first: next, createdAt };
    next += r.count;
    return range;
  });
});

const key = (name: string) => ({ [tableDefinition.partitionKey]: `$lts#sequence_${name}`, [tableDefinition.sortKey]: '$sequence' });

/** `count` ids of the sequence `name`, created at `now` or later (the time another process has handed out). */
export function reserve(name: string, count: number, now: string): Promise<Reservation> {
  const table = config().LTS_TABLE_NAME;
  // A request whose deadline passes leaves at once; its ids, if the call still lands, are a gap.
  return withinDeadline(reservations.submit(`${table}/${name}`, { table, name, count, now, calls: currentCallCount() }));
}

/** Advances the sequence by `count`, setting its time to `now` unless a later one was handed out. */
async function advance(table: string, name: string, count: number, now: string): Promise<Reservation> {
  const base = { TableName: table, Key: key(name), ReturnValues: 'ALL_NEW' as const };
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
