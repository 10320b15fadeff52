import { ProvisionedThroughputExceededException, ThrottlingException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { dynamo } from '#lib/store/client.ts';

/**
 * Injects DynamoDB faults into the shared client, for the faults DynamoDB Local cannot produce: it never
 * throttles, and it answers promptly. A middleware on the client's stack (the `initialize` step, before
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
  | 'TimeoutError:after';

const METADATA = { httpStatusCode: 400, requestId: 'INJECTED', attempts: 3, totalRetryDelay: 0 };

function fault(kind: FaultKind, input: { TransactItems?: unknown[] }): Error {
  switch (kind) {
    case 'ThrottlingException':
      return new ThrottlingException({ message: 'Throughput exceeds the current throughput limit for your account.', $metadata: METADATA });
    case 'ProvisionedThroughputExceededException':
      return new ProvisionedThroughputExceededException({
        message: 'The level of configured provisioned throughput for the table was exceeded.',
        $metadata: METADATA,
      });
    case 'TransactionCanceled:ThrottlingError': {
      const reasons = (input.TransactItems ?? [undefined]).map((_, i) =>
        i === 0 ? { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity of your table or index.' } : { Code: 'None' },
      );
      return new TransactionCanceledException({
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
        $metadata: METADATA,
        CancellationReasons: reasons,
      });
    }
    case 'TimeoutError':
    case 'TimeoutError:after':
      return Object.assign(new Error('@smithy/node-http-handler - [ERROR] a request has exceeded the configured 3000 ms requestTimeout.'), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      });
  }
}

export interface FaultInjector {
  /** Every later call of `operation` (e.g. `GetItem`) fails with `kind` until disarmed. */
  arm(operation: string, kind: FaultKind): void;
  disarm(): void;
  /** How many calls failed since the last arm(). */
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
  let armed: { operation: string; kind: FaultKind } | undefined;
  let fired = 0;
  let seen: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      seen.push(operation);
      if (!armed || armed.operation !== operation) return next(args);
      fired++;
      const error = fault(armed.kind, args.input as { TransactItems?: unknown[] });
      if (armed.kind !== 'TimeoutError:after') throw error;
      await next(args);
      throw error;
    },
    { step: 'initialize', name: NAME, priority: 'low' },
  );
  return {
    arm(operation, kind) {
      armed = { operation, kind };
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
      seen = [];
    },
    remove() {
      client.middlewareStack.remove(NAME);
    },
  };
}
