import { defineConfig } from 'vitest/config';
import shared from './vitest.config.ts';

/**
 * `npm run test:unit`: the unit tests alone (lab rules, definitions, the engine's pure parts), in seconds
 * and without Java: no DynamoDB Local is started, since none of them touches the store.
 */
export default defineConfig({ ...shared, test: { ...shared.test, include: ['test/unit/**/*.test.ts'], globalSetup: [], setupFiles: [] } });
