import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { gzipSync } from 'node:zlib';

/**
 * How large an answer may leave a function. Lambda refuses a synchronous invocation's response payload
 * past 6 MB — the result object as JSON, its body an escaped string inside it — and API Gateway then answers
 * a bare 502 the client cannot act on. Limber's plate page of a full 384-well plate with two generations of
 * parents is a 4.9 MB body (5.3 MB as that payload), so the service compresses what a client accepts
 * compressed and measures the rest (docs/decisions.md, "Responses within Lambda's 6 MB").
 */
export const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;

/** Bodies smaller than this go as they are: compressing them saves the client less than it costs. */
export const GZIP_MIN_BYTES = 8 * 1024;

/**
 * Level 1, as web servers default to: a 4.9 MB plate page compresses to 0.31 MB in ~15 ms here, where
 * level 6 makes 0.22 MB in ~37 ms; on the wire the 0.09 MB is worth less than the 22 ms.
 */
const GZIP_LEVEL = 1;

/** Media types whose bodies are text and compress well (JSON:API, JSON, HTML, CSS, JavaScript). */
const COMPRESSIBLE = /^(application\/(vnd\.api\+json|json|javascript)|text\/)/i;

/**
 * Whether an Accept-Encoding header accepts gzip (RFC 9110 §12.5.3): `gzip` (or `x-gzip`) with a
 * non-zero quality, or `*` with one when gzip is not named. No header: identity only, as API Gateway
 * passes a client that sends none.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const codings = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (name) codings.set(name === 'x-gzip' ? 'gzip' : name, Number.isFinite(quality) ? quality : 0);
  }
  const gzip = codings.get('gzip') ?? codings.get('*');
  return gzip !== undefined && gzip > 0;
}

const headerOf = (result: APIGatewayProxyStructuredResultV2, name: string): string | undefined => {
  const found = Object.entries(result.headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return found === undefined ? undefined : String(found[1]);
};

/**
 * The result as it should leave: a text body of at least GZIP_MIN_BYTES, gzip-compressed and base64-encoded
 * (payload 2.0's `isBase64Encoded`, which API Gateway turns back into bytes) when the client accepts gzip.
 * Such bodies say `Vary: Accept-Encoding` either way, so a cache keeps the two forms apart.
 */
export function encodeResult(result: APIGatewayProxyStructuredResultV2, acceptEncoding: string | undefined): APIGatewayProxyStructuredResultV2 {
  const { body } = result;
  if (body === undefined || result.isBase64Encoded || headerOf(result, 'content-encoding') !== undefined) return result;
  if (!COMPRESSIBLE.test(headerOf(result, 'content-type') ?? '') || Buffer.byteLength(body) < GZIP_MIN_BYTES) return result;
  const headers = { ...result.headers, Vary: 'Accept-Encoding' };
  if (!acceptsGzip(acceptEncoding)) return { ...result, headers };
  const gzipped = gzipSync(body, { level: GZIP_LEVEL }).toString('base64');
  return { ...result, headers: { ...headers, 'Content-Encoding': 'gzip' }, body: gzipped, isBase64Encoded: true };
}

/** How many times `char` occurs in `text`. */
function occurrences(text: string, char: string): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/**
 * The bytes of the result as Lambda returns it: `Buffer.byteLength(JSON.stringify(result))`, counted without
 * building a second copy of a large body when its only escapes are quotes and backslashes (a JSON body has
 * no control characters; one with any, or with surrogates, is serialized to be counted).
 */
export function payloadBytes(result: APIGatewayProxyStructuredResultV2): number {
  return countPayload(result, result.body === undefined ? 0 : Buffer.byteLength(result.body));
}

/** payloadBytes, given the body's own byte length (bytesPastLimit has measured it already). */
function countPayload(result: APIGatewayProxyStructuredResultV2, bodyBytes: number): number {
  const { body } = result;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters JSON.stringify escapes other than quotes and backslashes.
  if (body === undefined || /[\u0000-\u001f\ud800-\udfff]/.test(body)) return Buffer.byteLength(JSON.stringify(result));
  return Buffer.byteLength(JSON.stringify({ ...result, body: '' })) + bodyBytes + occurrences(body, '"') + occurrences(body, '\\');
}

/**
 * The bytes of a result past Lambda's limit, or undefined when it fits. Escaping makes one byte of a body
 * at most six (`\u0000`), so only a body of more than an eighth of the limit needs counting.
 */
export function bytesPastLimit(result: APIGatewayProxyStructuredResultV2): number | undefined {
  const bodyBytes = Buffer.byteLength(result.body ?? '');
  if (bodyBytes <= LAMBDA_RESPONSE_BYTES / 8) return undefined;
  const bytes = countPayload(result, bodyBytes);
  return bytes > LAMBDA_RESPONSE_BYTES ? bytes : undefined;
}
