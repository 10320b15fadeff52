import { createHash } from 'node:crypto';
import { store } from '#lib/store/entities.ts';

/** A pointer to a record: its JSON:API type and integer id. */
export interface Ref {
  type: string;
  id: number;
}

export type RelValue = Ref | Ref[] | null;

/** One stored resource. `attrs` and `rels` hold what the resource definition says is stored. */
export interface StoredRecord {
  family: string;
  id: number;
  type: string;
  uuid: string;
  createdAt: string;
  updatedAt: string;
  version: number;
  attrs: Record<string, unknown>;
  rels: Record<string, RelValue>;
}

/** An index entry as read back: which record it points at. */
export interface TermHit {
  ref: string;
  family: string;
  type: string;
  id: number;
}

const BATCH_GET_LIMIT = 100;

export const ID_WIDTH = 12;
export const padId = (id: number): string => String(id).padStart(ID_WIDTH, '0');
export const recordKey = (family: string, id: number): string => `${family}:${id}`;

/**
 * Fetches records by family and id: de-duplicated, in chunks of 100 keys run in parallel, strongly
 * consistent. Missing records are simply absent from the result.
 */
export async function getRecords(keys: { family: string; id: number }[]): Promise<Map<string, StoredRecord>> {
  const unique = new Map(keys.map((k) => [recordKey(k.family, k.id), { family: k.family, id: k.id }]));
  const found = new Map<string, StoredRecord>();
  const chunks: { family: string; id: number }[][] = [];
  const all = [...unique.values()];
  for (let i = 0; i < all.length; i += BATCH_GET_LIMIT) chunks.push(all.slice(i, i + BATCH_GET_LIMIT));
  await Promise.all(
    chunks.map(async (chunk) => {
      let pending = chunk;
      // BatchGetItem may hand back part of the keys unprocessed under load; ask again for those.
      for (let attempt = 0; pending.length > 0; attempt++) {
        const { data, unprocessed } = await store().entities.record.get(pending).go({ consistent: true });
        for (const item of data) found.set(recordKey(item.family, item.id), item as StoredRecord);
        pending = unprocessed as { family: string; id: number }[];
        if (pending.length > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      }
    }),
  );
  return found;
}

/** Index values above this many bytes are stored by hash: DynamoDB partition keys are limited to 2048 bytes. */
const MAX_TERM_VALUE_BYTES = 1024;

/** The `value` of an index entry as keyed in the table, for writing and looking up alike. */
export const termValue = (value: string): string =>
  Buffer.byteLength(value, 'utf8') > MAX_TERM_VALUE_BYTES ? `sha256:${createHash('sha256').update(value, 'utf8').digest('hex')}` : value;

/** Every index entry under one scope and value, in `ref` order (ids ascending). */
export async function findTerms(scope: string, value: string): Promise<TermHit[]> {
  const { data } = await store()
    .entities.term.query.byValue({ scope, value: termValue(value) })
    .go({ consistent: true, pages: 'all', attributes: ['ref', 'family', 'type', 'id'] });
  return data as TermHit[];
}

/** Records found under a single-valued lookup (`<scope>#<value>`) in one of the two lookup slots. */
export async function findByLookup(slot: 1 | 2, key: string): Promise<TermHit[]> {
  const { record } = store().entities;
  const query = slot === 1 ? record.query.byLookup1({ lookup1: key }) : record.query.byLookup2({ lookup2: key });
  const { data } = await query.go({ pages: 'all', attributes: ['family', 'id', 'type'] });
  return data.map((d) => ({ ref: '-', family: d.family, type: d.type, id: d.id }));
}

/** The record with this uuid, as the uuid index knows it. */
export async function findByUuid(uuid: string): Promise<TermHit | undefined> {
  const { data } = await store().entities.record.query.byUuid({ uuid }).go({ attributes: ['family', 'id', 'type'], limit: 1 });
  const hit = data[0];
  return hit ? { ref: '-', family: hit.family, type: hit.type, id: hit.id } : undefined;
}

/** A position in a type's listing: the sort values of the last record of a page. */
export interface ListPosition {
  id: number;
  updatedAt?: string;
}

/**
 * One page of a type's listing, by id or by update time, after (or before, descending) a position.
 * Reads only the page itself: no counting, no skipping through earlier pages.
 */
export async function listPage(
  type: string,
  options: { byUpdated: boolean; after?: ListPosition; limit: number; descending: boolean },
): Promise<(TermHit & ListPosition)[]> {
  const { record } = store().entities;
  const attributes = ['family', 'id', 'type', 'updatedAt'] as const;
  const go = { limit: options.limit, order: options.descending ? ('desc' as const) : ('asc' as const), attributes: [...attributes] };
  const after = options.after;
  let data: { family: string; id: number; type: string; updatedAt: string }[];
  if (options.byUpdated) {
    const query = record.query.byTypeUpdated({ type });
    const position = after && { updatedAt: after.updatedAt ?? '', id: after.id };
    data = (await (position ? (options.descending ? query.lt(position) : query.gt(position)) : query).go(go)).data;
  } else {
    const query = record.query.byType({ type });
    data = (await (after ? (options.descending ? query.lt({ id: after.id }) : query.gt({ id: after.id })) : query).go(go)).data;
  }
  return data.map((d) => ({ ref: '-', family: d.family, type: d.type, id: d.id, updatedAt: d.updatedAt }));
}

/** Records of each type in a family, as the family counter keeps them. */
export async function familyCounts(family: string): Promise<Record<string, number>> {
  const { data } = await store().entities.counter.get({ name: family }).go({ consistent: true });
  return (data?.counts as Record<string, number> | undefined) ?? {};
}
