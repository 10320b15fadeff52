import { randomUUID } from 'node:crypto';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { CAPACITY_KIND, dynamo, unitsOf } from '#lib/store/client.ts';

/** Capacity units DynamoDB reports for the calls made while a function ran: reads and writes, the table's and each index's. */
export interface Consumed {
  read: number;
  write: number;
  /** Units by where they were consumed: `table`, or an index's name. */
  by: Record<string, number>;
}

/**
 * Runs `fn` with every call of the shared client asking for its consumed capacity (`ReturnConsumedCapacity:
 * 'INDEXES'`, which DynamoDB Local answers) and adds it up. What the service sends is otherwise unchanged.
 * Counts the whole process, so what is measured must not overlap other calls.
 */
export async function consumedBy<T>(fn: () => Promise<T>): Promise<{ result: T; consumed: Consumed }> {
  const consumed: Consumed = { read: 0, write: 0, by: {} };
  const add = (key: string, units: number | undefined) => {
    if (units) consumed.by[key] = (consumed.by[key] ?? 0) + units;
  };
  const name = `consumed-${randomUUID()}`;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const answer = await next({ ...args, input: { ...(args.input as object), ReturnConsumedCapacity: 'INDEXES' } });
      const reported = (answer.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
      const kind = CAPACITY_KIND[String(context.commandName).replace(/Command$/, '')] ?? 'read';
      consumed[kind] += unitsOf(reported);
      for (const c of [reported ?? []].flat()) {
        add('table', c.Table?.CapacityUnits);
        for (const [index, units] of Object.entries(c.GlobalSecondaryIndexes ?? {})) add(index, units.CapacityUnits);
      }
      return answer;
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), consumed };
  } finally {
    dynamo().middlewareStack.remove(name);
  }
}
