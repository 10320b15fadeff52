import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';

/**
 * API Gateway's HTTP API with a Lambda integration of payload format 2.0, both ways: the event a request
 * becomes, and the HTTP response a function's result becomes. The local server (lib/http/local-server.ts)
 * and the tests that invoke handlers directly build their events here, so what the handlers get locally
 * is what they get on AWS:
 *
 * - header names lower-cased; a repeated header's values joined with commas;
 * - cookies moved out of the headers into `cookies`, one `name=value` each (no `cookie` header);
 * - `rawPath` and `rawQueryString` as sent (still percent-encoded), `queryStringParameters` decoded, a
 *   repeated key's values joined with commas, absent without a query string;
 * - `body` as text for text media types (text/*, application/json, application/xml,
 *   application/javascript), otherwise base64 with `isBase64Encoded: true` — so `application/vnd.api+json`
 *   and the key form's `application/x-www-form-urlencoded` arrive base64-encoded, as they do on AWS;
 * - responses: `statusCode`, `headers`, `body` (decoded when `isBase64Encoded`), and each entry of
 *   `cookies` as its own Set-Cookie header, before any Set-Cookie in `headers`; a result with no
 *   `statusCode` is a 200 JSON body.
 */

/** A request as it reaches the gateway. */
export interface GatewayRequest {
  method: string;
  /** The request target as sent: the path and the query string, percent-encoded. */
  target: string;
  /** Header fields by name in any case; a repeated field as an array. */
  headers: Record<string, string | readonly string[] | undefined>;
  body?: Buffer;
  sourceIp: string;
  /** `HTTP/1.1` unless told otherwise. */
  protocol?: string;
  /** The id API Gateway gives the request (a fresh UUID unless given). */
  requestId?: string;
}

/** The HTTP response the gateway sends: header values as node:http takes them (Set-Cookie as a list). */
export interface GatewayResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

const TEXT_MEDIA_TYPES = new Set(['application/json', 'application/xml', 'application/javascript']);

/** Whether API Gateway passes a body of this Content-Type as text (else base64). */
export function isTextMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type.startsWith('text/') || TEXT_MEDIA_TYPES.has(type);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** `requestContext.time` as API Gateway writes it: `27/Nov/2026:02:35:44 +0000`. */
function gatewayTime(date: Date): string {
  const day = `${two(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}`;
  return `${day}:${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/** Decoded query parameters, a repeated key's values joined with commas; undefined without any. */
function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString)) parameters[key] = key in parameters ? `${parameters[key]},${value}` : value;
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

/** The payload-2.0 event of a request. */
export function eventOf(request: GatewayRequest): APIGatewayProxyEventV2 {
  const values = new Map<string, string[]>();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    values.set(key, [...(values.get(key) ?? []), ...(typeof value === 'string' ? [value] : value)]);
  }
  const cookies = (values.get('cookie') ?? []).flatMap((line) => line.split(';').map((cookie) => cookie.trim())).filter((cookie) => cookie !== '');
  values.delete('cookie');
  const headers = Object.fromEntries([...values].map(([name, list]) => [name, list.join(',')]));

  const q = request.target.indexOf('?');
  const rawPath = q < 0 ? request.target : request.target.slice(0, q);
  const rawQueryString = q < 0 ? '' : request.target.slice(q + 1);
  const queryStringParameters = queryParameters(rawQueryString);
  const hasBody = request.body !== undefined && request.body.length > 0;
  const text = isTextMediaType(headers['content-type']);
  const now = new Date();
  const domainName = headers.host ?? 'localhost';
  const requestId = request.requestId ?? randomUUID();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0]!,
      http: {
        method: request.method,
        path: rawPath,
        protocol: request.protocol ?? 'HTTP/1.1',
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: gatewayTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: hasBody && !text,
    ...(hasBody ? { body: request.body!.toString(text ? 'utf8' : 'base64') } : {}),
  };
}

/** The HTTP response of a function's payload-2.0 result. */
export function responseOf(result: APIGatewayProxyResultV2): GatewayResponse {
  if (typeof result !== 'object' || result === null || result.statusCode === undefined) {
    // No statusCode: API Gateway takes the whole result as a JSON body.
    const body = typeof result === 'string' ? result : JSON.stringify(result);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body ?? '') };
  }
  const headers: Record<string, string | string[]> = {};
  const setCookies = [...(result.cookies ?? [])];
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (name.toLowerCase() === 'set-cookie') setCookies.push(String(value));
    else headers[name] = String(value);
  }
  if (setCookies.length > 0) headers['Set-Cookie'] = setCookies;
  const body = result.body ?? '';
  return { status: result.statusCode, headers, body: Buffer.from(body, result.isBase64Encoded ? 'base64' : 'utf8') };
}
