import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local per worker for the whole run; each test file works in its own table.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    // On a 2-core runner the DynamoDB Locals and the workers share two cores; a call may wait its turn for seconds.
    env: {
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LTS_DYNAMODB_CONNECT_TIMEOUT_MS: '30000',
      LTS_DYNAMODB_REQUEST_TIMEOUT_MS: '30000',
      // A request's budget as long as a test's: tests of the deadline and of conflict windows set their own.
      LTS_REQUEST_BUDGET_MS: '120000',
    },
    pool: 'forks',
    maxWorkers: 2,
    // Generous: on a 2-core runner the DynamoDB Locals and the workers share two cores, and tests that write
    // hundreds of records one by one wait their turn. A slow machine must never fail a test.
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
