import { dynamo } from '#lib/store/client.ts';

/** What the shared DynamoDB client sent while a function ran. */
export interface ObservedCalls<T> {
  result: T;
  /** Calls by command name (`TransactWriteItemsCommand`, `BatchGetItemCommand`, …). */
  commands: Record<string, number>;
  /** The items of each TransactWriteItems, in the order sent. */
  transactions: number[];
}

let observers = 0;

/**
 * Runs `fn` and records every call the shared DynamoDB client sends meanwhile (observed on its middleware
 * stack, not changed): how a write is sent — one transaction or several — and what it reads. Counts the
 * whole process, so the calls measured must not overlap others.
 */
export async function observeCalls<T>(fn: () => Promise<T>): Promise<ObservedCalls<T>> {
  const commands: Record<string, number> = {};
  const transactions: number[] = [];
  const name = `observe-calls-${++observers}`;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      commands[context.commandName!] = (commands[context.commandName!] ?? 0) + 1;
      const items = (args.input as { TransactItems?: unknown[] }).TransactItems;
      if (items) transactions.push(items.length);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), commands, transactions };
  } finally {
    dynamo().middlewareStack.remove(name);
  }
}
