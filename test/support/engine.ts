import { newRequestContext } from '#lib/jsonapi/context.ts';
import { serve } from '#lib/jsonapi/engine.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { parsePath, type ApiResponse } from '#lib/jsonapi/request.ts';
import { registry as serviceRegistry } from '#lib/resources/index.ts';
import { countCalls, type CallCount } from '#lib/store/client.ts';

/**
 * Serves one request through the engine, past authentication and routing (no API key lookup), inside
 * countCalls, so the DynamoDB calls it makes are known by operation. `pathAndQuery` may carry a query string.
 * `registry` serves it with other definitions than the service's (test-only types).
 */
export async function direct(
  method: string,
  pathAndQuery: string,
  body?: unknown,
  registry: Registry = serviceRegistry,
  headers: Record<string, string> = {},
): Promise<{ response: ApiResponse; document: any; counts: CallCount }> {
  const [path = '', query = ''] = pathAndQuery.split(/\?(.*)/s);
  const target = parsePath(path, registry)!;
  const ctx = newRequestContext(registry, {
    baseUrl: 'https://lts.test',
    requestId: `direct-${Math.random()}`,
    apiKey: { name: 'test-write', scope: 'write' },
  });
  const request = {
    method,
    path,
    query,
    headers: { 'content-type': 'application/vnd.api+json', ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  };
  const { counts, result } = countCalls(() => serve(ctx, registry.require(target.type), target, request));
  const response = await result;
  return { response, document: response.body ? JSON.parse(response.body) : undefined, counts };
}
