import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { resetConfig } from '#lib/config.ts';
import type { LambdaHandler } from '#lib/http/handler.ts';
import { handlerForRoute } from '#lib/http/route-handlers.ts';
import { createLocalServer } from '#lib/http/local-server.ts';
import { ensureTable, LOOPBACK, startDynamoLocal, type LocalDynamo } from '#lib/local/dynamodb.ts';
import { startLocalEvents, type LocalEvents, type LocalEventsOptions } from '#lib/local/event-publishing.ts';
import { startSweeper, type Sweeper } from '#lib/local/sweeper.ts';
import { describeLoad, loadReferenceData } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { routeForPath } from '#lib/routes.ts';
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

/**
 * `GET /health` of the local service tells how the event feed is doing as well (`meta.events`: the
 * dead-letter file, and per sink its dead letters and whether it is retrying, since when): on AWS the
 * publisher's alarms tell that.
 */
function withFeedHealth(handler: LambdaHandler, feed: LocalEvents): LambdaHandler {
  return async (event, context) => {
    const result = await handler(event, context);
    if (result.statusCode !== 200 || !result.body) return result;
    const document = JSON.parse(result.body) as { meta: Record<string, unknown> };
    return { ...result, body: JSON.stringify({ ...document, meta: { ...document.meta, events: feed.health() } }) };
  };
}

export interface LocalService {
  url: string;
  dynamo: LocalDynamo;
  /** The local event publishers, when started with `events`. */
  events?: LocalEvents;
  /**
   * Stops accepting connections, closes idle keep-alive connections, lets the requests in flight finish
   * (each response then closes its connection) for at most `graceMs` before closing what is left, and
   * only then stops DynamoDB Local, when this service started it.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

export const DEFAULT_GRACE_MS = 10_000;

/**
 * The whole service on one machine: DynamoDB Local, the table from the shared definition, the default
 * reference data, the route table over HTTP, the sweeper of abandoned large writes, and (with `events`) the local event publishers. Used by `npm start` and by the contract tests.
 *
 * `prepare` runs once the store is ready and before the server listens (`npm start` registers its keys
 * and writes its endpoint file there). Whatever fails, or `signal` aborting, before the service is up stops what was started (the
 * server, and DynamoDB Local when this call started it) before the promise rejects.
 *
 * `progress` hears each step as it starts or ends, so that `npm start` can say what it waits for: starting
 * Java is most of a start-up (half a minute on a busy 2-core machine).
 */
export async function startLocalService(
  options: {
    port?: number;
    dynamoPort?: number;
    dataDir?: string;
    tableName?: string;
    dynamo?: LocalDynamo;
    signal?: AbortSignal;
    prepare?: (dynamo: LocalDynamo) => Promise<void>;
    progress?: (step: string) => void;
    /** Publish the outbox locally (`npm start`): to an NDJSON file and optionally a webhook. */
    events?: LocalEventsOptions;
    /** How often abandoned large writes are recovered (lib/local/sweeper.ts); SWEEP_INTERVAL_MS by default. */
    sweepIntervalMs?: number;
  } = {},
): Promise<LocalService> {
  const { signal } = options;
  const progress = options.progress ?? (() => {});
  if (!options.dynamo) progress('starting DynamoDB Local (Java)');
  const dynamo =
    options.dynamo ??
    (await startDynamoLocal({
      ...(options.dynamoPort ? { port: options.dynamoPort } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(signal ? { signal } : {}),
    }));
  const ownDynamo = !options.dynamo;
  if (ownDynamo) progress(`DynamoDB Local at ${dynamo.endpoint} (pid ${dynamo.pid}), data ${options.dataDir ? `in ${options.dataDir}` : 'in memory'}`);
  let server: Server | undefined;
  let events: LocalEvents | undefined;
  let sweeper: Sweeper | undefined;
  try {
    const tableName = options.tableName ?? 'lts';
    useDynamo(dynamo.endpoint, tableName);
    await ensureTable(dynamo.endpoint, tableName);
    signal?.throwIfAborted();
    progress('loading the default reference data');
    progress(describeLoad(await loadReferenceData(registry, defaultReferenceData())));
    signal?.throwIfAborted();
    await options.prepare?.(dynamo);
    signal?.throwIfAborted();
    if (options.events) {
      progress('starting the event feed');
      events = await startLocalEvents(dynamo.endpoint, tableName, options.events);
    }
    sweeper = startSweeper(options.sweepIntervalMs);

    const handlers = new Map<string, LambdaHandler>();
    const feed = events;
    server = createLocalServer((path) => {
      const route = routeForPath(path);
      let handler = handlers.get(route.name);
      if (!handler) {
        handler = handlerForRoute(route.name);
        handlers.set(route.name, handler);
      }
      return feed && path === '/health' ? withFeedHealth(handler, feed) : handler;
    });
    server.listen(options.port ?? 0, LOOPBACK);
    await once(server, 'listening'); // rejects on 'error', e.g. EADDRINUSE
    signal?.throwIfAborted();
  } catch (error) {
    server?.closeAllConnections();
    server?.close();
    await sweeper?.stop();
    await events?.stop();
    if (ownDynamo) await dynamo.stop();
    throw error;
  }

  const listening = server;
  const sweeping = sweeper;
  const { port } = listening.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://localhost:${port}`,
    dynamo,
    ...(events ? { events } : {}),
    stop({ graceMs = DEFAULT_GRACE_MS } = {}) {
      stopped ??= (async () => {
        const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
        listening.closeIdleConnections();
        const force = setTimeout(() => listening.closeAllConnections(), graceMs);
        await closed;
        clearTimeout(force);
        await sweeping.stop();
        // The requests' events are in the stream; what the publishers have not sent yet waits for the next start.
        await events?.stop();
        if (ownDynamo) await dynamo.stop();
      })();
      return stopped;
    },
  };
}
