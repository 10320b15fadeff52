import type { ChainMiddleware } from '#lib/http/request.ts';
import { bytesPastLimit, encodeResult, LAMBDA_RESPONSE_BYTES } from '#lib/http/response-size.ts';
import { errors } from '#lib/jsonapi/errors.ts';

/**
 * `after`, first of all: the engine's answer gzip-compressed when the client accepts it, and a 400 naming
 * the limit for one that would still be past Lambda's response limit (lib/http/response-size.ts). Only
 * reads can get there: a write answers one record, and records are at most 400 KB; so the refusal never
 * follows a write that was applied.
 */
export function responseSize(): ChainMiddleware {
  return {
    after: (request) => {
      const { headers, query } = request.context.lts.request;
      const result = encodeResult(request.response!, headers['accept-encoding']);
      const bytes = bytesPastLimit(result);
      if (bytes !== undefined) {
        const parameter = new URLSearchParams(query).has('include') ? 'include' : 'page[size]';
        throw errors.responseTooLarge(parameter, bytes, LAMBDA_RESPONSE_BYTES);
      }
      request.response = result;
    },
  };
}
