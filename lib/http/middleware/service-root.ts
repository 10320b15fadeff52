import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { config } from '#lib/config.ts';
import { baseUrl } from '#lib/http/base-url.ts';
import { OPENAPI_TEMPLATE_FILE, OPENAPI_TEMPLATE_SERVER } from '#lib/http/docs-assets.ts';
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
 * The OpenAPI document: its text for OPENAPI_TEMPLATE_SERVER, read (or generated) once, with each request's
 * server URL put in its place — the bytes the generator gives for that server, since the URL is one JSON
 * string in it. The fallback function reads the text from beside its bundle, written at bundling
 * (infra/bundling.ts): generating it there would put the generator, its examples and zod's JSON Schema code
 * in the bundle, parsed at every cold start for a request few make (docs/decisions.md, "Cold starts").
 */
export type OpenApiTemplate = (registry: Registry) => string;

export function describedFor(template: string, server: string): string {
  return template.split(JSON.stringify(OPENAPI_TEMPLATE_SERVER)).join(JSON.stringify(server));
}

/** The template beside the fallback function's bundle (LAMBDA_TASK_ROOT on Lambda: the unpacked asset). */
export const templateBesideBundle: OpenApiTemplate = () => readFileSync(join(process.env.LAMBDA_TASK_ROOT ?? '.', OPENAPI_TEMPLATE_FILE), 'utf8');

export function apiDescription(registry: Registry, template: OpenApiTemplate): ChainMiddleware {
  let text: string | undefined;
  // The last server's document (~900 KB): a deployment answers under one or two hosts, and one entry
  // cannot grow with the Host headers a client makes up.
  let last: { server: string; body: string } | undefined;
  return {
    before: (request) => {
      const { method, path, headers } = request.context.lts.request;
      if (!isGet(method) || path !== '/api/v2/openapi.json') return undefined;
      text ??= template(registry);
      const server = baseUrl(config().LTS_BASE_URL, headers);
      if (last?.server !== server) last = { server, body: describedFor(text, server) };
      const { body } = last;
      return finishResponse(request, toResult({ status: 200, headers: { 'Content-Type': 'application/json' }, body }, request.context.lts.requestId));
    },
  };
}

/** The service root's pages, with the OpenAPI document from `template`. */
export const rootPages =
  (template: OpenApiTemplate) =>
  (registry: Registry): Pages => ({ open: [health(), apiDescription(registry, template), docsPage()], keyed: [serviceIndex(registry)] });

/** The fallback function's pages (functions/not-found.ts): every path outside `/api/v2/<type>` reaches it. */
export const serviceRootPages = rootPages(templateBesideBundle);
