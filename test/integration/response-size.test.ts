import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_RESPONSE_BYTES } from '#lib/http/response-size.ts';
import type { LocalService } from '#lib/local/service.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { call } from '../support/api.ts';
import { purposeId } from '../support/fixtures.ts';
import { http } from '../support/http.ts';
import { expectError, pathOf } from '../support/responses.ts';
import { seedFullPlates, seedPlates, seedSamples } from '../support/seed.ts';
import { freshHttpService, WRITE_KEY } from '../support/store.ts';

/**
 * Answers within Lambda's 6 MB response (lib/http/response-size.ts), with real data: full 384-well plates,
 * whose wells render to ~2.9 KB each (a well has many relationships, each with its links), so eight plates
 * with their wells (3,080 resources) are a ~9 MB body. On AWS that answer would be refused by Lambda and
 * turned into API Gateway's bare 502; here it is gzip for a client that accepts it, and for one that does
 * not the page is shortened to the plates that fit (lib/jsonapi/compound.ts). A plate whose own includes
 * pass the limit (four samples pooled in each of its 384 wells, with their samples and metadata: ~8 MB) is
 * a 400 naming the include and the limit, unless the client accepts gzip. Through the handler as Lambda
 * invokes it (`call`), and over HTTP from `npm start`'s server.
 */
const PLATES = 8;
const POOLED = 4;
let service: LocalService;
let full: StoredRecord[];
let pooled: StoredRecord;

beforeAll(async () => {
  service = await freshHttpService();
  const purpose = Number(await purposeId('plate_purposes', 'Stock Plate 384'));
  const [sample] = await seedSamples(1, 'size');
  full = await seedFullPlates(PLATES, purpose, sample!.id, 'SIZEPLATE');
  const samples = await seedSamples(384 * POOLED, 'pooled');
  const [plate] = await seedPlates(1, purpose, 'POOLEDPLATE', 384, (_, slot) =>
    samples.slice((slot - 1) * POOLED, slot * POOLED).map((s) => ({ sample: s.id, study: null })),
  );
  pooled = plate!;
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

  it('eight do not fit as they are: the page holds the plates that do, and links.next the rest, rather than the 502 Lambda would make of it', async () => {
    const res = await call('GET', ALL_WELLS);
    expect(res.status).toBe(200);
    expect(res.payloadBytes).toBeLessThanOrEqual(LAMBDA_RESPONSE_BYTES);
    const kept = res.body.data.length;
    expect(kept).toBeLessThan(PLATES);
    expect(res.body.included).toHaveLength(kept * 384);
    expect(res.body.meta.page_shortened).toEqual({ records: kept, page_size: PLATES, limit: 'response_size' });
    const rest = await call('GET', pathOf(res.body.links.next));
    const walked = [...res.body.data, ...rest.body.data].map((p: any) => p.id);
    expect(walked.slice(0, PLATES)).toEqual(full.map((p) => String(p.id)));
  });

  it('a plate whose own includes pass the limit is a 400 naming the include and the limit; gzip-compressed it fits', async () => {
    const path = `/api/v2/plates/${pooled.id}?include=wells.aliquots.sample.sample_metadata`;
    const error = expectError(await call('GET', path), 400, 'include_too_large');
    expect(error.source).toEqual({ parameter: 'include' });
    expect(error.detail).toContain(`plates ${pooled.id}`);
    expect(error.detail).toMatch(/include "wells\.aliquots(\.sample(\.sample_metadata)?)?"/);
    expect(error.detail).toContain(String(LAMBDA_RESPONSE_BYTES));
    const whole = await call('GET', path, { headers: { 'accept-encoding': 'gzip' } });
    expect(whole.status).toBe(200);
    expect(whole.body.included).toHaveLength(384 + 3 * 384 * POOLED);
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

  it('a client that accepts no encoding gets the page shortened, as it is', async () => {
    const res = await rawGet(`${service.url}${ALL_WELLS}`, { accept: 'application/vnd.api+json', 'x-sequencescape-client-id': WRITE_KEY });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.length).toBeLessThanOrEqual(LAMBDA_RESPONSE_BYTES);
    expect(JSON.parse(res.body.toString('utf8')).meta.page_shortened.limit).toBe('response_size');
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
