import { dynamo } from '#lib/store/client.ts';

/** What the shared DynamoDB client sent while a function ran. */
export interface ObservedCalls<T> {
  result: T;
  /** Calls by command name (`TransactWriteItemsCommand`, `BatchGetItemCommand`, …). */
  commands: Record<string, number>;
  /** The items of each TransactWriteItems, in the order sent. */
  transactions: number[];
  /** Each call that answered items, in the order sent: its command, the items and their size as JSON. */
  reads: { command: string; items: Record<string, unknown>[]; bytes: number }[];
}

/** The items a read answers: a Query's or Scan's, a GetItem's, a BatchGetItem's of every table. */
const itemsOf = (output: Record<string, unknown>): Record<string, unknown>[] => {
  const { Items, Item, Responses } = output as { Items?: []; Item?: Record<string, unknown>; Responses?: Record<string, []> };
  return [...(Items ?? []), ...(Item ? [Item] : []), ...Object.values(Responses ?? {}).flat()];
};

let observers = 0;

/**
 * Runs `fn` and records every call the shared DynamoDB client sends meanwhile (observed on its middleware
 * stack, not changed): how a write is sent — one transaction or several — and what it reads. Counts the
 * whole process, so the calls measured must not overlap others.
 */
export async function observeCalls<T>(fn: () => Promise<T>): Promise<ObservedCalls<T>> {
  const commands: Record<string, number> = {};
  const transactions: number[] = [];
  const reads: ObservedCalls<T>['reads'] = [];
  const name = `observe-calls-${++observers}`;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      commands[context.commandName!] = (commands[context.commandName!] ?? 0) + 1;
      const items = (args.input as { TransactItems?: unknown[] }).TransactItems;
      if (items) transactions.push(items.length);
      const answer = await next(args);
      const returned = itemsOf(answer.output as Record<string, unknown>);
      if (returned.length > 0) reads.push({ command: context.commandName!, items: returned, bytes: JSON.stringify(returned).length });
      return answer;
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), commands, transactions, reads };
  } finally {
    dynamo().middlewareStack.remove(name);
  }
}
