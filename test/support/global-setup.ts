import { DeleteTableCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { TestProject } from 'vitest/node';
import { ensureTable, localClient, startDynamoLocal, type LocalDynamo } from '#lib/local/dynamodb.ts';
import { defaultReferenceData, useDynamo } from '#lib/local/service.ts';
import { loadReferenceData } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { WAIT_MS } from './limits.ts';
import { itemsToJson, type TableItem } from './table-items.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoints: string[];
    /** Every item the default reference data makes in an empty table (test/support/store.ts copies them into each fresh one), as JSON. */
    referenceItems: string;
  }
}

let instances: LocalDynamo[] = [];

/**
 * Starts Amazon's DynamoDB Local (in memory) once per test run for each test worker: one instance works
 * on one core at most, so each worker gets its own and the run uses the machine. Test files each create
 * their own table in their worker's instance (test/support/store.ts).
 */
export async function setup(project: TestProject): Promise<void> {
  const workers = Math.max(1, Number(project.config.maxWorkers) || 1);
  instances = await Promise.all(Array.from({ length: workers }, () => startDynamoLocal({ readyWithinMs: WAIT_MS })));
  project.provide(
    'dynamoEndpoints',
    instances.map((d) => d.endpoint),
  );
  project.provide('referenceItems', itemsToJson(await referenceItems(instances[0]!.endpoint)));
}

export async function teardown(): Promise<void> {
  await Promise.all(instances.map((d) => d.stop()));
}

/**
 * Loads the default reference data once, into a table of its own, and returns what it wrote. Loading it
 * through the service (validation, a lookup and a transaction per record) took seconds per test file, and
 * most of a small file's time; copying its items takes a few batch writes.
 */
async function referenceItems(endpoint: string): Promise<TableItem[]> {
  const tableName = 'reference-data';
  const saved = { endpoint: process.env.LTS_DYNAMODB_ENDPOINT, table: process.env.LTS_TABLE_NAME };
  await ensureTable(endpoint, tableName);
  useDynamo(endpoint, tableName);
  await loadReferenceData(registry, defaultReferenceData());
  // The workers must not inherit this process's table.
  for (const [name, value] of [
    ['LTS_DYNAMODB_ENDPOINT', saved.endpoint],
    ['LTS_TABLE_NAME', saved.table],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  const client = localClient(endpoint);
  const items: TableItem[] = [];
  let start: TableItem | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
  return items;
}
