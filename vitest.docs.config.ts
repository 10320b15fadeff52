import { defineConfig } from 'vitest/config';
import shared from './vitest.config.ts';

/**
 * `npm run docs:plate-map`: pictures for the README, made with the test support (DynamoDB Local, the
 * service over HTTP, the lab fixtures, the browser) but never part of the test suite (`test/docs/`, not `*.test.ts`).
 */
export default defineConfig({ ...shared, test: { ...shared.test, include: ['test/docs/**/*.docs.ts'] } });
