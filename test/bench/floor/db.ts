import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { type Capacity, SDK_LOGGER_MIDDLEWARE, unitsOf } from '#lib/store/client.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import type { Key } from './keys.ts';

export type Item = Record<string, unknown>;

/** A stored item as the service's pure functions take it (the floor writes the service's item shapes). */
export const asRecord = (item: Item): StoredRecord => item as unknown as StoredRecord;

/** The raw document client, configured as the service's (lib/store/client.ts) minus the call-counting and deadline middleware. */
export function documentClient(endpoint: string): DynamoDBDocumentClient {
  const base = new DynamoDBClient({ endpoint, region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 3 });
  base.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } });
}

const BATCH_GET_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;

/** What every counted call asks DynamoDB to report: its capacity units, the indexes' included (as the service asks). */
const RETURN_CAPACITY = { ReturnConsumedCapacity: 'INDEXES' } as const;

/**
 * One request's view of DynamoDB: plain commands, counted (the floor's X-DynamoDB-Calls), their capacity
 * units summed (its X-DynamoDB-Capacity).
 */
export class Db {
  calls = 0;
  readonly capacity: Capacity = { read: 0, write: 0 };
  constructor(private readonly doc: DynamoDBDocumentClient) {}

  /** Counts a call and the units it consumed; the output as it came. */
  private counted<T extends { ConsumedCapacity?: unknown }>(kind: keyof Capacity, output: T): T {
    this.calls++;
    this.capacity[kind] += unitsOf(output.ConsumedCapacity);
    return output;
  }

  async get(table: string, key: Key, consistent: boolean): Promise<Item | undefined> {
    return this.counted('read', await this.doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: consistent, ...RETURN_CAPACITY }))).Item;
  }

  async query(input: QueryCommandInput): Promise<Item[]> {
    return this.counted('read', await this.doc.send(new QueryCommand({ ...input, ...RETURN_CAPACITY }))).Items ?? [];
  }

  /** Every item of a Query, its pages read one after another (DynamoDB returns at most 1 MB a call). */
  async queryAll(input: QueryCommandInput): Promise<Item[]> {
    const items: Item[] = [];
    for (let start: Record<string, unknown> | undefined, first = true; first || start !== undefined; first = false) {
      const out = this.counted('read', await this.doc.send(new QueryCommand({ ...input, ...RETURN_CAPACITY, ...(start ? { ExclusiveStartKey: start } : {}) })));
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    }
    return items;
  }

  /** Strongly consistent BatchGetItem in chunks of 100 run in parallel; unprocessed keys are asked again. */
  async batchGet(table: string, keys: Key[]): Promise<Item[]> {
    const chunks: Key[][] = [];
    for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) chunks.push(keys.slice(i, i + BATCH_GET_LIMIT));
    const found = await Promise.all(
      chunks.map(async (chunk) => {
        const items: Item[] = [];
        let pending: Key[] = chunk;
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
          const out = this.counted(
            'read',
            await this.doc.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } }, ...RETURN_CAPACITY })),
          );
          items.push(...(out.Responses?.[table] ?? []));
          pending = (out.UnprocessedKeys?.[table]?.Keys as Key[] | undefined) ?? [];
        }
        return items;
      }),
    );
    return found.flat();
  }

  /** BatchWriteItem of puts in chunks of 25, unprocessed items sent again (seeding only: not counted). */
  async batchPut(table: string, items: Item[]): Promise<void> {
    for (let i = 0; i < items.length; i += BATCH_WRITE_LIMIT) {
      let pending = items.slice(i, i + BATCH_WRITE_LIMIT).map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const out = await this.doc.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (out.UnprocessedItems?.[table] as typeof pending | undefined) ?? [];
      }
    }
  }

  /** An UpdateItem; one made on behalf of other requests too (a shared id reservation) is counted to each, as the service counts it (`onBehalfOf`). */
  async update(input: UpdateCommandInput, alsoFor: readonly Db[] = []): Promise<Item | undefined> {
    const output = this.counted('write', await this.doc.send(new UpdateCommand({ ...input, ...RETURN_CAPACITY })));
    for (const other of alsoFor) if (other !== this) other.counted('write', output);
    return output.Attributes;
  }

  async transact(input: TransactWriteCommandInput): Promise<void> {
    this.counted('write', await this.doc.send(new TransactWriteCommand({ ...input, ...RETURN_CAPACITY })));
  }
}

/** The refs an index entry scope holds under one value (one consistent Query, entries only). */
export async function termsUnder(db: Db, table: string, scope: string, value: string): Promise<{ type: string; id: number }[]> {
  const items = await db.query({
    TableName: table,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `$lts#scope_${scope}#value_${value}` },
    ProjectionExpression: '#t, #i',
    ExpressionAttributeNames: { '#t': 'type', '#i': 'id' },
    ConsistentRead: true,
  });
  return items.map((item) => ({ type: item.type as string, id: item.id as number })).sort((a, b) => a.id - b.id);
}
