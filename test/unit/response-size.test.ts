import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { responseSize } from '#lib/http/middleware/response-size.ts';
import {
  acceptsGzip,
  ASSUMED_GZIP_RATIO,
  bodyBound,
  bytesPastLimit,
  encodeResult,
  GZIP_MIN_BYTES,
  LAMBDA_RESPONSE_BYTES,
  overLimit,
  payloadBytes,
  payloadCost,
} from '#lib/http/response-size.ts';
import { JsonApiError } from '#lib/jsonapi/errors.ts';

const JSON_API = 'application/vnd.api+json';
const result = (body: string | undefined, contentType = JSON_API): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 200,
  headers: { 'Content-Type': contentType, 'X-Request-Id': 'r-1' },
  ...(body === undefined ? {} : { body }),
});
/** A JSON:API-like body of about `bytes` bytes: quotes to escape, and text that compresses. */
const documentOf = (bytes: number) => JSON.stringify({ data: Array.from({ length: Math.ceil(bytes / 40) }, (_, i) => ({ type: 'wells', id: String(i) })) });
/**
 * A result whose payload, as Lambda returns it, is exactly `bytes` bytes: a body of plain letters, and the
 * Vary header a large body leaves with already there.
 */
function resultOfPayload(bytes: number): APIGatewayProxyStructuredResultV2 {
  const of = (body: string) => ({ ...result(body), headers: { ...result(body).headers, Vary: 'Accept-Encoding' } });
  return of('x'.repeat(bytes - Buffer.byteLength(JSON.stringify(of('')))));
}

describe('acceptsGzip (RFC 9110 §12.5.3)', () => {
  it.each([
    ['gzip, deflate', true],
    ['gzip;q=1.0,deflate;q=0.6,identity;q=0.3', true], // Ruby's Net::HTTP, under Limber's Faraday
    ['deflate, GZIP;q=0.5', true],
    ['x-gzip', true],
    ['*', true],
    ['br, *;q=0.1', true],
    ['gzip;q=0', false],
    ['*, gzip;q=0', false],
    ['identity', false],
    ['deflate, br', false],
    ['gzip;q=abc', false],
    ['', false],
    [undefined, false],
  ])('%j → %s', (header, accepted) => {
    expect(acceptsGzip(header)).toBe(accepted);
  });
});

describe('encodeResult', () => {
  const large = documentOf(GZIP_MIN_BYTES * 4);

  it('gzips a large JSON:API body for a client that accepts gzip, base64 as payload 2.0 carries bytes', () => {
    const encoded = encodeResult(result(large), 'gzip, deflate');
    expect(encoded.isBase64Encoded).toBe(true);
    expect(encoded.headers).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding', 'Content-Type': JSON_API, 'X-Request-Id': 'r-1' });
    expect(gunzipSync(Buffer.from(encoded.body!, 'base64')).toString('utf8')).toBe(large);
    expect(encoded.body!.length).toBeLessThan(large.length / 4);
  });

  it('leaves it as it is for a client that does not, saying that it varies', () => {
    const encoded = encodeResult(result(large), undefined);
    expect(encoded.body).toBe(large);
    expect(encoded.isBase64Encoded).toBeUndefined();
    expect(encoded.headers).toMatchObject({ Vary: 'Accept-Encoding' });
    expect(encoded.headers).not.toHaveProperty('Content-Encoding');
  });

  it('leaves small bodies, no body, binary types and bodies already encoded as they are', () => {
    const small = documentOf(GZIP_MIN_BYTES / 2);
    const unchanged = [
      result(small),
      result(undefined),
      result(large, 'image/png'),
      { ...result(Buffer.from(large).toString('base64')), isBase64Encoded: true },
    ];
    for (const r of unchanged) expect(encodeResult(r, 'gzip')).toBe(r);
    const gzipped = { ...result(large), headers: { 'Content-Type': JSON_API, 'content-encoding': 'gzip' } };
    expect(encodeResult(gzipped, 'gzip')).toBe(gzipped);
  });

  it('compresses the text types: JSON, HTML, JavaScript, CSS', () => {
    for (const type of ['application/json', 'text/html; charset=utf-8', 'application/javascript', 'text/css'])
      expect(encodeResult(result(large, type), 'gzip').headers).toMatchObject({ 'Content-Encoding': 'gzip' });
  });
});

describe("payloadBytes and the limit: the result's bytes as Lambda returns it", () => {
  it('counts exactly what JSON.stringify of the result makes, whatever the body holds', () => {
    const body = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('"', '\\', 'a', '\n', 'é', '\u0001', '😀', '\ud800') }));
    fc.assert(
      fc.property(fc.option(body, { nil: undefined }), fc.dictionary(fc.string(), fc.string()), (b, headers) => {
        const r = { statusCode: 200, headers, ...(b === undefined ? {} : { body: b }) };
        expect(payloadBytes(r)).toBe(Buffer.byteLength(JSON.stringify(r)));
      }),
    );
  });

  it('a payload of exactly the limit fits; one byte more does not', () => {
    expect(payloadBytes(resultOfPayload(LAMBDA_RESPONSE_BYTES))).toBe(LAMBDA_RESPONSE_BYTES);
    expect(bytesPastLimit(resultOfPayload(LAMBDA_RESPONSE_BYTES))).toBeUndefined();
    expect(bytesPastLimit(resultOfPayload(LAMBDA_RESPONSE_BYTES + 1))).toBe(LAMBDA_RESPONSE_BYTES + 1);
  });

  it("counts a body's escapes: 4 MB of quotes is 8 MB as a payload", () => {
    const quotes = result('"'.repeat(4 * 1024 * 1024));
    expect(bytesPastLimit(quotes)).toBe(Buffer.byteLength(JSON.stringify(quotes)));
  });
});

describe('planning a body within the limit', () => {
  it("payloadCost is what a piece of the body adds to the result's bytes as Lambda returns it", () => {
    const json = fc.json().filter((text) => !/[\ud800-\udfff]/.test(text));
    fc.assert(
      fc.property(json, json, (head, piece) => {
        expect(payloadBytes(result(`${head}${piece}`)) - payloadBytes(result(head))).toBe(payloadCost(piece));
      }),
    );
  });

  it('a client that takes the body as it is may have the limit less the envelope; one that accepts gzip that much compressed, at the assumed ratio', () => {
    const plain = bodyBound(undefined);
    expect(plain.gzip).toBe(false);
    expect(plain.bytes).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    expect(plain.bytes).toBeGreaterThan(LAMBDA_RESPONSE_BYTES - 20_000);
    const gzip = bodyBound('gzip;q=1.0,deflate;q=0.6,identity;q=0.3');
    expect(gzip).toEqual({ bytes: Math.floor(((plain.bytes * 3) / 4) * ASSUMED_GZIP_RATIO), gzip: true });
  });

  it('overLimit: a body within the limit fits as it is; past it, it fits compressed if gzip makes it small enough, and says by how much it does not', () => {
    const { bytes } = bodyBound(undefined);
    expect(overLimit(documentOf(bytes / 2), false)).toBeLessThanOrEqual(1);
    const large = documentOf(bytes * 2);
    expect(overLimit(large, false)).toBeGreaterThan(1.9);
    expect(overLimit(large, true)).toBeLessThan(0.5);
    // Text gzip cannot shrink (random base64): a third larger than it is, as base64 of its compressed bytes.
    const noise = JSON.stringify({ data: randomBytes(bytes).toString('base64') });
    expect(overLimit(noise, true)).toBeGreaterThan(1.3);
  });

  it("overLimit given the body's payloadCost (a compound document sums it from its parts) answers as it does counting it", () => {
    const { bytes } = bodyBound(undefined);
    const noise = JSON.stringify({ data: randomBytes(bytes).toString('base64') });
    for (const body of [documentOf(bytes / 2), documentOf(bytes - 100), documentOf(bytes * 2), noise])
      for (const gzip of [false, true]) expect(overLimit(body, gzip, payloadCost(body))).toBe(overLimit(body, gzip));
    // The cost given is the one used: a body counted past the limit is past it.
    expect(overLimit(documentOf(100), false, bytes * 3)).toBeGreaterThan(2.9);
  });
});

describe('the responseSize middleware', () => {
  /** Runs the middleware's `after` on a response to a request with these headers and query. */
  function leave(response: APIGatewayProxyStructuredResultV2, headers: Record<string, string>, query = '') {
    const request = { response, context: { lts: { request: { method: 'GET', path: '/api/v2/plates', query, headers } } } };
    (responseSize().after as (r: unknown) => void)(request);
    return request.response;
  }

  it('answers gzip to a client that accepts it, even past the limit as it is', () => {
    const big = resultOfPayload(LAMBDA_RESPONSE_BYTES + 1);
    const sent = leave(big, { 'accept-encoding': 'gzip' });
    expect(sent.headers).toMatchObject({ 'Content-Encoding': 'gzip' });
    expect(payloadBytes(sent)).toBeLessThan(LAMBDA_RESPONSE_BYTES / 100);
  });

  it('refuses with a 400 naming the limit, and include when the request has one, past the limit as it is', () => {
    const big = resultOfPayload(LAMBDA_RESPONSE_BYTES + 1);
    for (const [query, parameter] of [
      ['include=wells&page[size]=8', 'include'],
      ['page[size]=500', 'page[size]'],
    ]) {
      let thrown: unknown;
      try {
        leave(big, { 'accept-encoding': 'identity' }, query);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(JsonApiError);
      const [problem] = (thrown as JsonApiError).errors;
      expect(problem).toMatchObject({ status: '400', code: 'response_too_large', source: { parameter } });
      expect(problem!.detail).toContain(String(LAMBDA_RESPONSE_BYTES + 1));
      expect(problem!.detail).toContain(String(LAMBDA_RESPONSE_BYTES));
      expect(problem!.detail).toContain('Accept-Encoding: gzip');
    }
  });

  it('passes a response of exactly the limit as it is', () => {
    const edge = resultOfPayload(LAMBDA_RESPONSE_BYTES);
    expect(leave(edge, {}).body).toBe(edge.body);
  });
});
