import type { TestProject } from 'vitest/node';
import { startDynamoLocal, type LocalDynamo } from '#lib/local/dynamodb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

let dynamo: LocalDynamo | undefined;

/** Starts Amazon's DynamoDB Local once per test run (in memory); test files each create their own table. */
export async function setup(project: TestProject): Promise<void> {
  dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}
