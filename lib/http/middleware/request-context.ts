import { randomUUID } from 'node:crypto';
import { toApiRequest, type ChainMiddleware } from '#lib/http/request.ts';
import { parsePath } from '#lib/jsonapi/request.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';

/**
 * Runs first: gives the request its id (API Gateway's, else a fresh one), builds the ApiRequest from the
 * event and parses the path, once each, onto `context.lts` for every later middleware and the engine.
 */
export function requestContext(registry: Registry): ChainMiddleware {
  return {
    before: ({ event, context }) => {
      const started = performance.now();
      const requestId = event.requestContext?.requestId ?? randomUUID();
      const request = toApiRequest(event);
      context.lts = { started, requestId, request, target: parsePath(request.path, registry), apiKey: null };
    },
  };
}
