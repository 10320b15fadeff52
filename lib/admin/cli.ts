import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { submitMessages, failed, MessageFileError, resultLine } from '#lib/admin/submit.ts';
import { config, resetConfig } from '#lib/config.ts';
import { baseUrl } from '#lib/http/base-url.ts';
import { ensureTable, startDynamoLocal, type LocalDynamo } from '#lib/local/dynamodb.ts';
import { defaultReferenceData, useDynamo } from '#lib/local/service.ts';
import { describeLoad, loadReferenceData, ReferenceDataError } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { createApiKey, KEY_SCOPES, KeyNameTaken, listApiKeys, revokeApiKey, type KeyScope } from '#lib/store/api-keys.ts';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  keys create --name <name> --scope <read|write|admin> [--key <value>]
                                                                  register a key (given: at least 16 characters); prints it
                                                                  once. admin: also registers purposes through the API
  keys revoke --name <name>                                       revoke a key
  keys list                                                       list key names and scopes
  load <file.json>                                                load reference data (see docs/reference-data.md)
  load-defaults                                                   load the built-in default reference data
  reset                                                           delete the local service's data (LTS_DATA_DIR); it must be stopped
  submit <messages.json|.ndjson>                                  run inbound messages {method, path, body, idempotency_key}
                                                                  as the identity "admin" (admin); prints one line per
                                                                  message: number, status, Location/records or errors;
                                                                  exits 1 if any failed. Links use LTS_BASE_URL (needed
                                                                  with --aws), else the running npm start's address,
                                                                  else http://localhost:$PORT (3000)

Target store (first that applies):
  --aws                        the AWS table named by LTS_TABLE_NAME, with the SDK's credentials and region
  LTS_DYNAMODB_ENDPOINT=<url>  a DynamoDB (Local) endpoint, table LTS_TABLE_NAME (default lts)
  otherwise                    the local service's data in LTS_DATA_DIR (default .lts): its running
                               DynamoDB Local, or one started for the command`;

class UsageError extends Error {}
/** A problem with what the command was given (a file, a value): one line, exit status 1. */
class InputError extends Error {}

/** A key given on the command line: guessable keys are refused. */
const MIN_KEY_LENGTH = 16;

/** The local service's data dir. */
const localDataDir = () => resolve(process.env.LTS_DATA_DIR ?? '.lts');

/** A JSON file's content, or one line saying why it cannot be had. */
function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The `npm start` running on the local data dir, from the endpoint file it keeps there: its DynamoDB Local,
 * and its address once it listens. Undefined when none runs.
 */
function runningService(): { dynamodb: string; url?: string } | undefined {
  const endpointFile = join(localDataDir(), 'endpoint.json');
  if (!existsSync(endpointFile)) return undefined;
  const { dynamodb, pid, url } = JSON.parse(readFileSync(endpointFile, 'utf8')) as { dynamodb: string; pid: number; url?: string };
  return isRunning(pid) ? { dynamodb, ...(url ? { url } : {}) } : undefined;
}

/** Deletes the local data (never while the service runs on it: its DynamoDB Local holds the files). */
function resetLocalData(): void {
  const dataDir = localDataDir();
  if (runningService()) throw new InputError(`the local service is running on ${dataDir}; stop it (Ctrl-C) first`);
  rmSync(dataDir, { recursive: true, force: true });
  console.log(`Deleted ${dataDir}. The next npm start begins with an empty store, the default reference data and a new development key.`);
}

/**
 * Points this process at the target store. Answers the DynamoDB Local it started for the command (to stop
 * afterwards), and the running local service's address when the command works on its data.
 */
async function connect(aws: boolean): Promise<{ started?: LocalDynamo; serviceUrl?: string }> {
  if (aws || process.env.LTS_DYNAMODB_ENDPOINT) {
    resetConfig();
    return {};
  }
  const table = process.env.LTS_TABLE_NAME ?? 'lts';
  const running = runningService();
  if (running) {
    useDynamo(running.dynamodb, table);
    return running.url ? { serviceUrl: running.url } : {};
  }
  const dynamo = await startDynamoLocal({ dataDir: join(localDataDir(), 'dynamodb') });
  await ensureTable(dynamo.endpoint, table);
  useDynamo(dynamo.endpoint, table);
  return { started: dynamo };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const OPTIONS = {
  name: { type: 'string' },
  scope: { type: 'string' },
  key: { type: 'string' },
  aws: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The command line's options and words; an unknown or malformed option is a usage error, not a stack trace. */
function parseOptions(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseOptions(argv);
  const [command, sub, file] = positionals;
  // Asked for, the usage is the answer: on stdout, exit 0. Without a command it is a usage error.
  if (values.help || command === 'help') return console.log(USAGE);
  if (!command) throw new UsageError('');
  if (command === 'reset') return resetLocalData();
  if (command === 'keys' && sub === 'create' && values.key !== undefined && values.key.length < MIN_KEY_LENGTH)
    throw new InputError(`--key must have at least ${MIN_KEY_LENGTH} characters (a short key is easily guessed); leave it out to get a random one`);
  // Read before connecting: a bad file needs no store.
  const document = command === 'load' && sub ? readJsonFile(sub) : undefined;

  const { started, serviceUrl } = await connect(values.aws ?? false);
  try {
    if (command === 'keys' && sub === 'create') {
      if (!values.name) throw new UsageError('keys create needs --name');
      if (!KEY_SCOPES.includes(values.scope as KeyScope)) throw new UsageError(`keys create needs --scope ${KEY_SCOPES.join(', --scope ')}`);
      const key = await createApiKey(values.name, values.scope as KeyScope, values.key);
      console.log(`Created ${values.scope} key "${values.name}". Store it now; it cannot be shown again:\n${key}`);
    } else if (command === 'keys' && sub === 'revoke') {
      if (!values.name) throw new UsageError('keys revoke needs --name');
      if (!(await revokeApiKey(values.name))) throw new InputError(`no API key named "${values.name}" (npm run admin -- keys list names them)`);
      console.log(`Revoked key "${values.name}".`);
    } else if (command === 'keys' && sub === 'list') {
      for (const k of await listApiKeys()) console.log(`${k.name}\t${k.scope}\t${k.createdAt}`);
    } else if (command === 'load' && sub) {
      console.log(describeLoad(await loadReferenceData(registry, document)));
    } else if (command === 'load-defaults') {
      console.log(describeLoad(await loadReferenceData(registry, defaultReferenceData())));
    } else if (command === 'submit' && sub) {
      const results = await submitMessages(readMessageFile(sub), { registry, identity: ADMIN, baseUrl: messageBaseUrl(values.aws ?? false, serviceUrl) });
      for (const result of results) console.log(resultLine(result));
      const failures = results.filter(failed).length;
      console.error(`${results.length} messages: ${results.length - failures} succeeded, ${failures} failed.`);
      if (failures > 0) process.exitCode = 1;
    } else {
      throw new UsageError(`unknown command: ${[command, sub, file].filter(Boolean).join(' ')}`);
    }
  } finally {
    await started?.stop();
  }
}

/** Who the messages of `submit` come from: their events name it, and it scopes their idempotency keys (as an API key's name does). */
const ADMIN = { name: 'admin', scope: 'admin' } as const;

/**
 * Links in responses and events: the deployed API's URL on AWS; locally, the address of the running
 * `npm start` (whatever its PORT), else the one it will have (PORT, or 3000).
 */
function messageBaseUrl(aws: boolean, serviceUrl: string | undefined): string {
  const configured = config().LTS_BASE_URL;
  if (configured) return baseUrl(configured, {});
  if (aws) throw new UsageError('submit --aws needs LTS_BASE_URL, the API URL links in responses and events start with');
  return serviceUrl ?? `http://localhost:${process.env.PORT ?? '3000'}`;
}

function readMessageFile(file: string): string {
  try {
    return readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new MessageFileError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    if (error.message) console.error(`Error: ${error.message}\n`);
    console.error(USAGE);
    process.exitCode = 2;
  } else if (error instanceof ReferenceDataError || error instanceof KeyNameTaken || error instanceof MessageFileError || error instanceof InputError) {
    console.error(`Error: ${error.message}`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
