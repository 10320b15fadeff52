import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { BatchWriteItemCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable, localClient } from '#lib/local/dynamodb.ts';
import type { LocalEventsOptions } from '#lib/local/event-publishing.ts';
import { startLocalService, useDynamo, type LocalService } from '#lib/local/service.ts';
import { createApiKey } from '#lib/store/api-keys.ts';
import type { IndexDefinition } from '#lib/store/table.ts';
import { freshTables } from './fresh-tables.ts';
import { itemsFromJson } from './table-items.ts';

export const WRITE_KEY = 'test-write-key-0123456789';
export const READ_KEY = 'test-read-key-0123456789';
/** A key of admin scope: registers purposes (reference data), as a pipeline application does at start-up. */
export const ADMIN_KEY = 'test-admin-key-0123456789';

/** The DynamoDB Local of this test worker (test/support/global-setup.ts starts one per worker). */
export function workerEndpoint(): string {
  const endpoints = inject('dynamoEndpoints');
  const worker = Number(process.env.VITEST_POOL_ID ?? 1);
  return endpoints[(worker - 1) % endpoints.length]!;
}

/**
 * Deletes the tables this test file made (test/support/setup.ts runs it after each file): each worker's
 * DynamoDB Local keeps every table in memory, and a run leaves thousands of records behind otherwise.
 */
export async function dropFreshStores(): Promise<void> {
  for (const { endpoint, tableName } of freshTables.splice(0)) {
    const client = localClient(endpoint);
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    client.destroy();
  }
}

/**
 * A new table in this worker's DynamoDB Local holding the default reference data, as loading it would
 * leave it: its items, loaded once for the run (test/support/global-setup.ts), copied in batches.
 *
 * With a stream only where the test reads it. DynamoDB Local keeps the stream of every table a run has
 * made, deleted ones included, and looks through all of them on every write: with a stream on each test
 * file's table, writes late in a run cost many times what they cost early (docs/decisions.md, "Suite time").
 */
async function tableWithReferenceData({ stream, indexes }: StoreOptions): Promise<{ tableName: string; endpoint: string }> {
  const endpoint = workerEndpoint();
  const tableName = `test-${randomUUID()}`;
  await ensureTable(endpoint, tableName, { stream, ...(indexes ? { indexes } : {}) });
  freshTables.push({ endpoint, tableName });
  const items = itemsFromJson(inject('referenceItems'));
  const client = localClient(endpoint);
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, (i + 1) * 25));
  await Promise.all(
    batches.map(async (batch) => {
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
        pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
    }),
  );
  client.destroy();
  return { tableName, endpoint };
}

/**
 * Gives the calling test file a fresh table in the run's DynamoDB Local, with the default reference data
 * and a write, a read and an admin key; without a stream (freshStreamedStore has one). Call from beforeAll.
 */
export const freshStore = (): Promise<{ tableName: string; endpoint: string }> => storeWith({ stream: false });

/** freshStore, and the table has its stream: for tests that read the stream's records (the event publishers'). */
export const freshStreamedStore = (): Promise<{ tableName: string; endpoint: string }> => storeWith({ stream: true });

/** freshStore, its table laid out with these secondary indexes only: a table as an earlier release made it. */
export const freshStoreWithIndexes = (indexes: readonly IndexDefinition[]): Promise<{ tableName: string; endpoint: string }> =>
  storeWith({ stream: false, indexes });

interface StoreOptions {
  stream: boolean;
  indexes?: readonly IndexDefinition[];
}

async function storeWith(options: StoreOptions): Promise<{ tableName: string; endpoint: string }> {
  const { endpoint, tableName } = await tableWithReferenceData(options);
  useDynamo(endpoint, tableName);
  await createApiKey('test-write', 'write', WRITE_KEY);
  await createApiKey('test-read', 'read', READ_KEY);
  await createApiKey('test-admin', 'admin', ADMIN_KEY);
  return { tableName, endpoint };
}

/**
 * The whole service over HTTP on loopback (the local server: the same Lambda handlers behind node:http),
 * on a fresh table of this worker's DynamoDB Local with the default reference data and the test keys.
 * For tests of what only a real HTTP client or a browser sees; with `events`, its event feed too. Stop it
 * in afterAll. (The service loads the reference data as it starts, and finds it there: a read of each
 * record, no write.)
 */
export async function freshHttpService(options: { events?: LocalEventsOptions } = {}): Promise<LocalService> {
  const { endpoint, tableName } = await tableWithReferenceData({ stream: options.events !== undefined });
  return startLocalService({
    dynamo: { endpoint, stop: async () => {} },
    tableName,
    prepare: async () => {
      await createApiKey('test-write', 'write', WRITE_KEY);
      await createApiKey('test-read', 'read', READ_KEY);
      await createApiKey('test-admin', 'admin', ADMIN_KEY);
    },
    ...options,
  });
}
