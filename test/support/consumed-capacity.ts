import { randomUUID } from 'node:crypto';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { dynamo } from '#lib/store/client.ts';

/** Capacity units DynamoDB reports for the calls made while a function ran: reads and writes, the table's and each index's. */
export interface Consumed {
  read: number;
  write: number;
  /** Units by where they were consumed: `table`, or an index's name. */
  by: Record<string, number>;
}

const WRITES = new Set(['TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

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
      const op = String(context.commandName).replace(/Command$/, '');
      for (const c of [reported ?? []].flat()) {
        consumed[WRITES.has(op) ? 'write' : 'read'] += c.CapacityUnits ?? 0;
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
