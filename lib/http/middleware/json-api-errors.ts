import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { toResult, type LtsContext } from '#lib/http/request.ts';
import { errorResponse } from '#lib/jsonapi/error-response.ts';

/** `onError`: whatever a middleware or the engine threw becomes the response (lib/jsonapi/error-response.ts). */
export function jsonApiErrors(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, LtsContext> {
  return {
    onError: (request) => {
      const { requestId } = request.context.lts;
      request.response = toResult(errorResponse(request.error, requestId), requestId);
    },
  };
}
