import type { ApiResponse } from '#lib/jsonapi/request.ts';
import { internalError, JsonApiError } from '#lib/jsonapi/errors.ts';
import { storeErrorToJsonApi } from '#lib/jsonapi/store-errors.ts';
import { log } from '#lib/log.ts';
import { sourceMappedStack } from '#lib/stack-trace.ts';

const errorDetails = (error: unknown) =>
  error instanceof Error ? { name: error.name, message: error.message, stack: error.stack && sourceMappedStack(error.stack) } : String(error);

/**
 * Whatever a request or a message failed with, as the response to give: JSON:API errors as they are, the
 * store's errors as lib/jsonapi/store-errors.ts maps them, anything else a bare 500. Neither 503 nor 500
 * bodies reveal internals; the log has them.
 */
export function errorResponse(error: unknown, requestId: string): ApiResponse {
  const known = error instanceof JsonApiError ? error : storeErrorToJsonApi(error);
  if (!known) {
    log('error', 'unhandled error', { requestId, error: errorDetails(error) });
    return { status: 500, headers: {}, body: JSON.stringify({ errors: [internalError] }) };
  }
  if (known.status === 503) log('warn', 'capacity fault', { requestId, retryAfterSeconds: Number(known.headers['Retry-After']), error: errorDetails(error) });
  return { status: known.status, headers: known.headers, body: JSON.stringify({ errors: known.errors }) };
}
