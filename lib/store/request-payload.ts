import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ITEM_SIZE_LIMIT, REQUEST_PAYLOAD_INLINE_BYTES } from '#lib/domain/budgets.ts';
import type { LtsService } from '#lib/store/entities.ts';

/**
 * What a write records about itself in its request item: its events (the outbox) and, under an
 * Idempotency-Key, the response to replay. Both can be large (a rack of 96 tubes has 97 events; a POST
 * with `include=wells.aliquots.sample` on a full 384-well plate answers megabytes), and neither may make
 * a valid write fail, so the payload is stored by size:
 *
 * - up to REQUEST_PAYLOAD_INLINE_BYTES of JSON: in the request item as it is (`events`, `response`);
 * - else gzipped, in the request item (`payload`) if that fits the same budget;
 * - else gzipped and split into chunk items written just before the write's transaction, which the
 *   request item, written in the transaction, names (`chunks`). A chunk without its request item (the
 *   transaction failed) is deleted, or expires with the request items' TTL; readers only follow chunks a
 *   committed request item names, so they never see one.
 *
 * The request item therefore takes at most ~64 KB and one item of a transaction, whatever the payload.
 */

/**
 * A domain event (contract §4). `resource.version` is the record's version after the write: it grows with
 * every committed change of the record, so consumers order a resource's events by it and drop repeats
 * (a record held by another, such as a well, shares its holder's version).
 */
export interface EventEnvelope {
  id: string;
  type: string;
  occurred_at: string;
  resource: { type: string; id: string; uuid: string | null; version: number };
  data: unknown;
  actor: unknown;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

export interface RequestPayload {
  events: EventEnvelope[];
  response?: StoredResponse;
}

/** Chunk items of one payload: their set (unique per attempt, so racing writers never mix chunks) and how many. */
export interface ChunkSet {
  set: string;
  count: number;
}

/** The attributes a request item stores its payload in; exactly one form is present. */
export type PayloadAttributes = RequestPayload | { payload: Uint8Array } | { chunks: ChunkSet };

/**
 * JSON bytes of a value to store, binary values (a compressed payload) counted as their own length. The
 * replacer looks at the holder's own value: JSON.stringify hands it a Buffer already turned into
 * `{type, data: [...]}` by Buffer's toJSON, which would count each byte as up to four.
 */
export function storedBytes(value: unknown): number {
  let binary = 0;
  const json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const raw = this[key];
    if (!(raw instanceof Uint8Array)) return v;
    binary += raw.byteLength;
    return '';
  });
  return Buffer.byteLength(json) + binary;
}

/**
 * JSON bytes of a value that holds no binary (index entries, marks): what `storedBytes` answers for it,
 * without the replacer it calls for every key — a large write measures thousands of such items.
 */
export const plainBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** A payload ready to store: the request item's attributes, and the chunk items to write before its transaction. */
export interface PackedPayload {
  attributes: PayloadAttributes;
  /** The attributes' `storedBytes`, known from packing them: a large write's events are not serialized again to be measured. */
  bytes: number;
  chunks: { set: string; n: number; data: Uint8Array }[];
}

/** Chunk bytes: each chunk is one item, within DynamoDB's 400 KB. */
const CHUNK_BYTES = ITEM_SIZE_LIMIT;

/** `{"payload":""}`: what a compressed payload's attribute adds to its bytes. */
const EMPTY_PAYLOAD_BYTES = storedBytes({ payload: new Uint8Array() });

export function packPayload(payload: RequestPayload): PackedPayload {
  const json = JSON.stringify(payload);
  const bytes = Buffer.byteLength(json);
  if (bytes <= REQUEST_PAYLOAD_INLINE_BYTES) return { attributes: payload, bytes, chunks: [] };
  const zipped = gzipSync(json);
  if (zipped.byteLength <= REQUEST_PAYLOAD_INLINE_BYTES) return { attributes: { payload: zipped }, bytes: EMPTY_PAYLOAD_BYTES + zipped.byteLength, chunks: [] };
  const set = randomUUID();
  const chunks = Array.from({ length: Math.ceil(zipped.byteLength / CHUNK_BYTES) }, (_, n) => ({
    set,
    n,
    data: zipped.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES),
  }));
  const attributes = { chunks: { set, count: chunks.length } };
  return { attributes, bytes: storedBytes(attributes), chunks };
}

/**
 * The store's entities, for the chunk items of a payload past the inline budget. This module imports no
 * store: the stream publisher reads it for every event but chunk items only for the rare large payload, so it
 * hands in a loader that imports ElectroDB then (lib/events/outbox.ts); the functions that serve requests load
 * the store anyway and read payloads through lib/store/payload-items.ts. (A dynamic import here would be in
 * every function's bundle, and esbuild would wrap the store and zod in lazy initializers that V8 parses twice
 * at load: docs/decisions.md, "Cold starts".)
 */
export type EntitiesLoader = () => Promise<LtsService['entities']>;

/** A request item's payload, whichever form it is stored in (reading its chunks if it has any). */
export async function decodePayload(
  item: { key: string } & Partial<Record<'events' | 'response' | 'payload' | 'chunks', unknown>>,
  entities: EntitiesLoader,
): Promise<RequestPayload> {
  if (item.payload instanceof Uint8Array) return JSON.parse(gunzipSync(item.payload).toString('utf8'));
  if (item.chunks) {
    const { set, count } = item.chunks as ChunkSet;
    const { data } = await (await entities()).requestChunk.query.byKey({ key: item.key, set }).go({ consistent: true, pages: 'all' });
    const parts = data.sort((a, b) => a.n - b.n).map((chunk) => chunk.data as Uint8Array);
    if (parts.length !== count) throw new Error(`request ${item.key} names ${count} payload chunks; ${parts.length} were found`);
    return JSON.parse(gunzipSync(Buffer.concat(parts)).toString('utf8'));
  }
  return { events: (item.events ?? []) as EventEnvelope[], ...(item.response ? { response: item.response as StoredResponse } : {}) };
}
