import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { config } from '#lib/config.ts';
import { authenticate } from '#lib/http/middleware/authenticate.ts';
import { bodyLimit } from '#lib/http/middleware/body-limit.ts';
import { mediaTypes } from '#lib/http/middleware/media-types.ts';
import { route } from '#lib/http/middleware/route.ts';
import { baseUrl } from '#lib/http/base-url.ts';
import { log } from '#lib/http/logger.ts';
import { toApiRequest, toResult, type LtsContext } from '#lib/http/request.ts';
import { Loader } from '#lib/jsonapi/context.ts';
import { serve, type ApiResponse } from '#lib/jsonapi/engine.ts';
import { errors, internalError, JsonApiError } from '#lib/jsonapi/errors.ts';
import { registry } from '#lib/resources/index.ts';
import { routeNamed } from '#lib/routes.ts';
import { countCalls, totalCalls } from '#lib/store/client.ts';
import { asCapacityError } from '#lib/store/errors.ts';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const errorDetails = (error: unknown) => (error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error));

/**
 * The one place errors become responses: JSON:API errors as they are; capacity faults (DynamoDB
 * throttled, timed out or unreachable, whether raised by the SDK or as the store's CapacityError) as a
 * 503 with Retry-After; anything else as a bare 500. Neither 503 nor 500 bodies reveal internals; the log
 * line has them.
 */
function errorResponse(error: unknown, requestId: string): ApiResponse {
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

const preflight: ApiResponse = {
  status: 204,
  headers: {
    'Access-Control-Allow-Methods': 'GET, POST, PATCH, OPTIONS',
    'Access-Control-Allow-Headers': 'Content-Type, Accept, X-Sequencescape-Client-Id, Idempotency-Key',
    'Access-Control-Max-Age': '600',
  },
};

/**
 * The handler of the route named `name` (lib/routes.ts): the one chain every function shares: authentication, routing (404/405/403), media types (415/406) and
 * the body limit (413) as middy middlewares in the contract's order, then the engine. Every request is
 * logged once with its status, duration and DynamoDB calls, and the calls are reported in X-DynamoDB-Calls.
 */
export function createHandler(name: string): LambdaHandler {
  const served = routeNamed(name).types;
  const chain = middy<APIGatewayProxyEventV2, ApiResponse, Error, LtsContext>()
    .use(authenticate())
    .use(route(registry, served))
    .use(mediaTypes())
    .use(bodyLimit())
    .handler(async (_event, context) => {
      const { request, def, target, apiKey, requestId } = context.lts;
      const ctx = { registry, baseUrl: baseUrl(config().LTS_BASE_URL, request.headers), requestId, now: new Date().toISOString(), apiKey, loader: new Loader(registry) };
      return serve(ctx, def!, target!, request);
    });

  return async (event, context) => {
    const started = performance.now();
    const requestId = event.requestContext?.requestId ?? randomUUID();
    const request = toApiRequest(event);
    const { counts, result } = countCalls(async (): Promise<ApiResponse> => {
      // Browsers send CORS preflights without credentials; they reveal nothing and run nothing.
      if (request.method === 'OPTIONS') return preflight;
      try {
        return await chain(event, Object.assign(Object.create(context ?? {}), { lts: { request, requestId, apiKey: null } }) as LtsContext);
      } catch (error) {
        return errorResponse(error, requestId);
      }
    });
    const response = await result;
    log('info', 'request', {
      requestId,
      method: request.method,
      path: request.path,
      status: response.status,
      ms: Math.round(performance.now() - started),
      dynamodbCalls: totalCalls(counts),
      dynamodb: counts,
    });
    // Reported to the client too, so integrators and tests can see what a request costs.
    return toResult({ ...response, headers: { ...response.headers, 'X-DynamoDB-Calls': String(totalCalls(counts)) } }, requestId);
  };
}
