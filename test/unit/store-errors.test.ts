import { readdirSync, readFileSync } from 'node:fs';
import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { errorResponse } from '#lib/jsonapi/error-response.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { storeErrorToJsonApi } from '#lib/jsonapi/store-errors.ts';
import {
  CapacityError,
  ConflictError,
  DeadlineExceeded,
  mayHaveApplied,
  TooLargeError,
  UniqueValueTaken,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
  WriteOutcomeUnknown,
} from '#lib/store/errors.ts';

const bodyOf = (error: unknown) => JSON.parse(errorResponse(error, 'test').body!);

describe('the store raises its own errors', () => {
  it('imports nothing from lib/jsonapi (nor lib/http)', () => {
    for (const file of readdirSync('lib/store')) {
      expect(readFileSync(`lib/store/${file}`, 'utf8'), file).not.toMatch(/from '#lib\/(jsonapi|http)\//);
    }
  });
});

describe('storeErrorToJsonApi: the one mapping of store errors to JSON:API', () => {
  it('a unique value taken → 422 not_unique at the field that gave it, one error per value', () => {
    const error = storeErrorToJsonApi(
      new UniqueValueTaken([
        { field: 'name', pointer: '/data/attributes/name', value: 'sample-1' },
        { field: 'barcode', pointer: '/data/attributes/barcode', value: 'DN1S' },
      ]),
    );
    expect(error?.status).toBe(422);
    expect(error?.errors).toEqual([
      errors.notUnique('/data/attributes/name', 'name', 'sample-1').errors[0],
      errors.notUnique('/data/attributes/barcode', 'barcode', 'DN1S').errors[0],
    ]);
    expect(error?.errors[0]).toMatchObject({ code: 'not_unique', detail: 'name - "sample-1" is already in use' });
  });

  it('a conflict that outlived the retries → 409 concurrent_update', () => {
    expect(storeErrorToJsonApi(new ConflictError())?.errors).toEqual(errors.concurrentUpdate().errors);
  });

  it('too large → 422 too_large at /data with the store’s explanation', () => {
    const error = storeErrorToJsonApi(new TooLargeError('this request would write 101 items; one request may write at most 100'));
    expect(error?.status).toBe(422);
    expect(error?.errors[0]).toEqual({
      status: '422',
      code: 'too_large',
      title: 'Too large',
      detail: 'this request would write 101 items; one request may write at most 100',
      source: { pointer: '/data' },
    });
  });

  it('capacity → 503 service_unavailable with Retry-After, from the store or straight from the SDK', () => {
    expect(storeErrorToJsonApi(new CapacityError('throttled', 7))).toMatchObject({ status: 503, headers: { 'Retry-After': '7' } });
    expect(storeErrorToJsonApi(new ThrottlingException({ message: 'slow down', $metadata: {} }))?.errors[0]?.code).toBe('service_unavailable');
    const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    expect(storeErrorToJsonApi(timeout)?.headers).toEqual({ 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
  });

  it('the deadline passed → 503 with its own Retry-After, also inside the errors that wrap it (ElectroDB, the SDK)', () => {
    const abort = Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    const wrapped = new Error('ElectroDB error', { cause: new DeadlineExceeded(2_000, { cause: abort }) });
    expect(storeErrorToJsonApi(wrapped)).toMatchObject({ status: 503, headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } });
  });

  it('a write that got no answer may have been applied → 503 saying so; one DynamoDB refused was not', () => {
    const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    for (const noAnswer of [timeout, new DeadlineExceeded(2_000), Object.assign(new Error('reset'), { code: 'ECONNRESET' })]) {
      expect(mayHaveApplied(noAnswer), String(noAnswer)).toBe(true);
    }
    for (const refused of [
      new ThrottlingException({ message: 'slow down', $metadata: {} }),
      new ConflictError(),
      new CapacityError('throttled'),
      new Error('bug'),
    ]) {
      expect(mayHaveApplied(refused), String(refused)).toBe(false);
    }
    const error = storeErrorToJsonApi(new WriteOutcomeUnknown(timeout));
    expect(error).toMatchObject({ status: 503, headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } });
    expect(error?.errors[0]).toMatchObject({ code: 'service_unavailable', detail: expect.stringContaining('it may or may not have been') });
  });

  it('anything else is not a store error', () => {
    expect(storeErrorToJsonApi(new Error('bug'))).toBeUndefined();
    expect(storeErrorToJsonApi('a string')).toBeUndefined();
  });
});

describe('errorResponse', () => {
  it('answers JSON:API errors as they are and store errors as mapped', () => {
    expect(errorResponse(errors.notFound('no such thing'), 'test')).toMatchObject({ status: 404 });
    expect(errorResponse(new CapacityError('throttled', 2), 'test')).toMatchObject({ status: 503, headers: { 'Retry-After': '2' } });
    expect(bodyOf(new ConflictError()).errors[0].code).toBe('concurrent_update');
  });

  it('answers anything else with a bare 500 that reveals nothing', () => {
    const response = errorResponse(new Error('secret internals'), 'test');
    expect(response.status).toBe(500);
    expect(response.body).not.toContain('secret');
    expect(bodyOf(new Error('x')).errors[0].code).toBe('internal_error');
  });
});
