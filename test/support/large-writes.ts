import { randomUUID } from 'node:crypto';
import { dynamo } from '#lib/store/client.ts';
import type { Linkage } from './fixtures.ts';

/** Writes past one transaction (lib/store/large-write.ts), as tests drive them: through `poly_metadata/bulk_create`. */

/** `count` poly metadata on one record, keyed `<prefix>-0000`, `<prefix>-0001`, … */
export const metadataOn = (record: Linkage, count: number, prefix: string, value = 'v') =>
  Array.from({ length: count }, (_, i) => ({
    type: 'poly_metadata',
    attributes: { key: `${prefix}-${String(i).padStart(4, '0')}`, value },
    relationships: { metadatable: { data: record } },
  }));

export interface SentCommand {
  op: string;
  input: any;
}

/** Records every DynamoDB command this process sends while `fn` runs: its name and input. */
export async function commandsOf<T>(fn: () => Promise<T>): Promise<{ result: T; commands: SentCommand[] }> {
  const commands: SentCommand[] = [];
  const name = `spy-${randomUUID()}`;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      commands.push({ op: String(context.commandName).replace(/Command$/, ''), input: args.input });
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), commands };
  } finally {
    dynamo().middlewareStack.remove(name);
  }
}

/** Whether a command is a large write's commit point: the transaction that moves its record to committed. */
export const isCommitPoint = (c: SentCommand): boolean =>
  c.op === 'TransactWriteItems' && c.input.TransactItems[0]?.Update?.ExpressionAttributeValues?.[':committed'] === 'committed';

/** Which of the commands (counted from 1) is the commit point of the large write they made; 0 when they made none. */
export const commitPointOf = (commands: readonly SentCommand[]): number => commands.findIndex(isCommitPoint) + 1;
