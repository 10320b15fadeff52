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

/** Every index entry under one scope and value, in `ref` order (ids ascending). */
export async function findTerms(scope: string, value: string): Promise<TermHit[]> {
  const { data } = await store()
    .entities.term.query.byValue({ scope, value })
    .go({ consistent: true, pages: 'all', attributes: ['ref', 'family', 'type', 'id'] });
  return data as TermHit[];
}

/**
 * One page of index entries after (or before, descending) `after`. Used for listing a type in id or
 * updated_at order without counting or reading anything but the page itself.
 */
export async function termPage(
  scope: string,
  value: string,
  options: { after?: string; limit: number; descending?: boolean },
): Promise<TermHit[]> {
  const query = store().entities.term.query.byValue({ scope, value });
  const ranged =
    options.after === undefined
      ? query
      : options.descending
        ? query.lt({ ref: options.after })
        : query.gt({ ref: options.after });
  const { data } = await ranged.go({
    consistent: true,
    limit: options.limit,
    order: options.descending ? 'desc' : 'asc',
    attributes: ['ref', 'family', 'type', 'id'],
  });
  return data as TermHit[];
}

export async function readCounter(name: string): Promise<number> {
  const { data } = await store().entities.counter.get({ name }).go({ consistent: true });
  return data?.value ?? 0;
}
