import { Loader, type RequestContext } from '#lib/jsonapi/context.ts';
import { parsePath, serve, type ApiResponse } from '#lib/jsonapi/engine.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { registry as serviceRegistry } from '#lib/resources/index.ts';
import { countCalls, type CallCount } from '#lib/store/client.ts';

/**
 * Serves one request through the engine, past authentication and routing (no API key lookup), inside
 * countCalls, so the DynamoDB calls it makes are known by operation. `pathAndQuery` may carry a query string.
 * `registry` may add test-only types to the service's.
 */
export async function direct(
  method: string,
  pathAndQuery: string,
  body?: unknown,
  registry: Registry = serviceRegistry,
): Promise<{ response: ApiResponse; document: any; counts: CallCount }> {
  const [path = '', query = ''] = pathAndQuery.split(/\?(.*)/s);
  const target = parsePath(path)!;
  const ctx: RequestContext = {
    registry,
    baseUrl: 'https://lts.test',
    requestId: `direct-${Math.random()}`,
    now: new Date().toISOString(),
    apiKey: { name: 'test-write', scope: 'write' },
    loader: new Loader(registry),
  };
  const request = {
    method,
    path,
    query,
    headers: { 'content-type': 'application/vnd.api+json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  };
  const { counts, result } = countCalls(() => serve(ctx, registry.require(target.type), target, request));
  const response = await result;
  return { response, document: response.body ? JSON.parse(response.body) : undefined, counts };
}
