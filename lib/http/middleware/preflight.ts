import { finishResponse } from '#lib/http/middleware/request-log.ts';
import { toResult, type ChainMiddleware } from '#lib/http/request.ts';
import type { ApiResponse } from '#lib/jsonapi/request.ts';

const PREFLIGHT: ApiResponse = {
  status: 204,
  headers: {
    'Access-Control-Allow-Methods': 'GET, POST, PATCH, OPTIONS',
    'Access-Control-Allow-Headers': 'Content-Type, Accept, X-Sequencescape-Client-Id, Idempotency-Key',
    'Access-Control-Max-Age': '600',
  },
};

/**
 * Browsers send CORS preflights without credentials, so an OPTIONS request is answered before
 * authentication, as an early response; it reveals nothing and runs nothing. middy skips `after` on an
 * early response, so the preflight is logged and finished here.
 */
export function preflight(): ChainMiddleware {
  return {
    before: (request) => {
      if (request.context.lts.request.method !== 'OPTIONS') return undefined;
      return finishResponse(request, toResult(PREFLIGHT, request.context.lts.requestId));
    },
  };
}
