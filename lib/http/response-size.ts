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
 * The result's bytes other than its body: status, headers and the result's own JSON. Measured at ~280
 * (Content-Type, Vary, Content-Encoding, X-DynamoDB-Calls, the CORS headers); 16 KB leaves room for any
 * header the chain may add.
 */
const RESULT_ENVELOPE_BYTES = 16 * 1024;

/** What a body may take of Lambda's response, as `payloadCost` counts it or, compressed, as its base64 length. */
const BODY_LIMIT = LAMBDA_RESPONSE_BYTES - RESULT_ENVELOPE_BYTES;

/**
 * How much a response body is assumed to shrink by gzip at GZIP_LEVEL, to plan a page before it is
 * compressed. Measured on real documents (docs/measurements.md, "Listings shortened to fit a response"):
 * Limber's ongoing-plates page of submitted 96-well plates 15.9–16.5×, its plate page of a full 384-well
 * plate 15.8×, eight 384-well plates with their wells 14×; pages of 500 samples 12.2× (15.1× with their
 * metadata), of 500 requests 19.8×, of 500 wells with aliquots, samples and requests 15.8×. Assumed: 8,
 * two thirds of the lowest. A page planned on it is measured compressed before it is sent (`overLimit`),
 * so a body of rarer text that compresses less is shortened further, never refused.
 */
export const ASSUMED_GZIP_RATIO = 8;

/** How large a response body may be planned, as `payloadCost` counts its parts, and whether it will be compressed. */
export interface BodyBound {
  bytes: number;
  gzip: boolean;
}

/**
 * The body a response may have: Lambda's limit less the envelope, for a client that takes the body as
 * it is; for one that accepts gzip, that limit as base64 carries it (3 bytes in 4) times the assumed ratio
 * — 37.6 MB of JSON, ~17,000 resources of Limber's pages at ~2.2 KB each.
 */
export function bodyBound(acceptEncoding: string | undefined): BodyBound {
  const gzip = acceptsGzip(acceptEncoding);
  return { bytes: gzip ? Math.floor(((BODY_LIMIT * 3) / 4) * ASSUMED_GZIP_RATIO) : BODY_LIMIT, gzip };
}

/** The bytes a piece of a JSON body takes of the result as Lambda returns it: its own, and a backslash for each quote and backslash the result's JSON escapes. */
export const payloadCost = (json: string): number => Buffer.byteLength(json) + escapes(json);

/**
 * How many times over what a response may hold the body is, as encodeResult would send it: compressed
 * when the client accepts gzip and the body needs it, else as it is. 1 or less: it fits. `cost`: the
 * body's payloadCost, when the caller has it already (summed from the parts it assembled the body of).
 */
export function overLimit(body: string, gzip: boolean, cost?: number): number {
  const plain = (cost ?? plainCost(body, gzip)) / BODY_LIMIT;
  if (plain <= 1 || !gzip) return plain;
  return (Math.ceil(gzipOf(body).length / 3) * 4) / BODY_LIMIT;
}

/**
 * The body's payloadCost, or its bytes alone when they pass the limit for a client that takes gzip: it goes
 * compressed then, and its escapes (a scan of the whole body, ~0.1 s for Limber's 25 MB ongoing-plates page)
 * cannot change that.
 */
function plainCost(body: string, gzip: boolean): number {
  const bytes = Buffer.byteLength(body);
  return gzip && bytes > BODY_LIMIT ? bytes : bytes + escapes(body);
}

/**
 * The last body compressed, so that the page the engine measured (`overLimit`) is compressed once more
 * only if it changed; encodeResult lets go of it.
 */
let lastCompressed: { body: string; gzipped: Buffer } | undefined;

function gzipOf(body: string): Buffer {
  if (lastCompressed?.body !== body) lastCompressed = { body, gzipped: gzipSync(body, { level: GZIP_LEVEL }) };
  return lastCompressed.gzipped;
}

/**
 * Level 1, as web servers default to: a 4.9 MB plate page compresses to 0.31 MB in ~15 ms here, where
 * level 6 makes 0.22 MB in ~37 ms; on the wire the 0.09 MB is worth less than the 22 ms.
 */
export const GZIP_LEVEL = 1;

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
  const gzipped = gzipOf(body).toString('base64');
  lastCompressed = undefined;
  return { ...result, headers: { ...headers, 'Content-Encoding': 'gzip' }, body: gzipped, isBase64Encoded: true };
}

/** How many times `char` occurs in `text`. */
function occurrences(text: string, char: string): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/** The backslashes JSON.stringify adds to a text free of control characters: one before each quote and backslash. */
const escapes = (text: string): number => occurrences(text, '"') + occurrences(text, '\\');

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
  return Buffer.byteLength(JSON.stringify({ ...result, body: '' })) + bodyBytes + escapes(body);
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
