import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';

/** DynamoDB calls made while serving one request, by operation name (e.g. { GetItem: 1, Query: 2 }). */
export type CallCount = Record<string, number>;

const callScope = new AsyncLocalStorage<CallCount>();

/** Runs `fn` with a fresh call counter; every DynamoDB call made inside it is counted there. */
export function countCalls<T>(fn: () => Promise<T>): { counts: CallCount; result: Promise<T> } {
  const counts: CallCount = {};
  return { counts, result: callScope.run(counts, fn) };
}

export function totalCalls(counts: CallCount): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

let documentClient: DynamoDBDocumentClient | undefined;

/** The shared document client: created once per process and reused across Lambda invocations. */
export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { LTS_DYNAMODB_ENDPOINT, AWS_REGION } = config();
    const base = new DynamoDBClient({
      region: AWS_REGION,
      ...(LTS_DYNAMODB_ENDPOINT
        ? { endpoint: LTS_DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
      maxAttempts: 3,
    });
    base.middlewareStack.add(
      (next, context) => async (args) => {
        const counts = callScope.getStore();
        if (counts) {
          const op = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
          counts[op] = (counts[op] ?? 0) + 1;
        }
        return next(args);
      },
      { step: 'initialize', name: 'ltsCallCounter' },
    );
    documentClient = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return documentClient;
}

/** Drops the cached client so the next call picks up a changed endpoint (tests, local start-up). */
export function resetDynamo(): void {
  documentClient = undefined;
}
