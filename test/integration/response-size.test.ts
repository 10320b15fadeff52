import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_RESPONSE_BYTES } from '#lib/http/response-size.ts';
import type { LocalService } from '#lib/local/service.ts';
import { call } from '../support/api.ts';
import { purposeId } from '../support/fixtures.ts';
import { http } from '../support/http.ts';
import { expectError } from '../support/responses.ts';
import { seedFullPlates, seedSamples } from '../support/seed.ts';
import { freshHttpService, WRITE_KEY } from '../support/store.ts';

/**
 * Answers within Lambda's 6 MB response (lib/http/response-size.ts), with real data: full 384-well plates,
 * whose wells render to ~2.9 KB each (a well has many relationships, each with its links), so eight plates
 * with their wells — 3,080 resources, well within the 5,000 a compound document may include — are a ~9 MB
 * body. On AWS that answer would be refused by Lambda and turned into API Gateway's bare 502; here it is
 * gzip for a client that accepts it and a 400 naming the limit for one that does not. Through the handler as
 * Lambda invokes it (`call`), and over HTTP from `npm start`'s server.
 */
const PLATES = 8;
let service: LocalService;

beforeAll(async () => {
  service = await freshHttpService();
  const purpose = Number(await purposeId('plate_purposes', 'Stock Plate 384'));
  const [sample] = await seedSamples(1, 'size');
  await seedFullPlates(PLATES, purpose, sample!.id, 'SIZEPLATE');
});

afterAll(() => service.stop());

const ALL_WELLS = `/api/v2/plates?page[size]=${PLATES}&include=wells`;

describe('through the handler, as Lambda invokes it', () => {
  it('four plates with their wells fit as they are (a ~4.5 MB body)', async () => {
    const res = await call('GET', `/api/v2/plates?page[size]=4&include=wells`);
    expect(res.status).toBe(200);
    expect(res.body.included).toHaveLength(4 * 384);
    expect(res.headers['Content-Encoding']).toBeUndefined();
    expect(res.headers.Vary).toBe('Accept-Encoding');
  });

  it('eight do not: a 400 naming include and the limit, rather than the 502 Lambda would make of it', async () => {
    const res = await call('GET', ALL_WELLS);
    const error = expectError(res, 400, 'response_too_large');
    expect(error.source).toEqual({ parameter: 'include' });
    const bytes = Number(/would be (\d+) bytes/.exec(error.detail)?.[1]);
    expect(bytes).toBeGreaterThan(LAMBDA_RESPONSE_BYTES);
    expect(error.detail).toContain(String(LAMBDA_RESPONSE_BYTES));
  });

  it.each([
    ['fetch', 'gzip, deflate'],
    ["Ruby's Net::HTTP (Limber's client)", 'gzip;q=1.0,deflate;q=0.6,identity;q=0.3'],
  ])('eight answer gzip to a client that accepts it (%s)', async (_, acceptEncoding) => {
    const res = await call('GET', ALL_WELLS, { headers: { 'accept-encoding': acceptEncoding } });
    expect(res.status).toBe(200);
    expect(res.headers['Content-Encoding']).toBe('gzip');
    expect(res.body.data).toHaveLength(PLATES);
    expect(res.body.included).toHaveLength(PLATES * 384);
  });
});

/** A GET over HTTP with exactly these headers (node:http adds no Accept-Encoding, unlike fetch). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe("over HTTP, from npm start's server", () => {
  it('fetch gets the eight plates gzip-compressed, and reads them', async () => {
    const res = await http(service.url, 'GET', ALL_WELLS);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.body.included).toHaveLength(PLATES * 384);
  });

  it('a client that accepts no encoding gets the 400, as a JSON:API error', async () => {
    const res = await rawGet(`${service.url}${ALL_WELLS}`, { accept: 'application/vnd.api+json', 'x-sequencescape-client-id': WRITE_KEY });
    expect(res.status).toBe(400);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString('utf8')).errors[0]).toMatchObject({ code: 'response_too_large', source: { parameter: 'include' } });
  });

  it('the gzip body is a fraction of the JSON it holds', async () => {
    const res = await rawGet(`${service.url}${ALL_WELLS}`, {
      accept: 'application/vnd.api+json',
      'x-sequencescape-client-id': WRITE_KEY,
      'accept-encoding': 'gzip',
    });
    expect(res.status).toBe(200);
    const json = gunzipSync(res.body);
    expect(json.length).toBeGreaterThan(LAMBDA_RESPONSE_BYTES);
    expect(res.body.length).toBeLessThan(json.length / 10);
    expect(JSON.parse(json.toString('utf8')).included).toHaveLength(PLATES * 384);
  });
});
