import { beforeAll, expect, it } from 'vitest';
import { call, doc } from '../support/api.ts';
import { freshStore } from '../support/store.ts';

beforeAll(freshStore);

it('creates and reads a sample', async () => {
  const created = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'smoke-1' }) });
  expect(created.status).toBe(201);
  const read = await call('GET', `/api/v2/samples/${created.body.data.id}?include=sample_metadata`);
  expect(read.body.data.attributes.name).toBe('smoke-1');
  expect(read.body.included[0].type).toBe('sample_metadata');
});
