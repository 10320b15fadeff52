import { ProvisionedThroughputExceededException, ThrottlingException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { dynamo } from '#lib/store/client.ts';
import { clearReferenceCache } from '#lib/store/reference-records.ts';
import { freshStore } from './store.ts';

/**
 * Injects DynamoDB faults into the shared client, for the faults DynamoDB Local cannot produce: it never
 * throttles, answers promptly, and one test cannot make another transaction touch the same item at the
 * very moment of a commit. A middleware on the client's stack (the `initialize` step, before
 * the SDK's own retries, so a fault is what the service sees once those retries are spent) fails every
 * call of the armed operation with an error shaped like the real one. The SDK's retries themselves are
 * exercised by the real outages in outage.test.ts.
 */

export type FaultKind =
  /** ThrottlingException: the table or an index is over its on-demand or account throughput. */
  | 'ThrottlingException'
  /** ProvisionedThroughputExceededException: over the provisioned capacity. */
  | 'ProvisionedThroughputExceededException'
  /** TransactWriteItems cancelled with reason ThrottlingError on one item (a hot key or index). */
  | 'TransactionCanceled:ThrottlingError'
  /** No answer within the request timeout (the error the SDK's request handler raises). */
  | 'TimeoutError'
  /** The call reaches DynamoDB and succeeds, but its answer is lost to a timeout. */
  | 'TimeoutError:after'
  /** TransactWriteItems cancelled because another transaction was writing its first item at that moment. */
  | 'TransactionCanceled:TransactionConflict'
  /**
   * TransactWriteItems cancelled because a concurrent writer changed a record this write had read: the
   * version condition of its first changed (not created) record failed. A transaction with no such item
   * goes through untouched (no concurrent writer can fail it that way), and `fired` stays 0.
   */
  | 'TransactionCanceled:ConditionalCheckFailed'
  /** The call succeeds, `delayMs` late (a slow network or a busy partition). */
  | 'Latency';

const METADATA = { httpStatusCode: 400, requestId: 'INJECTED', attempts: 3, totalRetryDelay: 0 };

type TransactInput = { TransactItems?: Record<string, { ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string> }>[] };

/** The index of the first item of a transaction that is conditional on a record's version, or -1. */
function versionedItem(input: TransactInput): number {
  return (input.TransactItems ?? []).findIndex((item) => {
    const op = item.Put ?? item.Delete ?? item.Update;
    return !!op?.ConditionExpression && Object.values(op.ExpressionAttributeNames ?? {}).includes('version');
  });
}

/** A TransactionCanceledException with `code` as the reason of item `at` and `None` for the others. */
function cancelled(input: TransactInput, at: number, code: string, message: string): TransactionCanceledException {
  const reasons = (input.TransactItems ?? [undefined]).map((_, i) => (i === at ? { Code: code, Message: message } : { Code: 'None' }));
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    $metadata: METADATA,
    CancellationReasons: reasons,
  });
}

function fault(kind: Exclude<FaultKind, 'Latency'>, input: TransactInput): Error {
  switch (kind) {
    case 'ThrottlingException':
      return new ThrottlingException({ message: 'Throughput exceeds the current throughput limit for your account.', $metadata: METADATA });
    case 'ProvisionedThroughputExceededException':
      return new ProvisionedThroughputExceededException({
        message: 'The level of configured provisioned throughput for the table was exceeded.',
        $metadata: METADATA,
      });
    case 'TransactionCanceled:ThrottlingError':
      return cancelled(input, 0, 'ThrottlingError', 'Throughput exceeds the current capacity of your table or index.');
    case 'TransactionCanceled:TransactionConflict':
      return cancelled(input, 0, 'TransactionConflict', 'Transaction is ongoing for the item');
    case 'TransactionCanceled:ConditionalCheckFailed':
      return cancelled(input, versionedItem(input), 'ConditionalCheckFailed', 'The conditional request failed');
    case 'TimeoutError':
    case 'TimeoutError:after':
      return Object.assign(new Error('@smithy/node-http-handler - [ERROR] a request has exceeded the configured 3000 ms requestTimeout.'), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      });
  }
}

export interface ArmOptions {
  /** How many calls to fault before letting calls through again (a transient fault); every call by default. */
  times?: number;
  /** The delay of `Latency`, in milliseconds. */
  delayMs?: number;
}

export interface FaultInjector {
  /** Later calls of `operation` (e.g. `GetItem`; `*` for every operation) fail with `kind` until disarmed. */
  arm(operation: string, kind: FaultKind, options?: ArmOptions): void;
  disarm(): void;
  /** How many calls failed (or were delayed) since the last arm(). */
  readonly fired: number;
  /** Operations called since the last reset (in order), faulted or not. */
  readonly seen: string[];
  resetSeen(): void;
  /** Takes the middleware off the client. */
  remove(): void;
}

const NAME = 'ltsTestFaultInjector';

/** Adds the fault injector to the shared DynamoDB client (call after the store points at its table). */
export function injectFaults(): FaultInjector {
  const client = dynamo();
  let armed: { operation: string; kind: FaultKind; times: number; delayMs: number } | undefined;
  let fired = 0;
  let seen: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      seen.push(operation);
      if (!armed || (armed.operation !== operation && armed.operation !== '*') || fired >= armed.times) return next(args);
      const { kind, delayMs } = armed;
      const input = args.input as TransactInput;
      if (kind === 'TransactionCanceled:ConditionalCheckFailed' && versionedItem(input) < 0) return next(args);
      fired++;
      if (kind === 'Latency') {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return next(args);
      }
      const error = fault(kind, input);
      if (kind !== 'TimeoutError:after') throw error;
      await next(args);
      throw error;
    },
    { step: 'initialize', name: NAME, priority: 'low' },
  );
  return {
    // Observed and armed runs each start with no reference record kept by the process (lib/store/reference-records.ts), so every run of a write makes the same calls.
    arm(operation, kind, options = {}) {
      clearReferenceCache();
      armed = { operation, kind, times: options.times ?? Number.POSITIVE_INFINITY, delayMs: options.delayMs ?? 0 };
      fired = 0;
    },
    disarm() {
      armed = undefined;
    },
    get fired() {
      return fired;
    },
    get seen() {
      return seen;
    },
    resetSeen() {
      clearReferenceCache();
      seen = [];
    },
    remove() {
      client.middlewareStack.remove(NAME);
    },
  };
}

/**
 * A test file's fresh store with the injector on its client: made before the file's tests, disarmed after
 * each test, removed after the file. The injector exists only once beforeAll has run, so what is returned
 * forwards to it (tests use it like the injector itself).
 */
export function storeWithFaults(): FaultInjector {
  let injector: FaultInjector | undefined;
  beforeAll(async () => {
    await freshStore();
    injector = injectFaults();
  });
  afterEach(() => injector?.disarm());
  afterAll(() => injector?.remove());
  return new Proxy({} as FaultInjector, {
    get: (_, name) => {
      const value = Reflect.get(injector!, name);
      return typeof value === 'function' ? value.bind(injector) : value;
    },
  });
}
