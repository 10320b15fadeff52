import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { type CallCount, currentCallCount, dynamo, onBehalfOf, withinDeadline } from '#lib/store/client.ts';
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
 * condition and paid a second call (docs/decisions.md, "Id reservations: one call at a time per
 * sequence"). A Lambda serves one request at a time, so there every reservation is its own call, as before.
 */
export interface Reservation {
  /** The first of the reserved ids; the others follow it. */
  first: number;
  /** The creation time of records with these ids. */
  createdAt: string;
}

interface Waiting {
  count: number;
  now: string;
  /** The request's call counter: the shared call counts toward each request it serves. */
  calls: CallCount | undefined;
  resolve: (reservation: Reservation) => void;
  reject: (error: unknown) => void;
}

/** Reservations waiting for the next call, by table and sequence; present while a call is under way. */
const waiting = new Map<string, Waiting[]>();

const key = (name: string) => ({ [tableDefinition.partitionKey]: `$lts#sequence_${name}`, [tableDefinition.sortKey]: '$sequence' });

/** `count` ids of the sequence `name`, created at `now` or later (the time another process has handed out). */
export function reserve(name: string, count: number, now: string): Promise<Reservation> {
  const table = config().LTS_TABLE_NAME;
  const queueKey = `${table}/${name}`;
  const reservation = new Promise<Reservation>((resolve, reject) => {
    const entry = { count, now, calls: currentCallCount(), resolve, reject };
    const queue = waiting.get(queueKey);
    if (queue) queue.push(entry);
    else {
      waiting.set(queueKey, [entry]);
      void drain(queueKey, table, name);
    }
  });
  // A request whose deadline passes leaves at once; its ids, if the call still lands, are a gap.
  return withinDeadline(reservation);
}

/** Sends the sequence's calls until no reservation waits: each call serves all that waited when it went. */
async function drain(queueKey: string, table: string, name: string): Promise<void> {
  for (let batch = waiting.get(queueKey)!; batch.length > 0; batch = waiting.get(queueKey)!) {
    waiting.set(queueKey, []);
    const total = batch.reduce((sum, r) => sum + r.count, 0);
    const now = batch.reduce((latest, r) => (r.now > latest ? r.now : latest), batch[0]!.now);
    try {
      const { first, createdAt } = await onBehalfOf(
        batch.map((r) => r.calls),
        () => advance(table, name, total, now),
      );
      let next = first;
      for (const r of batch) {
        r.resolve({ first: next, createdAt });
        next += r.count;
      }
    } catch (error) {
      for (const r of batch) r.reject(error);
    }
  }
  waiting.delete(queueKey);
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
