import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildBundles, copyBundleAssets } from '../../infra/bundles.ts';
import { bundling } from '../../infra/bundling.ts';
import { PROJECT_ROOT } from '../../infra/function.ts';
import type { SynthesizedStack } from './cloudformation.ts';

/**
 * The tier that tests what is deployed (test/artifact/): every function bundled by `npm run bundles`'
 * code (infra/bundles.ts, the stack's esbuild options), each run in a fresh `node` the way the Lambda
 * runtime runs it (./lambda-runner.cjs), with the environment of the synthesized template, against a
 * DynamoDB Local table — and every AWS call it makes recorded on the way, for the role checks.
 */

/** One AWS API call a function made, as it went over the wire: the service, the operation, its input. */
export interface RecordedCall {
  service: string;
  operation: string;
  input: any;
}

/** The functions' assets in a temporary folder outside the repository: no node_modules above them. */
export interface Artifacts {
  dir: string;
  /** Each function's task root (its asset: index.js, its source map, its assets) by function name. */
  taskRoots: Record<string, string>;
  /** The folder standing in for the runtime's /var/runtime/node_modules; undefined when nothing is external. */
  runtimeModules: string | undefined;
  remove(): void;
}

/**
 * The Lambda Node.js runtime puts its own node_modules (/var/runtime/node_modules: the AWS SDK v3) on
 * NODE_PATH; modules the bundles leave external (infra/bundling.ts `externalModules`) are found there and
 * nowhere else. The stand-in holds exactly those modules — for now the project's own (pinned) copies, linked
 * from its node_modules, NOT the runtime's versions — so a module the bundle needs but neither bundles nor
 * finds in the runtime fails here as it would on AWS.
 */
function runtimeModules(dir: string): string | undefined {
  const external: readonly string[] = bundling.externalModules;
  if (external.length === 0) return undefined;
  const root = join(dir, 'runtime', 'node_modules');
  for (const pattern of external) {
    // `@scope/*` is the whole scope; anything else one package.
    const name = pattern.replace(/\/\*$/, '');
    if (name.includes('*')) throw new Error(`external module pattern ${pattern} is not a package or a scope`);
    mkdirSync(dirname(join(root, name)), { recursive: true });
    symlinkSync(realpathSync(join(PROJECT_ROOT, 'node_modules', name)), join(root, name));
  }
  return root;
}

/** Bundles every function as the stack does, with its assets, into a temporary folder. */
export async function buildArtifacts(): Promise<Artifacts> {
  const dir = mkdtempSync(join(tmpdir(), 'lts-artifacts-'));
  const files = await buildBundles(join(dir, 'functions'));
  copyBundleAssets(join(dir, 'functions'));
  return {
    dir,
    taskRoots: Object.fromEntries(Object.entries(files).map(([name, file]) => [name, dirname(file)])),
    runtimeModules: runtimeModules(dir),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const body = (message: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });

/**
 * Where one function's AWS calls go: every AWS endpoint of the function points here. DynamoDB calls
 * (`x-amz-target: DynamoDB_20120810.<op>`) are recorded and passed on to DynamoDB Local; EventBridge's
 * PutEvents (`AWSEvents.PutEvents`), which DynamoDB Local cannot stand in for, is recorded and accepted
 * (every entry gets an id); any other call is recorded and refused, so a call to an unexpected service
 * shows in the role checks.
 */
export interface CallRecorder {
  endpoint: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

export async function startCallRecorder(dynamoEndpoint: string): Promise<CallRecorder> {
  const calls: RecordedCall[] = [];
  const server: Server = createServer(async (req, res) => {
    const raw = await body(req);
    const [prefix = '', operation = ''] = String(req.headers['x-amz-target'] ?? '').split('.');
    const input = raw.length > 0 && String(req.headers['content-type']).includes('json') ? JSON.parse(raw.toString('utf8')) : raw.toString('utf8');
    if (prefix.startsWith('DynamoDB_')) {
      calls.push({ service: 'dynamodb', operation, input });
      const forward = request(`${dynamoEndpoint}${req.url}`, { method: req.method, headers: req.headers }, async (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        res.end(await body(answer));
      });
      forward.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forward.end(raw);
      return;
    }
    if (prefix === 'AWSEvents' && operation === 'PutEvents') {
      calls.push({ service: 'events', operation, input });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ FailedEntryCount: 0, Entries: input.Entries.map(() => ({ EventId: randomUUID() })) }));
      return;
    }
    calls.push({ service: prefix || `unknown ${req.method} ${req.url}`, operation, input });
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify({ __type: 'UnknownOperationException', message: 'not served by the artifact tier' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A function of the synthesized stack: its name (a route's, `publisher`, `inbound`) and its template resource. */
export interface StackFunction {
  name: string;
  logicalId: string;
}

/**
 * The process environment of a deployed function: its template's variables as deployed (the table named
 * by the test), what the Lambda runtime adds (region, credentials, task root, NODE_PATH …), and the
 * overrides that point it at the test's stand-ins, each said below.
 */
function lambdaEnvironment(stack: SynthesizedStack, fn: StackFunction, artifacts: Artifacts, recorder: CallRecorder): Record<string, string> {
  const props = stack.resources[fn.logicalId]!.Properties;
  const variables = Object.fromEntries(Object.entries(props.Environment?.Variables ?? {}).map(([name, value]) => [name, stack.resolve(value, true) as string]));
  const name = `Lts-dev-${fn.name}`;
  return {
    ...variables,
    // What the Lambda runtime sets.
    AWS_REGION: stack.region,
    AWS_DEFAULT_REGION: stack.region,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(props.MemorySize),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'artifact-tier',
    AWS_ACCESS_KEY_ID: 'ASIAARTIFACTTIER',
    AWS_SECRET_ACCESS_KEY: 'artifact-tier',
    AWS_SESSION_TOKEN: 'artifact-tier',
    LAMBDA_TASK_ROOT: artifacts.taskRoots[fn.name]!,
    _HANDLER: 'index.handler',
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    PATH: process.env.PATH ?? '',
    ...(artifacts.runtimeModules ? { NODE_PATH: artifacts.runtimeModules } : {}),
    // The test's stand-ins: DynamoDB Local behind the recorder for the table, the recorder for every other AWS endpoint.
    LTS_DYNAMODB_ENDPOINT: recorder.endpoint,
    AWS_ENDPOINT_URL: recorder.endpoint,
    // As vitest.config.ts: on a busy 2-core runner DynamoDB Local may take seconds to answer a call.
    LTS_DYNAMODB_CONNECT_TIMEOUT_MS: '60000',
    LTS_DYNAMODB_REQUEST_TIMEOUT_MS: '60000',
    // This machine's Node.js may be older than the runtime's 22, which the SDK would warn of.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // The runner's context deadline (getRemainingTimeInMillis): the function's timeout.
    LTS_ARTIFACT_TIMEOUT_MS: String(props.Timeout * 1000),
  };
}

const RUNNER = join(import.meta.dirname, 'lambda-runner.cjs');

/** One warm Lambda container of a function: invocations one at a time, its output kept, its AWS calls recorded. */
export class LambdaContainer {
  /** Everything the function wrote to stdout and stderr (its log lines). */
  output = '';
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();

  private constructor(
    readonly fn: StackFunction,
    private readonly child: ChildProcess,
    readonly recorder: CallRecorder,
  ) {
    child.stdout!.on('data', (chunk) => (this.output += chunk));
    child.stderr!.on('data', (chunk) => (this.output += chunk));
    child.on('message', (message: { id: number; result?: unknown; error?: { name: string; message: string } }) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiting?.reject(Object.assign(new Error(message.error.message), { name: message.error.name }));
      else waiting?.resolve(message.result);
    });
    child.on('exit', (code) => {
      for (const waiting of this.pending.values()) waiting.reject(new Error(`${fn.name} exited (${code}): ${this.output}`));
      this.pending.clear();
    });
  }

  static async start(stack: SynthesizedStack, fn: StackFunction, artifacts: Artifacts, dynamoEndpoint: string): Promise<LambdaContainer> {
    const recorder = await startCallRecorder(dynamoEndpoint);
    const env = lambdaEnvironment(stack, fn, artifacts, recorder);
    // A bare node: none of the test runner's loaders or flags; the task root as working directory, as on Lambda.
    const child = fork(RUNNER, [], { cwd: env.LAMBDA_TASK_ROOT, env, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const container = new LambdaContainer(fn, child, recorder);
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`${fn.name} did not load (exit ${code}): ${container.output}`)));
    });
    return container;
  }

  private send(message: Record<string, unknown>): Promise<any> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ id, ...message });
    });
  }

  /** Invokes the handler with an event; resolves with what it returned, rejects with what it threw. */
  invoke(event: unknown): Promise<any> {
    return this.send({ event });
  }

  /** Where `require(name)` finds a module from the function's task root, or null. */
  resolveModule(name: string): Promise<string | null> {
    return this.send({ resolve: name });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill();
      await exited;
    }
    await this.recorder.close();
  }
}
