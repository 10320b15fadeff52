import type { TestProject } from 'vitest/node';
import { startDynamoLocal, type LocalDynamo } from '#lib/local/dynamodb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoints: string[];
  }
}

let instances: LocalDynamo[] = [];

/**
 * Starts Amazon's DynamoDB Local (in memory) once per test run for each test worker: one instance works
 * on one core at most, so each worker gets its own and the run uses the machine. Test files each create
 * their own table in their worker's instance (test/support/store.ts).
 */
export async function setup(project: TestProject): Promise<void> {
  const workers = Math.max(1, Number(project.config.maxWorkers) || 1);
  instances = await Promise.all(Array.from({ length: workers }, () => startDynamoLocal()));
  project.provide(
    'dynamoEndpoints',
    instances.map((d) => d.endpoint),
  );
}

export async function teardown(): Promise<void> {
  await Promise.all(instances.map((d) => d.stop()));
}
