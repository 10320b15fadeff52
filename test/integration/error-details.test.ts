import { beforeAll, expect, it } from 'vitest';
import { call, doc } from '../support/api.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/**
 * Errors about a name the client chose list the names it could have used, and a media type refused for a
 * parameter says the parameter is the problem (issue 12: a newcomer's first hour).
 */

beforeAll(freshStore);

it('filter_not_allowed lists the filters of the type', async () => {
  const error = expectError(await call('GET', '/api/v2/samples?filter[colour]=red'), 400, 'filter_not_allowed');
  expect(error.detail).toBe('colour is not an allowed filter for samples; its filters are id, name, sanger_sample_id, site_sample_id, uuid');
  expect(error.source).toEqual({ parameter: 'filter[colour]' });
});

it('invalid_include lists the relationships of the type it was looked for in', async () => {
  const error = expectError(await call('GET', '/api/v2/transfers?include=source.nonsense'), 400, 'invalid_include');
  expect(error.detail).toMatch(
    /^nonsense is not a valid relationship of plates \/ tubes \/ tube_racks \(in include path "source\.nonsense"\); its relationships are /,
  );
  expect(error.detail).toContain('wells');
  expect(error.detail).toContain('racked_tubes');
});

it('a JSON:API media type with a parameter it does not allow: 415 naming the parameter', async () => {
  const res = await call('POST', '/api/v2/samples', {
    body: doc('samples', { name: 'charset-sample' }),
    headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
  });
  const error = expectError(res, 415, 'unsupported_media_type');
  expect(error.detail).toContain('"charset"');
  expect(error.detail).toContain('without it');
  const plain = expectError(await call('POST', '/api/v2/samples', { body: doc('samples', {}), headers: { 'content-type': 'application/json' } }), 415);
  expect(plain.detail).toBe('Content-Type "application/json" is not supported; writes must use application/vnd.api+json');
});
