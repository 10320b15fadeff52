import type { Context } from 'aws-lambda';
import { vi } from 'vitest';
import type { LambdaHandler } from '#lib/http/handler.ts';
import { eventOf } from '#lib/http/payload-v2.ts';
import { payloadBytes } from '#lib/http/response-size.ts';
import { handlerForRoute } from '#lib/http/route-handlers.ts';
import { routeForPath } from '#lib/routes.ts';
import { authenticateKey, clearApiKeyCache } from '#lib/store/api-keys.ts';
import { assertAttributesMatchSchemas } from './attribute-schemas.ts';
import { assertJsonApiDocument } from './jsonapi-schema.ts';
import { resultText } from './http.ts';
import { WRITE_KEY } from './store.ts';

export interface CallOptions {
  body?: unknown;
  /** Sent as is when a string (malformed bodies); JSON-encoded otherwise. */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** DynamoDB calls the request made (X-DynamoDB-Calls). */
  calls: number;
  /** The result's payload-2.0 `cookies` (API Gateway sends each as a Set-Cookie header). */
  cookies: string[];
  /** The bytes of the handler's result as Lambda returns it (lib/http/response-size.ts, payloadBytes): in this process only, not over HTTP. */
  payloadBytes?: number;
}

const handlers = new Map<string, LambdaHandler>();
const DAY_MS = 86_400_000;

/** Where `call` sends its requests: the handlers in this process (undefined), or a running service's URL. */
let service: string | undefined;
/** What `call` answered writes with, while `recordWrites` is on: every POST and PATCH, with its answer. */
let writes: { method: string; path: string; result: CallResult }[] | undefined;

/**
 * Sends every `call` (and so every fixture) over HTTP to a running service, as its clients do, until
 * called with undefined: for tests of the service run as users run it (`npm start`).
 */
export function callService(url: string | undefined): void {
  service = url;
}

/** From now on, keeps every write `call` sends and its answer (for a test of what the writes produced). */
export function recordWrites(): { method: string; path: string; result: CallResult }[] {
  writes = [];
  return writes;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | undefined;
  cookies: string[];
  payloadBytes?: number;
}

/** Runs a request through the handler of its path in this process, with the payload-2.0 event API Gateway would hand it. */
async function invoke(method: string, pathAndQuery: string, headers: Record<string, string>, body: string | undefined): Promise<Answer> {
  const path = pathAndQuery.split('?')[0]!;
  const route = routeForPath(path);
  let handler = handlers.get(route.name);
  if (!handler) {
    handler = handlerForRoute(route.name);
    handlers.set(route.name, handler);
  }
  const event = eventOf({ method, target: pathAndQuery, headers, ...(body !== undefined ? { body: Buffer.from(body) } : {}), sourceIp: '127.0.0.1' });
  const result = await handler(event, {} as Context);
  return {
    status: result.statusCode ?? 0,
    headers: result.headers as Record<string, string>,
    body: result.body === undefined ? undefined : resultText(result),
    cookies: result.cookies ?? [],
    payloadBytes: payloadBytes(result),
  };
}

/** The response headers `call`'s callers read, named as the handlers name them. */
const READ_HEADERS = ['Content-Type', 'Content-Encoding', 'Vary', 'X-DynamoDB-Calls', 'Location', 'Retry-After', 'ETag'];

/** Sends a request over HTTP to the running service (fetch sets the Host). */
async function fetchFrom(url: string, method: string, pathAndQuery: string, headers: Record<string, string>, body: string | undefined): Promise<Answer> {
  const { host: _, ...sent } = headers;
  const response = await fetch(`${url}${pathAndQuery}`, { method, headers: sent, ...(body !== undefined ? { body } : {}) });
  const received = READ_HEADERS.flatMap((name) => {
    const value = response.headers.get(name);
    return value === null ? [] : [[name, value] as const];
  });
  return {
    status: response.status,
    headers: Object.fromEntries(received),
    body: (await response.text()) || undefined,
    cookies: response.headers.getSetCookie(),
  };
}

/**
 * Calls the real Lambda handler of a path with the API Gateway event it would get on AWS (payload 2.0,
 * lib/http/payload-v2.ts: a `cookie` header becomes `event.cookies`, a JSON:API body arrives base64) (or, after
 * `callService`, the running service over HTTP), and checks that the response document is valid JSON:API
 * (an HTML page's body is its text). `path` may carry a query string.
 */
export async function call(method: string, pathAndQuery: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { host: 'lts.test', 'x-forwarded-proto': 'https', accept: 'application/vnd.api+json' };
  if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const key = options.key === undefined ? WRITE_KEY : options.key;
  if (key !== null) headers['x-sequencescape-client-id'] = key;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  const sent = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const result = service ? await fetchFrom(service, method, pathAndQuery, headers, sent) : await invoke(method, pathAndQuery, headers, sent);
  // Pages for people (the plate map) answer HTML: their body is the text as it is.
  const html = result.headers['Content-Type']?.startsWith('text/html') ?? false;
  const body = result.body ? (html ? result.body : JSON.parse(result.body)) : undefined;
  if (body !== undefined && !html) {
    assertJsonApiDocument(body);
    assertAttributesMatchSchemas(body);
  }
  const answer: CallResult = {
    status: result.status,
    headers: result.headers,
    body,
    calls: Number(result.headers['X-DynamoDB-Calls']),
    cookies: result.cookies,
    ...(result.payloadBytes !== undefined ? { payloadBytes: result.payloadBytes } : {}),
  };
  if (method === 'POST' || method === 'PATCH') writes?.push({ method, path: pathAndQuery.split('?')[0]!, result: answer });
  return answer;
}

/**
 * Looks the key up afresh, so the requests after it find it cached and make no key lookup (call-budget
 * tests warm the cache right before what they measure). A lookup is cached for 60 s from the clock's
 * reading as it starts (authenticateKey reads it first thing); this one reads the clock a day ahead, so a
 * test that a loaded machine slows past a minute still finds it cached. Only that one reading: the SDK
 * signs with the real time.
 */
export async function warmKeyCache(key: string = WRITE_KEY): Promise<void> {
  clearApiKeyCache();
  const clock = vi.spyOn(Date, 'now').mockReturnValueOnce(Date.now() + DAY_MS);
  const lookup = authenticateKey(key);
  clock.mockRestore();
  await lookup;
}

/** A JSON:API document for a POST. */
export const doc = (type: string, attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>, id?: string) => ({
  data: { type, ...(id !== undefined ? { id } : {}), attributes, ...(relationships ? { relationships } : {}) },
});

/** Looks a record up through the API by a filter and returns its id. */
export async function idOf(type: string, filter: string, value: string): Promise<string> {
  const res = await call('GET', `/api/v2/${type}?filter[${filter}]=${encodeURIComponent(value)}`);
  const id = res.body?.data?.[0]?.id;
  if (!id) throw new Error(`no ${type} with ${filter}=${value}`);
  return id;
}
