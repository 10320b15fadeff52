import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { startBanner } from '#lib/local/banner.ts';
import { portProblem } from '#lib/local/dynamodb.ts';
import { DEFAULT_GRACE_MS, startLocalService, type LocalService } from '#lib/local/service.ts';
import { createApiKey, ensureApiKey, revokeApiKey } from '#lib/store/api-keys.ts';

/**
 * `npm start`: the service on this machine. Configuration (README "Configuration"), parsed once.
 *
 * It checks its ports before starting Java, and never leaves DynamoDB Local running behind it: whatever
 * fails during start-up, and a signal during start-up, stops what was started before it exits (1 after a
 * failure, 0 after a signal). Once up, SIGINT or SIGTERM drains the HTTP server (requests in flight
 * finish, for at most 10 s), then stops DynamoDB Local and exits 0.
 */
const parsed = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    LTS_DATA_DIR: z.string().min(1).default('.lts'),
    LTS_IN_MEMORY: z
      .enum(['0', '1', 'true', 'false', ''])
      .default('')
      .transform((v) => v === '1' || v === 'true'),
    LTS_DYNAMODB_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    LTS_DEV_API_KEY: z.string().min(1).optional(),
    LTS_DEV_READ_API_KEY: z.string().min(1).optional(),
    /** An admin key (registers purposes, as a pipeline application does at start-up): none unless given. */
    LTS_DEV_ADMIN_API_KEY: z.string().min(1).optional(),
    /** Events are appended here (default events.ndjson in the data dir, also in memory). */
    LTS_EVENTS_FILE: z.string().min(1).optional(),
    /** When set, each event is also POSTed here. */
    LTS_WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional(),
  })
  .safeParse(process.env);
if (!parsed.success) fail(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
const env = parsed.data;
const dataDir = resolve(env.LTS_DATA_DIR);
const eventsFile = resolve(env.LTS_EVENTS_FILE ?? join(dataDir, 'events.ndjson'));
// The admin command line finds the running DynamoDB Local through this file, and, once it listens, the service's address.
const endpointFile = join(dataDir, 'endpoint.json');
/** The development key of this data dir (unless LTS_DEV_API_KEY gives one). */
const devKeyFile = join(dataDir, 'dev-api-key');
const readKeyFile = (file: string): string | undefined => (existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined);

let service: LocalService | undefined;
let stopping = false;
const startUp = new AbortController();
function onSignal(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  if (service) {
    void shutdown(service, signal);
  } else {
    console.log(`${signal}: stopping start-up`);
    startUp.abort(new Error(`${signal} during start-up`));
  }
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// Ports first, before Java starts.
if (env.LTS_DYNAMODB_PORT === env.PORT) fail(`PORT and LTS_DYNAMODB_PORT are both ${env.PORT}; set one of them to another port`);
const httpPortProblem = env.PORT === 0 ? undefined : await portProblem(env.PORT);
if (httpPortProblem) fail(`port ${env.PORT} is ${httpPortProblem}; set PORT`);
const dynamoPortProblem = env.LTS_DYNAMODB_PORT === undefined ? undefined : await portProblem(env.LTS_DYNAMODB_PORT);
if (dynamoPortProblem) fail(`port ${env.LTS_DYNAMODB_PORT} is ${dynamoPortProblem}; set LTS_DYNAMODB_PORT (or leave it unset for any free port)`);

let devKey = env.LTS_DEV_API_KEY;
/** Each start-up step as it comes, with the seconds since this process started: Java alone may take half a minute. */
const progress = (step: string) => console.log(`[${Math.round(process.uptime())} s] ${step}`);
try {
  mkdirSync(dataDir, { recursive: true });
  // On any failure (or signal) before it is up, this stops DynamoDB Local before rejecting.
  service = await startLocalService({
    port: env.PORT,
    ...(env.LTS_DYNAMODB_PORT ? { dynamoPort: env.LTS_DYNAMODB_PORT } : {}),
    ...(env.LTS_IN_MEMORY ? {} : { dataDir: join(dataDir, 'dynamodb') }),
    signal: startUp.signal,
    progress,
    events: {
      eventsFile,
      ...(env.LTS_WEBHOOK_URL ? { webhookUrl: env.LTS_WEBHOOK_URL } : {}),
      // An in-memory table starts empty each time: there is nothing to resume.
      ...(env.LTS_IN_MEMORY ? {} : { checkpointDir: dataDir }),
    },
    async prepare(dynamo) {
      progress('registering the development key');
      writeFileSync(endpointFile, JSON.stringify({ dynamodb: dynamo.endpoint, pid: process.pid }));
      // The key made once for this data dir, kept beside the data: a client configured with it keeps working across restarts.
      devKey ??= readKeyFile(devKeyFile);
      if (devKey) await ensureApiKey('dev-write', 'write', devKey);
      else {
        await revokeApiKey('dev-write');
        devKey = await createApiKey('dev-write', 'write');
        writeFileSync(devKeyFile, `${devKey}\n`, { mode: 0o600 });
      }
      if (env.LTS_DEV_READ_API_KEY) await ensureApiKey('dev-read', 'read', env.LTS_DEV_READ_API_KEY);
      if (env.LTS_DEV_ADMIN_API_KEY) await ensureApiKey('dev-admin', 'admin', env.LTS_DEV_ADMIN_API_KEY);
    },
  });
  // Now with the address (PORT=0 is known only now): `admin submit` writes its links with it.
  writeFileSync(endpointFile, JSON.stringify({ dynamodb: service.dynamo.endpoint, pid: process.pid, url: service.url }));
} catch (error) {
  removeEndpointFile();
  await service?.stop({ graceMs: 0 });
  if (stopping) process.exit(0);
  fail(`could not start: ${error instanceof Error ? error.message : String(error)}`);
}

for (const line of startBanner({
  url: service.url,
  devKey: devKey!,
  adminKey: env.LTS_DEV_ADMIN_API_KEY !== undefined,
  eventsFile,
  ...(env.LTS_WEBHOOK_URL ? { webhookUrl: env.LTS_WEBHOOK_URL } : {}),
  readmeKeyFileHolds: readKeyFile(resolve('.lts', 'dev-api-key')) === devKey,
}))
  console.log(line);

async function shutdown(running: LocalService, signal: NodeJS.Signals): Promise<void> {
  const stopped = running.stop({ graceMs: DEFAULT_GRACE_MS }); // no new connections from here on
  console.log(`${signal}: stopping (letting requests in flight finish, at most ${DEFAULT_GRACE_MS / 1000} s)`);
  removeEndpointFile();
  await stopped;
  console.log('stopped');
  process.exit(0);
}

function removeEndpointFile() {
  try {
    rmSync(endpointFile, { force: true });
  } catch {
    // not a file we wrote
  }
}

/** One line on stderr and a non-zero exit (anything started has been stopped by then). */
function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
