import { defineConfig } from 'vitest/config';
import { HANG_MS } from './test/support/limits.ts';
import { SlowestFirstSequencer } from './test/support/sequencer.ts';

// The AWS SDK's notice that it will need Node 22 (README, "Prerequisites") is off, as in the npm scripts, in
// this process too: the global setup makes SDK clients here (DynamoDB Local, the reference data), and the
// workers and the processes they start inherit this environment.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local per worker for the whole run; each test file works in its own table.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    // On a 2-core runner the DynamoDB Locals and the workers share two cores; a call may wait its turn for seconds,
    // and under other load for tens of seconds: the longest timeouts the configuration accepts.
    env: {
      LOG_LEVEL: 'silent',
      LTS_DYNAMODB_CONNECT_TIMEOUT_MS: '60000',
      LTS_DYNAMODB_REQUEST_TIMEOUT_MS: '60000',
      // A request's budget as long as a test's: tests of the deadline and of conflict windows set their own.
      LTS_REQUEST_BUDGET_MS: '120000',
    },
    pool: 'forks',
    maxWorkers: 2,
    // The heaviest files first, so that neither worker is left with one at the end (docs/decisions.md, "Suite time").
    sequence: { sequencer: SlowestFirstSequencer },
    // Hang detectors only: a loaded machine must never fail a test (test/support/limits.ts).
    testTimeout: HANG_MS,
    hookTimeout: HANG_MS,
  },
});
