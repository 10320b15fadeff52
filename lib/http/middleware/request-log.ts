import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { log } from '#lib/log.ts';
import type { ChainMiddleware, LtsContext } from '#lib/http/request.ts';
import { capacityHeader, capacityOf, totalCalls } from '#lib/store/client.ts';

type ChainRequest = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, LtsContext>;

/**
 * Every response leaves through here: reports the request's DynamoDB calls in X-DynamoDB-Calls and the
 * capacity units they consumed in X-DynamoDB-Capacity (`read=<units>, write=<units>`, as DynamoDB reported
 * them, indexes included), so integrators, tests and the bench can see what a request costs, and logs the
 * request once, with its status, duration, calls by operation and capacity. Returns the response.
 */
export function finishResponse(request: ChainRequest, response: APIGatewayProxyStructuredResultV2): APIGatewayProxyStructuredResultV2 {
  const { context } = request;
  const { requestId, request: apiRequest, started } = context.lts;
  const counts = context.dynamodbCalls;
  const capacity = capacityOf(counts);
  log('info', 'request', {
    requestId,
    method: apiRequest.method,
    path: apiRequest.path,
    status: response.statusCode,
    ms: Math.round(performance.now() - started),
    dynamodbCalls: totalCalls(counts),
    dynamodb: counts,
    capacity,
  });
  const headers = { 'X-DynamoDB-Calls': String(totalCalls(counts)), 'X-DynamoDB-Capacity': capacityHeader(capacity) };
  request.response = { ...response, headers: { ...response.headers, ...headers } };
  return request.response;
}

/**
 * The request log line and X-DynamoDB-Calls, as an `after` and an `onError` pair: middy runs `after` only
 * when the handler succeeded, and `onError` (this one after the error mapping) when anything failed.
 * (An early response from `before`, the preflight, skips both; it calls finishResponse itself.)
 */
export function requestLog(): ChainMiddleware {
  return {
    after: (request) => {
      finishResponse(request, request.response!);
    },
    onError: (request) => {
      // Left unset only if the error mapping itself failed: middy then rethrows.
      if (request.response) finishResponse(request, request.response);
    },
  };
}
