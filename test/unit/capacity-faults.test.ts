import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { errors } from '#lib/jsonapi/errors.ts';
import {
  asCapacityError,
  CapacityError,
  capacityReason,
  isCapacityFault,
  THROTTLED_RETRY_AFTER_SECONDS,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from '#lib/store/errors.ts';

const $metadata = { httpStatusCode: 400 };
const nodeError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:8000`), { code });
/** How ElectroDB hands an SDK error on: wrapped, with the original as `cause`. */
const wrapped = (cause: unknown) => Object.assign(new Error('Error thrown by DynamoDB client', { cause }), { name: 'ElectroError', code: 4001 });

describe('isCapacityFault', () => {
  it.each([
    ['ThrottlingException', new ThrottlingException({ message: 'slow down', $metadata })],
    ['ProvisionedThroughputExceededException', new ProvisionedThroughputExceededException({ message: 'slow down', $metadata })],
    ['RequestLimitExceeded', new RequestLimitExceeded({ message: 'slow down', $metadata })],
    ['an HTTP 429', Object.assign(new Error('too many'), { $metadata: { httpStatusCode: 429 } })],
    [
      'a cancellation for ThrottlingError',
      new TransactionCanceledException({ message: 'cancelled', $metadata, CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }] }),
    ],
    ['TimeoutError (request or connection timeout)', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
    ['ECONNREFUSED (DynamoDB stopped)', nodeError('ECONNREFUSED')],
    ['ECONNRESET', nodeError('ECONNRESET')],
    ['ETIMEDOUT', nodeError('ETIMEDOUT')],
    ['EPIPE', nodeError('EPIPE')],
    ['InternalServerError (DynamoDB 500)', new InternalServerError({ message: 'oops', $metadata: { httpStatusCode: 500 } })],
    ['a 503 from the service', Object.assign(new Error('unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } })],
    ['a refused connection to every address', new AggregateError([nodeError('ECONNREFUSED'), nodeError('ECONNREFUSED')], 'connect failed')],
    ['a throttling error wrapped by ElectroDB', wrapped(new ThrottlingException({ message: 'slow down', $metadata }))],
    ['a refused connection wrapped twice', wrapped(wrapped(nodeError('ECONNREFUSED')))],
    ['the store’s CapacityError', new CapacityError('throttled', 2)],
  ])('%s → true', (_, error) => {
    expect(isCapacityFault(error)).toBe(true);
    expect(asCapacityError(error)).toBeInstanceOf(CapacityError);
  });

  it.each([
    ['ConditionalCheckFailedException', new ConditionalCheckFailedException({ message: 'condition', $metadata })],
    ['ResourceNotFoundException (no table: misconfiguration)', new ResourceNotFoundException({ message: 'no table', $metadata })],
    ['ValidationException', Object.assign(new Error('bad'), { name: 'ValidationException', $metadata })],
    [
      'a cancellation for ConditionalCheckFailed',
      new TransactionCanceledException({ message: 'cancelled', $metadata, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] }),
    ],
    ['a plain Error', new Error('bug')],
    ['a TypeError', new TypeError('x is undefined')],
    ['a JSON:API error', errors.badRequest('no')],
    ['ElectroDB’s own numeric code', Object.assign(new Error('electro'), { code: 4001 })],
    ['a string', 'ECONNREFUSED'],
    ['undefined', undefined],
    [
      'a cycle of causes',
      (() => {
        const e = new Error('a') as Error & { cause?: unknown };
        e.cause = e;
        return e;
      })(),
    ],
  ])('%s → false', (_, error) => {
    expect(isCapacityFault(error)).toBe(false);
    expect(asCapacityError(error)).toBeUndefined();
  });

  it('waits 1 s after throttling, 5 s when DynamoDB did not answer, and keeps the store’s own value', () => {
    expect(asCapacityError(new ThrottlingException({ message: 'x', $metadata }))!.retryAfterSeconds).toBe(THROTTLED_RETRY_AFTER_SECONDS);
    expect(asCapacityError(nodeError('ECONNREFUSED'))!.retryAfterSeconds).toBe(UNAVAILABLE_RETRY_AFTER_SECONDS);
    expect(asCapacityError(new CapacityError('x', 7))!.retryAfterSeconds).toBe(7);
    const cause = nodeError('ECONNRESET');
    expect(asCapacityError(wrapped(cause))!.cause).toBeDefined();
  });
});

describe('capacityReason', () => {
  it.each(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded'])('%s → true', (code) => expect(capacityReason(code)).toBe(true));
  it.each(['None', 'ConditionalCheckFailed', 'TransactionConflict', 'ItemCollectionSizeLimitExceeded', 'ValidationError', '', undefined])(
    '%s → false',
    (code) => expect(capacityReason(code)).toBe(false),
  );
});
