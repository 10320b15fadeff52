import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ApiKeyIdentity } from '#lib/jsonapi/context.ts';
import type { ApiRequest, ApiResponse, Target } from '#lib/jsonapi/request.ts';
import type { ResourceDef } from '#lib/jsonapi/resource.ts';
import type { CallCount } from '#lib/store/client.ts';

/** What the middlewares learn about a request, kept on the Lambda context for the next ones. */
export interface LtsState {
  /** performance.now() when the chain began. */
  started: number;
  requestId: string;
  /** The event as the engine sees it, built once. */
  request: ApiRequest;
  /** What the path addresses, parsed once; undefined when it is no JSON:API path (a 404). */
  target: Target | undefined;
  apiKey: ApiKeyIdentity | null;
  /** The resource the path routes to, set by routing. */
  def?: ResourceDef;
}

/**
 * The Lambda context as the chain sees it: `lts` from the request-context middleware on, and the
 * DynamoDB calls of this invocation so far (the handler runs the whole chain inside `countCalls`).
 */
export type LtsContext = Context & { lts: LtsState; dynamodbCalls: CallCount };

/** A middleware of the chain, as middy takes it. */
export type ChainMiddleware = middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, LtsContext>;

export const JSON_API = 'application/vnd.api+json';

/** The API Gateway (HTTP API, payload 2.0) event as the engine sees it. */
export function toApiRequest(event: APIGatewayProxyEventV2): ApiRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  const body = event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    query: event.rawQueryString ?? '',
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

export function toResult(response: ApiResponse, requestId: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: response.status,
    headers: {
      'Content-Type': JSON_API,
      'X-Request-Id': requestId,
      // Browser clients (limber, traction-ui) call the API from other origins.
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'Location, Retry-After, X-Request-Id, X-DynamoDB-Calls, X-DynamoDB-Capacity',
      ...response.headers,
    },
    ...(response.body !== undefined ? { body: response.body } : {}),
  };
}
