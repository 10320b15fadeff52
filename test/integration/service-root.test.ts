import { beforeAll, expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import { call } from '../support/api.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/** The first things a newcomer or a load balancer asks: is it up (no key, no data), and what does it serve. */

beforeAll(freshStore);

it('GET /health answers 200 without a key, revealing nothing but that the service answers', async () => {
  const res = await call('GET', '/health', { key: null });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ meta: { status: 'ok' } });
  expect(res.headers['Cache-Control']).toBe('no-store');
  expect(res.calls).toBe(0);
  expectError(await call('POST', '/health', { key: null, body: {} }), 401);
});

it('GET /api/v2 lists every type with its collection link, for a caller with a key', async () => {
  const res = await call('GET', '/api/v2');
  expect(res.status).toBe(200);
  expect(Object.keys(res.body.meta.types)).toEqual([...registry.types].sort());
  expect(res.body.meta.types.transfers).toBe('https://lts.test/api/v2/transfers');
  expect(res.body.links.self).toBe('https://lts.test/api/v2');
  expectError(await call('GET', '/api/v2', { key: null }), 401);
});
