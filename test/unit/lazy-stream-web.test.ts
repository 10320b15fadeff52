import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { bundling } from '../../infra/bundling.ts';

/**
 * The bundles' `node:stream/web` (infra/bundling.ts aliases it to lib/http/lazy-stream-web.cjs): every
 * export of Node's module, each the very same class, and none read before it is asked for.
 */
const require = createRequire(import.meta.url);
const streamWeb = require('node:stream/web') as Record<string, unknown>;

it("holds every export of Node's node:stream/web, each the same class", () => {
  const lazy = require(`../../${bundling.alias['node:stream/web']}`) as Record<string, unknown>;
  expect(Object.keys(lazy).sort()).toEqual(Object.keys(streamWeb).sort());
  for (const name of Object.keys(streamWeb)) expect(lazy[name], name).toBe(streamWeb[name]);
});

it('reads nothing at load: each export is a getter', () => {
  const lazy = require(`../../${bundling.alias['node:stream/web']}`) as object;
  for (const name of Object.keys(streamWeb)) expect(typeof Object.getOwnPropertyDescriptor(lazy, name)?.get, name).toBe('function');
});
