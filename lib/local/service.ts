import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { resetConfig } from '#lib/config.ts';
import { createLocalServer } from '#lib/http/local-server.ts';
import { ensureTable, startDynamoLocal, type LocalDynamo } from '#lib/local/dynamodb.ts';
import { loadReferenceData } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { handlerFor, routeForPath } from '#lib/routes.ts';
import { clearApiKeyCache } from '#lib/store/api-keys.ts';
import { resetDynamo } from '#lib/store/client.ts';
import { resetStore } from '#lib/store/entities.ts';

export const defaultReferenceData = (): unknown => JSON.parse(readFileSync(new URL('../reference/default.json', import.meta.url), 'utf8'));

/** Points this process at a DynamoDB endpoint and table (environment, then every cached client). */
export function useDynamo(endpoint: string, tableName: string): void {
  process.env.LTS_DYNAMODB_ENDPOINT = endpoint;
  process.env.LTS_TABLE_NAME = tableName;
  resetConfig();
  resetDynamo();
  resetStore();
  // Cached key lookups belong to the previous table.
  clearApiKeyCache();
}

export interface LocalService {
  url: string;
  dynamo: LocalDynamo;
  stop(): Promise<void>;
}

/**
 * The whole service on one machine: DynamoDB Local, the table from the shared definition, the default
 * reference data, and the route table over HTTP. Used by `npm start` and by the contract tests.
 */
export async function startLocalService(options: { port?: number; dynamoPort?: number; dataDir?: string; tableName?: string; dynamo?: LocalDynamo } = {}): Promise<LocalService> {
  const dynamo = options.dynamo ?? (await startDynamoLocal({ ...(options.dynamoPort ? { port: options.dynamoPort } : {}), ...(options.dataDir ? { dataDir: options.dataDir } : {}) }));
  const tableName = options.tableName ?? 'lts';
  useDynamo(dynamo.endpoint, tableName);
  await ensureTable(dynamo.endpoint, tableName);
  await loadReferenceData(registry, defaultReferenceData());

  const handlers = new Map<string, ReturnType<typeof handlerFor>>();
  const server = createLocalServer((path) => {
    const route = routeForPath(path);
    let handler = handlers.get(route.name);
    if (!handler) handlers.set(route.name, (handler = handlerFor(route.name)));
    return handler;
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    dynamo,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.dynamo) await dynamo.stop();
    },
  };
}
