import { createHandler, type LambdaHandler } from '#lib/http/handler.ts';
import { registry } from '#lib/resources/index.ts';

/**
 * The route table: one Lambda function per resource type, serving `/api/v2/<type>` and every path below
 * it, plus a fallback for any other path (so unknown paths still answer 401/404 as JSON:API). The CDK
 * stack, the local server and the tests all read this table.
 */
export interface Route {
  /** Function name and its entry file `functions/<name>.ts`. */
  name: string;
  /** The types it serves; empty for the fallback. */
  types: readonly string[];
  /** HTTP methods the function answers with something other than 405. */
  methods: readonly string[];
}

export const FALLBACK = 'not-found';

export const routes: readonly Route[] = [
  ...registry.types.map((type) => {
    const { methods } = registry.require(type);
    return {
      name: type,
      types: [type],
      methods: [...(methods.includes('list') || methods.includes('read') ? ['GET'] : []), ...(methods.includes('create') ? ['POST'] : []), ...(methods.includes('update') ? ['PATCH'] : [])],
    };
  }),
  { name: FALLBACK, types: [], methods: [] },
];

export const entryFile = (route: Route): string => `functions/${route.name}.ts`;

/** The handler of one route, built from the shared chain. */
export function handlerFor(name: string): LambdaHandler {
  const route = routes.find((r) => r.name === name);
  if (!route) throw new Error(`no route named ${name}`);
  return createHandler(registry, route.types);
}

/** Which route serves a request path: its type's, else the fallback. */
export function routeForPath(path: string): Route {
  const type = /^\/api\/v2\/([^/?]+)/.exec(path)?.[1];
  return routes.find((r) => type !== undefined && r.types.includes(type)) ?? routes.find((r) => r.name === FALLBACK)!;
}
