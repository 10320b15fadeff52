import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { config } from '#lib/config.ts';
import { authenticate } from '#lib/http/middleware/authenticate.ts';
import { bodyLimit } from '#lib/http/middleware/body-limit.ts';
import { jsonApiErrors } from '#lib/http/middleware/json-api-errors.ts';
import { mediaTypes } from '#lib/http/middleware/media-types.ts';
import { preflight } from '#lib/http/middleware/preflight.ts';
import { requestContext } from '#lib/http/middleware/request-context.ts';
import { requestLog } from '#lib/http/middleware/request-log.ts';
import { responseSize } from '#lib/http/middleware/response-size.ts';
import { route } from '#lib/http/middleware/route.ts';
import { baseUrl } from '#lib/http/base-url.ts';
import { toResult, type ChainMiddleware, type LtsContext } from '#lib/http/request.ts';
import { newRequestContext } from '#lib/jsonapi/context.ts';
import { serve } from '#lib/jsonapi/engine.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { registry } from '#lib/resources/index.ts';
import { routeNamed } from '#lib/routes.ts';
import { countCalls, withDeadline } from '#lib/store/client.ts';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * What a function serves besides `/api/v2/<type>`: the service's root pages (the fallback: `/health`, the
 * OpenAPI document, the docs page, the `/api/v2` index) or the plate maps (labware). `open` middlewares run
 * before authentication (no key, or a key check of their own), `keyed` ones after it. Only the entry files
 * of the functions that serve such paths import them (functions/not-found.ts, functions/labware.ts), so no
 * other function bundles and loads them (docs/decisions.md, "Cold starts").
 */
export interface Pages {
  open?: ChainMiddleware[];
  keyed?: ChainMiddleware[];
}
export type PagesOf = (resources: Registry) => Pages;

/**
 * The one middy chain every function shares. `before`, in the contract's order of checks: the request
 * context (request id, the ApiRequest, the parsed path), the CORS preflight, the function's open pages
 * (`GET /health`, the OpenAPI document and the docs page, answered without a key; the plate map pages at
 * `/labware/{barcode}`, HTML, with their own key check: the header or the key form's cookie),
 * authentication (401), its keyed pages (the `/api/v2` index), routing (404/405/403), media types
 * (415/406) and the body limit (413); then the engine. `after`, first: the answer compressed when the client
 * accepts gzip, and never past Lambda's response limit (400). `onError`: the JSON:API error mapping (503 with
 * Retry-After for capacity faults, a bare 500 for anything unexpected). `after` and `onError`: the request
 * log line and X-DynamoDB-Calls.
 *
 * middy runs `after` and `onError` middlewares in the reverse order of `use`, so requestLog is used
 * before jsonApiErrors to see the mapped error response.
 */
function createChain(resources: Registry, served: readonly string[], pages: Pages) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, LtsContext>()
    .use(requestContext(resources))
    .use(requestLog())
    .use(jsonApiErrors())
    .use(preflight())
    .use(pages.open ?? [])
    .use(authenticate())
    .use(pages.keyed ?? [])
    .use(route(resources, served))
    .use(mediaTypes())
    .use(bodyLimit())
    .use(responseSize())
    .handler(async (_event, context) => {
      const { request, def, target, apiKey, requestId } = context.lts;
      const ctx = newRequestContext(resources, { baseUrl: baseUrl(config().LTS_BASE_URL, request.headers), requestId, apiKey });
      return toResult(await serve(ctx, def!, target!, request), requestId);
    });
}

/**
 * The Lambda handler of the route named `name` (lib/routes.ts), serving `pages` too if it has any. The whole chain runs inside
 * `countCalls`, so every DynamoDB call of the invocation is counted (the chain finds the counter on
 * `context.dynamodbCalls`), and within the request's deadline (LTS_REQUEST_BUDGET_MS): a DynamoDB call
 * still running then is aborted and the request answers 503 with Retry-After. The Lambda context itself is left untouched (the chain gets a child of it).
 */
export function createHandler(name: string, pages?: PagesOf): LambdaHandler {
  const chain = createChain(registry, routeNamed(name).types, pages?.(registry) ?? {});
  return (event, context) => {
    const chainContext = Object.create(context ?? {}) as LtsContext;
    const { counts, result } = countCalls(async () => {
      // countCalls hands its counter back only once this function has returned: start the chain after that.
      await undefined;
      return withDeadline(config().LTS_REQUEST_BUDGET_MS, () => chain(event, chainContext));
    });
    chainContext.dynamodbCalls = counts;
    return result;
  };
}
