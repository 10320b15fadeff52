import type { ChainMiddleware } from '#lib/http/request.ts';
import { checkBodySize } from '#lib/jsonapi/request-checks.ts';

/** 413 for bodies over 1 MiB, before anything parses them (lib/jsonapi/request-checks.ts). */
export function bodyLimit(): ChainMiddleware {
  return {
    before: async ({ context }) => checkBodySize(context.lts.request.body),
  };
}
