import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamo, resetDynamo, SDK_LOGGER_MIDDLEWARE } from '#lib/store/client.ts';

const logger = `${SDK_LOGGER_MIDDLEWARE} - initialize`;

describe('the shared DynamoDB client', () => {
  afterEach(resetDynamo);

  it("names the SDK's own logger middleware as the SDK does (else removing it would silently do nothing)", () => {
    expect(new DynamoDBClient({ region: 'eu-west-2' }).middlewareStack.identify()).toContain(logger);
  });

  it("carries no logger middleware, which would filter every call's input and output for a logger that drops them, and keeps the service's own", () => {
    resetDynamo();
    const names = dynamo().middlewareStack.identify();
    expect(names).not.toContain(logger);
    expect(names).toContain('ltsCallScope - initialize');
  });
});
