import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { responseOf } from '#lib/http/payload-v2.ts';
import { JSON_API } from '#lib/http/request.ts';
import { WRITE_KEY } from './store.ts';

/** A response as a real HTTP client sees it. */
export interface HttpResult {
  status: number;
  headers: Headers;
  /** The raw body ('' when there is none, as for HEAD and 204). */
  text: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  body: any;
}

export interface HttpOptions {
  /** The API key to send; null sends none. Defaults to the write key. */
  key?: string | null;
  /** Extra headers; an undefined value removes a default (Accept, Content-Type). */
  headers?: Record<string, string | undefined>;
  /** Sent as is when a string (malformed bodies); JSON-encoded otherwise. */
  body?: unknown;
}

/**
 * One request over loopback HTTP with plain `fetch`, as a client of the local service sends it: JSON:API
 * Accept, Content-Type when there is a body, and the write key unless told otherwise.
 */
export async function http(base: string, method: string, pathAndQuery: string, options: HttpOptions = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { accept: JSON_API };
  if (options.body !== undefined) headers['content-type'] = JSON_API;
  const key = options.key === undefined ? WRITE_KEY : options.key;
  if (key !== null) headers['x-sequencescape-client-id'] = key;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const res = await fetch(`${base}${pathAndQuery}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** A function's result as a client reads it: the bytes API Gateway sends (base64 undone), gzip undone. */
export function resultText(result: APIGatewayProxyStructuredResultV2): string {
  const { headers, body } = responseOf(result);
  const encoding = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-encoding')?.[1];
  return (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
}
