import { config } from '#lib/config.ts';
import { baseUrl } from '#lib/http/base-url.ts';
import type { Pages } from '#lib/http/handler.ts';
import { docsPage } from '#lib/http/middleware/docs-page.ts';
import { finishResponse } from '#lib/http/middleware/request-log.ts';
import { toResult, type ChainMiddleware } from '#lib/http/request.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';

/**
 * What a newcomer (or a load balancer) asks first, answered early like the CORS preflight (middy skips
 * `after`, so each is logged and finished here): `GET /health` without a key, telling only that the
 * service answers; `GET /api/v2/openapi.json`, the API's description (no data, so no key either);
 * `GET /api/v2` with a key, the index of the types it serves with their collection links.
 */
const isGet = (method: string) => method === 'GET';

export function health(): ChainMiddleware {
  return {
    before: (request) => {
      const { method, path } = request.context.lts.request;
      if (!isGet(method) || path !== '/health') return undefined;
      return finishResponse(
        request,
        toResult({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: JSON.stringify({ meta: { status: 'ok' } }) }, request.context.lts.requestId),
      );
    },
  };
}

export function serviceIndex(registry: Registry): ChainMiddleware {
  return {
    before: (request) => {
      const { method, path, headers } = request.context.lts.request;
      if (!isGet(method) || (path !== '/api/v2' && path !== '/api/v2/')) return undefined;
      const base = `${baseUrl(config().LTS_BASE_URL, headers)}/api/v2`;
      // Each type with its collection's URL (in meta: JSON:API's top-level links take only its own names).
      const types = Object.fromEntries([...registry.types].sort().map((type) => [type, `${base}/${type}`]));
      const document = { meta: { types }, links: { self: base } };
      return finishResponse(request, toResult({ status: 200, headers: {}, body: JSON.stringify(document) }, request.context.lts.requestId));
    },
  };
}

/**
 * The OpenAPI document, generated once per server URL (it depends on nothing else). The generator and
 * the examples are imported on the first request for it: every function serves the document, but loading the generator
 * with each function would lengthen every cold start for a request few make (decisions.md, "Cold starts").
 */
const descriptions = new Map<string, string>();

export function apiDescription(registry: Registry): ChainMiddleware {
  return {
    before: async (request) => {
      const { method, path, headers } = request.context.lts.request;
      if (!isGet(method) || path !== '/api/v2/openapi.json') return undefined;
      const server = baseUrl(config().LTS_BASE_URL, headers);
      let body = descriptions.get(server);
      if (!body) {
        const [{ openApiDocument }, { examples }] = await Promise.all([import('#lib/jsonapi/openapi.ts'), import('#lib/resources/examples.ts')]);
        body = JSON.stringify(openApiDocument(registry, server, examples));
        descriptions.set(server, body);
      }
      return finishResponse(request, toResult({ status: 200, headers: { 'Content-Type': 'application/json' }, body }, request.context.lts.requestId));
    },
  };
}

/** The fallback function's pages (functions/not-found.ts): every path outside `/api/v2/<type>` reaches it. */
export const serviceRootPages = (registry: Registry): Pages => ({ open: [health(), apiDescription(registry), docsPage()], keyed: [serviceIndex(registry)] });
