import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { DeadlineExceeded } from '#lib/store/errors.ts';

/** DynamoDB calls made while serving one request, by operation name (e.g. { GetItem: 1, Query: 2 }). */
export type CallCount = Record<string, number>;

/**
 * What the DynamoDB calls made while serving a request find of it: its call counter and its deadline. One
 * scope for both: every promise made while an AsyncLocalStorage is in use carries each storage's store
 * along (Node 20 and 22), and every call reads its scope.
 */
interface CallScope {
  counts?: CallCount;
  deadline?: Deadline;
  /** A test's simulated death of the process (killProcessAfter); absent in service. */
  kill?: ProcessKill;
}

/** How many DynamoDB calls a scope may still complete before its process is taken as dead. */
interface ProcessKill {
  after: number;
  made: number;
}

/**
 * The process serving the scope died (a test seam: killProcessAfter). Thrown by the call after which it
 * died and by every call after it, so no code of the dead request, its clean-up included, reaches DynamoDB.
 */
export class ProcessKilled extends Error {
  constructor() {
    super('the process was killed (a test of crash recovery)');
    this.name = 'ProcessKilled';
  }
}

/**
 * Runs `fn` as a process that dies once `calls` DynamoDB calls made inside it have completed: that call's
 * effect stands, its answer is lost, and it and every later call throw ProcessKilled — as when a Lambda is
 * stopped between two calls of a write. A test seam for crash recovery; nothing in the service arms it, and
 * unarmed it costs one property read a call.
 */
export function killProcessAfter<T>(calls: number, fn: () => Promise<T>): Promise<T> {
  return callScope.run({ ...callScope.getStore(), kill: { after: calls, made: 0 } }, fn);
}

const callScope = new AsyncLocalStorage<CallScope>();

/** Runs `fn` with a fresh call counter; every DynamoDB call made inside it is counted there. */
export function countCalls<T>(fn: () => Promise<T>): { counts: CallCount; result: Promise<T> } {
  const counts: CallCount = {};
  return { counts, result: callScope.run({ ...callScope.getStore(), counts }, fn) };
}

export function totalCalls(counts: CallCount): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** Capacity units DynamoDB reported consuming for a counter's calls: reads and writes, indexes included. */
export interface Capacity {
  read: number;
  write: number;
}

/**
 * The capacity of each counter's calls, kept beside the counter rather than in it (a counter's values are
 * calls by operation, summed by totalCalls): what X-DynamoDB-Capacity reports, so the bench can weigh a
 * request's reads and writes as DynamoDB bills them, not only count its calls.
 */
const capacities = new WeakMap<CallCount, Capacity>();

/** The capacity units the calls counted in `counts` consumed so far. */
export function capacityOf(counts: CallCount): Capacity {
  const kept = capacities.get(counts);
  if (kept) return kept;
  const capacity = { read: 0, write: 0 };
  capacities.set(counts, capacity);
  return capacity;
}

/** The operations that accept ReturnConsumedCapacity, each a read or a write (by the client's operation names, which lib-dynamodb's commands keep). */
export const CAPACITY_KIND: Readonly<Record<string, keyof Capacity>> = {
  GetItem: 'read',
  BatchGetItem: 'read',
  Query: 'read',
  Scan: 'read',
  TransactGetItems: 'read',
  PutItem: 'write',
  UpdateItem: 'write',
  DeleteItem: 'write',
  BatchWriteItem: 'write',
  TransactWriteItems: 'write',
};

/** X-DynamoDB-Capacity's value: `read=<units>, write=<units>` (the bench's floors send the same header). */
export const capacityHeader = (capacity: Capacity): string => `read=${capacity.read}, write=${capacity.write}`;

/** Sums the CapacityUnits of a call's ConsumedCapacity (one entry, or one per table for batches and transactions). */
export function unitsOf(consumed: unknown): number {
  const entries = (Array.isArray(consumed) ? consumed : [consumed]) as ({ CapacityUnits?: number } | undefined)[];
  return entries.reduce((sum, entry) => sum + (entry?.CapacityUnits ?? 0), 0);
}

/** When a request must have answered, and the signal that aborts its DynamoDB calls then. */
export interface Deadline {
  /** Epoch milliseconds. */
  at: number;
  budgetMs: number;
  signal: AbortSignal;
}

/**
 * Runs `fn` with a deadline `budgetMs` from now: every DynamoDB call made inside it (ElectroDB's and
 * lib-dynamodb's alike: they all go through the shared client's `send`) is aborted when it passes, the
 * SDK's retries and their pauses included, and a call started after it fails at once. Either way the call
 * fails with DeadlineExceeded, a 503 with Retry-After.
 */
export async function withDeadline<T>(budgetMs: number, fn: () => Promise<T>): Promise<T> {
  const controller = new AbortController();
  // Every DynamoDB call in flight listens on the signal, often more than Node's 10 before it warns of a leak.
  setMaxListeners(0, controller.signal);
  const timer = setTimeout(() => controller.abort(), budgetMs);
  try {
    return await callScope.run({ ...callScope.getStore(), deadline: { at: Date.now() + budgetMs, budgetMs, signal: controller.signal } }, fn);
  } finally {
    clearTimeout(timer);
  }
}

/** The deadline of the request being served, if it has one (HTTP requests do: lib/http/handler.ts). */
export function currentDeadline(): Deadline | undefined {
  return callScope.getStore()?.deadline;
}

/** `promise`, or DeadlineExceeded as soon as the request being served passes its deadline. */
export function withinDeadline<T>(promise: Promise<T>): Promise<T> {
  const deadline = currentDeadline();
  if (!deadline) return promise;
  if (deadline.signal.aborted) return Promise.reject(new DeadlineExceeded(deadline.budgetMs));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DeadlineExceeded(deadline.budgetMs));
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => deadline.signal.removeEventListener('abort', onAbort));
  });
}

/** The call counter of the request being served, if any: to count a call made on its behalf (onBehalfOf). */
export function currentCallCount(): CallCount | undefined {
  return callScope.getStore()?.counts;
}

/**
 * Runs `fn`, whose DynamoDB calls serve several requests at once (lib/store/sequences.ts), outside any one
 * request's scope — no request's deadline aborts them, so one request leaving does not fail the others;
 * the SDK's timeouts bound them — and counts those calls to every request in `counts`.
 */
export async function onBehalfOf<T>(counts: readonly (CallCount | undefined)[], fn: () => Promise<T>): Promise<T> {
  const made: CallCount = {};
  try {
    // A killed process makes no call on behalf of others either.
    const kill = callScope.getStore()?.kill;
    return await callScope.run({ counts: made, ...(kill ? { kill } : {}) }, fn);
  } finally {
    const capacity = capacityOf(made);
    for (const count of new Set(counts)) {
      if (!count) continue;
      for (const [op, n] of Object.entries(made)) count[op] = (count[op] ?? 0) + n;
      capacityOf(count).read += capacity.read;
      capacityOf(count).write += capacity.write;
    }
  }
}

/**
 * How long one DynamoDB call may take before it fails: a Lambda must answer (a 503 at worst) well within
 * API Gateway's 29 s, also when DynamoDB is throttling, unreachable or accepts connections but never
 * answers. DynamoDB answers in milliseconds, so the limits are generous for a healthy table:
 *
 * - connecting: 1 s (a TCP connection within the region takes a few milliseconds);
 * - a whole request, response included: 3 s (the largest responses, 16 MB BatchGetItem pages, take a
 *   fraction of that);
 * - 3 attempts in all (the SDK retries throttling, timeouts and lost connections with jittered
 *   exponential backoff: at most 0.15 s of waiting in all, at most 3 s when throttled).
 *
 * So a call gives up after at most 3 × 3 s + 3 s = 12 s (a frozen DynamoDB: ~9 s; a stopped one, connection
 * refused: well under a second), and the request then answers 503 with Retry-After. A request of several
 * calls is bounded as a whole by its deadline (withDeadline). Transactions carry a client request token the SDK keeps across its retries, so a retried
 * TransactWriteItems never applies twice.
 */
export const DYNAMODB_LIMITS = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, maxAttempts: 3 } as const;

/**
 * The limits in force. DynamoDB Local (an endpoint is set) is a single Java process that a busy
 * development machine or CI runner can stall for seconds, and the local server puts many requests on one
 * client (waiting for a free socket counts towards the connection timeout), so there the defaults are
 * 5 s to connect and 10 s a request. `LTS_DYNAMODB_CONNECT_TIMEOUT_MS` and `LTS_DYNAMODB_REQUEST_TIMEOUT_MS`
 * override them.
 */
export function dynamoLimits(): { connectionTimeoutMs: number; requestTimeoutMs: number; maxAttempts: number } {
  const { LTS_DYNAMODB_ENDPOINT: local, LTS_DYNAMODB_CONNECT_TIMEOUT_MS, LTS_DYNAMODB_REQUEST_TIMEOUT_MS } = config();
  return {
    connectionTimeoutMs: LTS_DYNAMODB_CONNECT_TIMEOUT_MS ?? (local ? 5_000 : DYNAMODB_LIMITS.connectionTimeoutMs),
    requestTimeoutMs: LTS_DYNAMODB_REQUEST_TIMEOUT_MS ?? (local ? 10_000 : DYNAMODB_LIMITS.requestTimeoutMs),
    maxAttempts: DYNAMODB_LIMITS.maxAttempts,
  };
}

/** The name the SDK gives its logger middleware (@aws-sdk/core's loggerMiddlewareOptions); removed from the client's stack. */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

let documentClient: DynamoDBDocumentClient | undefined;

/** The shared document client: created once per process and reused across Lambda invocations. */
export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { LTS_DYNAMODB_ENDPOINT, AWS_REGION } = config();
    const limits = dynamoLimits();
    const base = new DynamoDBClient({
      region: AWS_REGION,
      ...(LTS_DYNAMODB_ENDPOINT ? { endpoint: LTS_DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
      maxAttempts: limits.maxAttempts,
      // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes and keeps waiting.
      requestHandler: { connectionTimeout: limits.connectionTimeoutMs, requestTimeout: limits.requestTimeoutMs, throwOnRequestTimeout: true },
    });
    // The SDK's logger middleware filters every call's input and output for sensitive fields before handing
    // them to the logger, even to its default logger that drops them: ~1 ms of CPU a call with a 96-item
    // transaction. The service gives the SDK no logger (it logs its own failures), so the middleware goes.
    base.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
    // Counts the call in its request's counter; and names an abort, which the SDK reports as a bare
    // AbortError (its retry pause does not even keep the reason).
    base.middlewareStack.add(
      (next, context) => async (args) => {
        const { counts, deadline, kill } = callScope.getStore() ?? {};
        const op = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
        if (counts) counts[op] = (counts[op] ?? 0) + 1;
        const kind = counts && CAPACITY_KIND[op];
        if (kill && ++kill.made > kill.after) throw new ProcessKilled();
        if (deadline?.signal.aborted) throw new DeadlineExceeded(deadline.budgetMs);
        // Once the process has died (its last call made), no answer reaches it.
        const dead = () => kill !== undefined && kill.made >= kill.after;
        try {
          // Asked for a counted call (INDEXES: the indexes' units too), and taken out of the output again,
          // so that no caller's answer changes.
          const input = args.input as Record<string, unknown>;
          const asked = kind !== undefined && input.ReturnConsumedCapacity === undefined;
          const result = await next(asked ? { ...args, input: { ...input, ReturnConsumedCapacity: 'INDEXES' } } : args);
          if (dead()) throw new ProcessKilled();
          if (asked) {
            const output = result.output as unknown as Record<string, unknown>;
            capacityOf(counts!)[kind] += unitsOf(output.ConsumedCapacity);
            delete output.ConsumedCapacity;
          }
          return result;
        } catch (error) {
          if (dead()) throw error instanceof ProcessKilled ? error : new ProcessKilled();
          if (deadline?.signal.aborted) throw new DeadlineExceeded(deadline.budgetMs, { cause: error });
          throw error;
        }
      },
      { step: 'initialize', name: 'ltsCallScope' },
    );
    const client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
    // The request's deadline reaches the HTTP request only through `send`'s options (ElectroDB passes an
    // undefined abortSignal of its own), so every call is sent with it.
    const send = client.send.bind(client) as (command: unknown, options?: { abortSignal?: AbortSignal }) => Promise<unknown>;
    client.send = ((command: unknown, options?: { abortSignal?: AbortSignal }) =>
      send(command, { ...options, abortSignal: options?.abortSignal ?? currentDeadline()?.signal })) as typeof client.send;
    documentClient = client;
  }
  return documentClient;
}

/** Drops the cached client so the next call picks up a changed endpoint (tests, local start-up). */
export function resetDynamo(): void {
  documentClient = undefined;
}
