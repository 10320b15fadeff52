import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { log } from '#lib/http/logger.ts';
import { toResult, type LtsContext } from '#lib/http/request.ts';
import type { ApiResponse } from '#lib/jsonapi/engine.ts';
import { errors, internalError, JsonApiError } from '#lib/jsonapi/errors.ts';
import { asCapacityError } from '#lib/store/errors.ts';

const errorDetails = (error: unknown) => (error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error));

/**
 * The one place errors become responses: JSON:API errors as they are; capacity faults (DynamoDB
 * throttled, timed out or unreachable, whether raised by the SDK or as the store's CapacityError) as a
 * 503 with Retry-After; anything else as a bare 500. Neither 503 nor 500 bodies reveal internals; the log
 * has them.
 */
export function errorResponse(error: unknown, requestId: string): ApiResponse {
  if (error instanceof JsonApiError) return { status: error.status, headers: error.headers, body: JSON.stringify({ errors: error.errors }) };
  const capacity = asCapacityError(error);
  if (capacity) {
    log('warn', 'capacity fault', { requestId, retryAfterSeconds: capacity.retryAfterSeconds, error: errorDetails(capacity.cause ?? capacity) });
    const unavailable = errors.serviceUnavailable(capacity.retryAfterSeconds);
    return { status: unavailable.status, headers: unavailable.headers, body: JSON.stringify({ errors: unavailable.errors }) };
  }
  log('error', 'unhandled error', { requestId, error: errorDetails(error) });
  return { status: 500, headers: {}, body: JSON.stringify({ errors: [internalError] }) };
}

/** `onError`: whatever a middleware or the engine threw becomes the response (see errorResponse). */
export function jsonApiErrors(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, LtsContext> {
  return {
    onError: (request) => {
      const { requestId } = request.context.lts;
      request.response = toResult(errorResponse(request.error, requestId), requestId);
    },
  };
}
