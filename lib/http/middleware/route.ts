import type { ChainMiddleware } from '#lib/http/request.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { routeRequest } from '#lib/jsonapi/request-checks.ts';

/** Routing among the types this function serves: 404, 405 with Allow, 403 (lib/jsonapi/request-checks.ts). */
export function route(registry: Registry, served: readonly string[]): ChainMiddleware {
  return {
    before: async ({ context }) => {
      const { request, target, apiKey } = context.lts;
      context.lts.def = (await routeRequest(registry, served, request, target, apiKey)).def;
    },
  };
}
