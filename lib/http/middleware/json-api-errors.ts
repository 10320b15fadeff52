import { toResult, type ChainMiddleware } from '#lib/http/request.ts';
import { errorResponse } from '#lib/jsonapi/error-response.ts';

/** `onError`: whatever a middleware or the engine threw becomes the response (lib/jsonapi/error-response.ts). */
export function jsonApiErrors(): ChainMiddleware {
  return {
    onError: (request) => {
      const { requestId } = request.context.lts;
      request.response = toResult(errorResponse(request.error, requestId), requestId);
    },
  };
}
