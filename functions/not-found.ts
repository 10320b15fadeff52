import { createHandler, type LambdaHandler } from '#lib/http/handler.ts';
import { serviceRootPages } from '#lib/http/middleware/service-root.ts';
import { FALLBACK, routeForPath } from '#lib/routes.ts';

const fallback = createHandler('not-found', serviceRootPages);
const typeChains = new Map<string, LambdaHandler>();

/**
 * `$default`: every request no route key of the API matches — the service's root pages, unknown paths
 * (401/404) — and `/api/v2/<type>/`, which API Gateway matches neither to `ANY /api/v2/<type>` (the slash)
 * nor to `ANY /api/v2/<type>/{proxy+}` (a greedy variable takes at least one character), while the contract
 * gives it the meaning of `/api/v2/<type>`. That one is served by its type's own chain, made on first use,
 * so it answers as `npm start` answers it whichever function API Gateway hands it to (docs/decisions.md,
 * "Deploy details").
 */
export const handler: LambdaHandler = (event, context) => {
  const route = routeForPath(event.rawPath);
  if (route.name === FALLBACK) return fallback(event, context);
  let chain = typeChains.get(route.name);
  if (!chain) {
    chain = createHandler(route.name);
    typeChains.set(route.name, chain);
  }
  return chain(event, context);
};
