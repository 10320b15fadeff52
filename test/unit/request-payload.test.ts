import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ITEM_SIZE_LIMIT, REQUEST_PAYLOAD_INLINE_BYTES } from '#lib/domain/budgets.ts';
import { packPayload, storedBytes, type EventEnvelope, type RequestPayload } from '#lib/store/request-payload.ts';

/** How a request item's payload is stored, by size (the store round trip is in test/integration/request-payload.test.ts). */

const event = (data: unknown): EventEnvelope => ({
  id: 'e',
  type: 'plates.updated',
  occurred_at: '2026-11-24T05:00:00.000Z',
  resource: { type: 'plates', id: '1', uuid: null, version: 1 },
  data,
  actor: null,
});

const unzipped = (bytes: Uint8Array): RequestPayload => JSON.parse(gunzipSync(bytes).toString('utf8'));

describe('packPayload', () => {
  it('keeps a small payload as it is', () => {
    const payload = { events: [event({ a: 1 })], response: { status: 201, headers: {}, body: '{}' } };
    expect(packPayload(payload)).toEqual({ attributes: payload, bytes: Buffer.byteLength(JSON.stringify(payload)), chunks: [] });
  });

  it('compresses a large one into the request item when that fits its share', () => {
    const payload = { events: Array.from({ length: 500 }, (_, i) => event({ well: i, links: { self: `https://lts.test/api/v2/wells/${i}` } })) };
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeGreaterThan(REQUEST_PAYLOAD_INLINE_BYTES);
    const { attributes, chunks } = packPayload(payload);
    expect(chunks).toEqual([]);
    if (!('payload' in attributes)) throw new Error('not compressed');
    expect(attributes.payload.byteLength).toBeLessThanOrEqual(REQUEST_PAYLOAD_INLINE_BYTES);
    expect(unzipped(attributes.payload)).toEqual(payload);
  });

  it('splits what compression cannot shrink enough into chunks of at most an item, named by the request item', () => {
    const payload = {
      events: [event(randomBytes(600_000).toString('base64'))],
      response: { status: 201, headers: {}, body: randomBytes(300_000).toString('base64') },
    };
    const { attributes, chunks } = packPayload(payload);
    if (!('chunks' in attributes)) throw new Error('not chunked');
    expect(attributes.chunks.count).toBe(chunks.length);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.n)).toEqual(chunks.map((_, i) => i));
    expect(new Set(chunks.map((c) => c.set))).toEqual(new Set([attributes.chunks.set]));
    for (const chunk of chunks) expect(chunk.data.byteLength).toBeLessThanOrEqual(ITEM_SIZE_LIMIT);
    expect(unzipped(Buffer.concat(chunks.map((c) => c.data)))).toEqual(payload);
  });

  it('knows the bytes of what it stores in each form, as a transaction counts them, without measuring again', () => {
    const small = { events: [event({ a: 1 })] };
    const compressible = { events: Array.from({ length: 500 }, (_, i) => event({ well: i, links: { self: `https://lts.test/api/v2/wells/${i}` } })) };
    const incompressible = { events: [event(randomBytes(600_000).toString('base64'))] };
    const forms = [small, compressible, incompressible].map(packPayload);
    expect(forms.map(({ attributes }) => Object.keys(attributes)[0])).toEqual(['events', 'payload', 'chunks']);
    for (const { attributes, bytes } of forms) expect(bytes).toBe(storedBytes(attributes));
    // A compressed payload counts as its own length (a Buffer's JSON would be an array of its bytes).
    const zipped = (forms[1]!.attributes as { payload: Uint8Array }).payload;
    expect(storedBytes({ payload: zipped })).toBe(Buffer.byteLength('{"payload":""}') + zipped.byteLength);
  });
});
