import { createHash } from 'node:crypto';
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { store } from '#lib/store/entities.ts';
import { bounded } from '#lib/store/bounded.ts';
import { CapacityError, THROTTLED_RETRY_AFTER_SECONDS } from '#lib/store/errors.ts';
import { tableDefinition } from '#lib/store/table.ts';
import { AFTER_IMAGE_ATTRIBUTE, batchGet } from '#lib/store/tx-items.ts';
import { type Marked, MARKER_ATTRIBUTES, readResolved } from '#lib/store/visibility.ts';

/** A pointer to a record: its JSON:API type and integer id. */
export interface Ref {
  type: string;
  id: number;
}

export type RelValue = Ref | Ref[] | null;

/** The refs a relationship value names, whatever its kind. */
export const refsOf = (value: RelValue | undefined): Ref[] => (value === null || value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The record a to-one relationship of `record` names, or null (none, or not stored). */
export function linkOf(record: StoredRecord, name: string): Ref | null {
  const value = record.rels[name];
  if (Array.isArray(value)) throw new TypeError(`${record.type}.${name} holds a list: it is no to-one relationship`);
  return value ?? null;
}

/** The record a required to-one relationship of `record` names: every stored record has one (its create required it). */
export function linkedTo(record: StoredRecord, name: string): Ref {
  const ref = linkOf(record, name);
  if (!ref) throw new TypeError(`${record.type} ${record.id} names no ${name}, which its type requires`);
  return ref;
}

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
const MAX_UNPROCESSED_ATTEMPTS = 6;
/** BatchGetItem (or Query) calls one read runs at once: enough to overlap round trips, few enough not to flood a partition or the Lambda. */
const MAX_PARALLEL_READS = 4;

export const ID_WIDTH = 12;
export const padId = (id: number): string => String(id).padStart(ID_WIDTH, '0');
export const recordKey = (family: string, id: number): string => `${family}:${id}`;

/**
 * The table key of a record item, as ElectroDB writes it (`lib/store/entities.ts`; a unit test holds the
 * two together). Reads by key build it directly: at a hundred records a page, ElectroDB's per-key
 * parameter building and per-item response formatting cost more CPU than the read itself.
 */
export const recordItemKey = (family: string, id: number) => ({ pk: `$lts#family_${family}#id_${padId(id)}`, sk: '$record_1' });
/** The table key of an index entry (its value as keyed: `termValue`), as ElectroDB's `term` entity writes it; a unique entry's `ref` is `-`. */
export const termItemKey = (scope: string, value: string, ref: string) => ({ pk: `$lts#scope_${scope}#value_${value}`, sk: `$term_1#ref_${ref}` });
/**
 * A record's key in its type's listings (`byType`, `byTypeRecord`; and, with its update time, `byTypeUpdated`),
 * as ElectroDB writes it: the partition, and the sort key's prefix before the padded id.
 */
export const typeListingKey = (type: string) => `$lts#type_${type}`;
export const TYPE_LISTING_SK_PREFIX = '$record_1#id_';
/** The attributes of a record item that make a StoredRecord (not its keys or index keys), as a projection (several are reserved words). */
const RECORD_ATTRIBUTES = ['family', 'id', 'type', 'uuid', 'createdAt', 'updatedAt', 'version', 'attrs', 'rels'];
/** What a read of records asks for: their attributes, and the marker a large write may have left with its after-image (lib/store/visibility.ts). */
const READ_ATTRIBUTES = [...RECORD_ATTRIBUTES, ...MARKER_ATTRIBUTES, AFTER_IMAGE_ATTRIBUTE];
const RECORD_PROJECTION = {
  ProjectionExpression: READ_ATTRIBUTES.map((_, i) => `#r${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(READ_ATTRIBUTES.map((name, i) => [`#r${i}`, name])),
};

/**
 * Fetches records by family and id: de-duplicated, strongly consistent, in chunks of 100 keys with at
 * most four chunks in flight. Missing records are simply absent from the result. Records a write larger
 * than one transaction has staged are seen as that write's state says (lib/store/visibility.ts).
 */
export async function getRecords(keys: { family: string; id: number }[]): Promise<Map<string, StoredRecord>> {
  const unique = [...new Map(keys.map((k) => [recordKey(k.family, k.id), recordItemKey(k.family, k.id)])).values()];
  const chunks: Record<string, string>[][] = [];
  for (let i = 0; i < unique.length; i += BATCH_GET_LIMIT) chunks.push(unique.slice(i, i + BATCH_GET_LIMIT));
  const table = config().LTS_TABLE_NAME;
  const read = async () => {
    const items: Marked<StoredRecord>[] = [];
    await bounded(chunks, MAX_PARALLEL_READS, async (chunk) => {
      let pending: Record<string, unknown>[] = chunk;
      // BatchGetItem may hand back part of the keys unprocessed (16 MB per call, or under load); ask again
      // for those, a few times: keys still left then mean DynamoDB is short of capacity (a 503).
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === MAX_UNPROCESSED_ATTEMPTS)
          throw new CapacityError(`BatchGetItem left ${pending.length} keys unprocessed`, THROTTLED_RETRY_AFTER_SECONDS);
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
        const result = await dynamo().send(
          new BatchGetCommand({
            RequestItems: {
              [table]: { Keys: pending, ConsistentRead: true, ...RECORD_PROJECTION },
            },
          }),
        );
        items.push(...((result.Responses?.[table] ?? []) as Marked<StoredRecord>[]));
        pending = result.UnprocessedKeys?.[table]?.Keys ?? [];
      }
    });
    return items;
  };
  const records = await readResolved(read, { afterImageOf: (r) => recordItemKey(r.family, r.id), project: recordOf });
  return new Map(records.map((record) => [recordKey(record.family, record.id), record]));
}

/** A record's own attributes out of its whole item (an after-image holds its keys and index attributes too). */
const recordOf = (item: Record<string, unknown>): StoredRecord =>
  Object.fromEntries(RECORD_ATTRIBUTES.map((name) => [name, item[name]])) as unknown as StoredRecord;

/** Index values above this many bytes are stored by hash: DynamoDB partition keys are limited to 2048 bytes. */
const MAX_TERM_VALUE_BYTES = 1024;

/** The `value` of an index entry as keyed in the table, for writing and looking up alike. */
export const termValue = (value: string): string =>
  Buffer.byteLength(value, 'utf8') > MAX_TERM_VALUE_BYTES ? `sha256:${createHash('sha256').update(value, 'utf8').digest('hex')}` : value;

/** Every index entry under one scope and value (a unique value has at most one), in id order. */
export async function findTerms(scope: string, value: string): Promise<TermHit[]> {
  return readResolved(async () => {
    const { data } = await store()
      .entities.term.query.byValue({ scope, value: termValue(value) })
      .go({ consistent: true, pages: 'all', attributes: ['ref', 'family', 'type', 'id', ...MARKER_ATTRIBUTES] });
    return data as Marked<TermHit>[];
  });
}

/** What a read of unique entries asks for: which record holds the value, and the marker a large write may have left. */
const HOLDER_ATTRIBUTES = ['value', 'ref', 'family', 'type', 'id', ...MARKER_ATTRIBUTES];

/**
 * Who holds each of several unique values of one scope: their unique entries (whose keys the values
 * name) read in one consistent batch. Values nobody holds are absent from the result. Read by key with
 * lib-dynamodb, as records are (`getRecords`): ElectroDB's batch parameters and response formatting cost a
 * rack creation of 194 barcodes more CPU than the read (test/integration/find-holders.test.ts holds the two
 * reads together).
 */
export async function findHolders(scope: string, values: readonly string[]): Promise<Map<string, TermHit>> {
  const byTerm = new Map(values.map((value) => [termValue(value), value]));
  if (byTerm.size === 0) return new Map();
  const keys = [...byTerm.keys()].map((value) => termItemKey(scope, value, '-'));
  const found = await readResolved(async () => (await batchGet(keys, HOLDER_ATTRIBUTES)) as unknown as Marked<TermHit & { value: string }>[]);
  return new Map(found.map(({ value, ...hit }) => [byTerm.get(value)!, hit]));
}

/** A position in an ordered listing: the sort values of the last record of a page. */
export interface ListPosition {
  id: number;
  updatedAt?: string;
}

/**
 * An ordered run of index entries that a listing reads page by page: all records of a type, the records
 * under one value of an index item scope (a filter), or under one value of a lookup slot.
 */
export type IndexRange = { kind: 'type'; type: string } | { kind: 'term'; scope: string; value: string } | { kind: 'lookup'; slot: 1 | 2; key: string };

/** A listing entry; read from the projected index, it carries its record too (unless a large write's mark is on it). */
export type ListHit = TermHit & ListPosition & { record?: StoredRecord };

/** Whether a range can be read in update-time order (else only in id order). */
export const ordersByUpdate = (range: IndexRange): boolean => range.kind === 'type' || (range.kind === 'lookup' && range.slot === 2);

/**
 * What this module needs of an ElectroDB query: the entities' query types differ per index (their key
 * composites), and a union of them is not callable, so each is seen through this shape.
 */
interface IndexQuery {
  gt(position: Record<string, unknown>): IndexQuery;
  lt(position: Record<string, unknown>): IndexQuery;
  go(options: Record<string, unknown>): Promise<{ data: { family: string; id: number; type: string; updatedAt?: string; ref?: string }[] }>;
  params(): Record<string, unknown>;
}

/** The query behind a range in the asked order. */
function rangeQuery(range: IndexRange, byUpdated: boolean): { query: IndexQuery; term: boolean } {
  const of = (query: unknown, term = false) => ({ query: query as IndexQuery, term });
  const { record, term } = store().entities;
  if (range.kind === 'term') return of(term.query.byValue({ scope: range.scope, value: termValue(range.value) }), true);
  if (range.kind === 'type') return of(byUpdated ? record.query.byTypeUpdated({ type: range.type }) : record.query.byType({ type: range.type }));
  if (range.slot === 1) return of(record.query.byLookup1({ lookup1: range.key }));
  return of(byUpdated ? record.query.byLookup2Updated({ lookup2: range.key }) : record.query.byLookup2({ lookup2: range.key }));
}

/** The sort key values of a position in a range's index. */
function positionKey(range: IndexRange, byUpdated: boolean, after: ListPosition, descending: boolean): Record<string, unknown> {
  // Term entries order by `ref` (the padded id, then the family); a position sorts between the ids around it.
  if (range.kind === 'term') return { ref: padId(after.id) + (descending ? '' : '~') };
  if (range.kind === 'type') return byUpdated ? { updatedAt: after.updatedAt ?? '', id: after.id } : { id: after.id };
  if (range.slot === 1) return { lookup1Id: after.id };
  return byUpdated ? { lookup2UpdatedAt: after.updatedAt ?? '', lookup2Id: after.id } : { lookup2Id: after.id };
}

/**
 * The most entries one Query call is asked for. DynamoDB's `Limit` is a 32-bit integer (a bare
 * `page[number]` past 2^31 entries would ask for more and be refused), and a call returns at most 1 MB
 * whatever it asks, so asking one call for more gains nothing; `count` reads on to the entries wanted.
 */
export const MAX_QUERY_LIMIT = 10_000;

export interface RangeOptions {
  byUpdated: boolean;
  after?: ListPosition;
  limit: number;
  descending: boolean;
  /** Read the records with the entries where an index holds them (a type's range in id order). */
  records?: boolean;
}

/**
 * Up to `limit` entries of a range after (or, descending, before) a position. DynamoDB returns at most
 * 1 MB per Query call; this keeps reading until it has `limit` entries or the range ends, so a page is
 * never short because of item sizes or depth.
 */
export async function readRange(range: IndexRange, options: RangeOptions): Promise<ListHit[]> {
  const byUpdated = options.byUpdated && ordersByUpdate(range);
  if (options.records && range.kind === 'type' && !byUpdated) {
    const hits = await readTypeRecords(range.type, options);
    if (hits) return hits;
  }
  const { query, term } = rangeQuery(range, byUpdated);
  const after = options.after;
  const go = {
    // `count` alone lets DynamoDB read a whole 1 MB page per call (thousands of entries, all parsed) to
    // return `limit` of them; `limit` asks each Query for no more than that, and `count` still reads on when
    // a page comes back short.
    count: options.limit,
    limit: Math.min(options.limit, MAX_QUERY_LIMIT),
    order: options.descending ? ('desc' as const) : ('asc' as const),
    attributes: term ? ['ref', 'family', 'type', 'id'] : byUpdated ? ['family', 'id', 'type', 'updatedAt'] : ['family', 'id', 'type'],
    // Term entries live in the table itself, so they can be read consistently; GSIs cannot.
    ...(term ? { consistent: true } : {}),
  };
  const position = after && positionKey(range, byUpdated, after, options.descending);
  const ranged = position ? (options.descending ? query.lt(position) : query.gt(position)) : query;
  const hitOf = (d: { family: string; id: number; type: string; updatedAt?: string; ref?: string }): ListHit => ({
    ref: d.ref ?? '-',
    family: d.family,
    type: d.type,
    id: d.id,
    ...(d.updatedAt !== undefined ? { updatedAt: d.updatedAt } : {}),
  });
  // The keys-only indexes hold no marker: their records are resolved as they are read by key.
  if (!term) return (await ranged.go(go)).data.map(hitOf);
  const entries = await readResolved(async () => (await ranged.go({ ...go, attributes: [...go.attributes, ...MARKER_ATTRIBUTES] })).data as Marked<TermHit>[]);
  return entries.map(hitOf);
}

/** The index that holds whole records under byType's keys (lib/store/table.ts). */
const RECORD_INDEX = tableDefinition.indexes.find((index) => index.projected === 'all')!;
/**
 * How long a process reads pages the keys-only way after the projected index refused a Query: while
 * DynamoDB backfills it on a deployed table (minutes to hours), without a refused call per page.
 */
export const RECORD_INDEX_RETRY_MS = 60_000;
/** Per table: until when the projected index is not asked (it refused a Query). */
const recordIndexRefused = new Map<string, number>();

/** Whether an error is DynamoDB refusing a Query on the projected index: backfilling, or not (yet) on the table. */
const refusesIndex = (error: unknown) =>
  (error as { name?: string }).name === 'ValidationException' && String((error as Error).message).includes(RECORD_INDEX.name);

/**
 * Up to `limit` records of a type after (or, descending, before) a position, from the projected index: one
 * eventually consistent Query per DynamoDB page (1 MB), and no read by key. An item a large write has marked
 * comes back as its entry alone, so that its record is read by key and resolved as every read by key is
 * (lib/store/visibility.ts). Undefined while the index does not answer (`RECORD_INDEX_RETRY_MS`): the caller
 * then reads keys and records as before the index existed.
 */
async function readTypeRecords(type: string, options: RangeOptions): Promise<ListHit[] | undefined> {
  const table = config().LTS_TABLE_NAME;
  if ((recordIndexRefused.get(table) ?? 0) > Date.now()) return undefined;
  const position = options.after && `${TYPE_LISTING_SK_PREFIX}${padId(options.after.id)}`;
  const condition = position ? `#pk = :pk AND #sk ${options.descending ? '<' : '>'} :sk` : '#pk = :pk AND begins_with(#sk, :sk)';
  const hits: ListHit[] = [];
  let start: Record<string, unknown> | undefined;
  try {
    do {
      const page = await dynamo().send(
        new QueryCommand({
          TableName: table,
          IndexName: RECORD_INDEX.name,
          KeyConditionExpression: condition,
          ExpressionAttributeNames: { ...RECORD_PROJECTION.ExpressionAttributeNames, '#pk': RECORD_INDEX.partitionKey, '#sk': RECORD_INDEX.sortKey },
          ExpressionAttributeValues: { ':pk': typeListingKey(type), ':sk': position ?? TYPE_LISTING_SK_PREFIX },
          ProjectionExpression: RECORD_PROJECTION.ProjectionExpression,
          ScanIndexForward: !options.descending,
          Limit: Math.min(options.limit - hits.length, MAX_QUERY_LIMIT),
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of (page.Items ?? []) as Marked<StoredRecord>[]) {
        const { family, id } = item;
        hits.push({ ref: '-', family, type: item.type, id, ...(item.tx === undefined ? { record: item } : {}) });
      }
      start = page.LastEvaluatedKey;
    } while (start && hits.length < options.limit);
  } catch (error) {
    if (!refusesIndex(error)) throw error;
    recordIndexRefused.set(table, Date.now() + RECORD_INDEX_RETRY_MS);
    return undefined;
  }
  recordIndexRefused.delete(table);
  return hits;
}

/**
 * How many entries a range holds, counted by DynamoDB (keys only, page by page); for ranges of few entries.
 * Index entries are read with their markers instead (what a count of them reads is the same), so that
 * those of a large write not committed are not counted.
 */
export async function countRange(range: IndexRange): Promise<number> {
  const { query } = rangeQuery(range, false);
  const params = query.params();
  delete params.ProjectionExpression;
  const terms = range.kind === 'term';
  let unmarked = 0;
  const read = async () => {
    unmarked = 0;
    const marked: Marked<object>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          ...params,
          ...(terms
            ? {
                ConsistentRead: true,
                ProjectionExpression: '#tx, #txOp',
                ExpressionAttributeNames: { ...(params.ExpressionAttributeNames as object), '#tx': 'tx', '#txOp': 'txOp' },
              }
            : { Select: 'COUNT' }),
          ...(start ? { ExclusiveStartKey: start } : {}),
        } as never),
      );
      const found = ((page.Items ?? []) as Marked<object>[]).filter((item) => item.tx !== undefined);
      unmarked += (page.Count ?? 0) - found.length;
      marked.push(...found);
      start = page.LastEvaluatedKey;
    } while (start);
    return marked;
  };
  // Only the marked entries need resolving; the count of the others is the last read's.
  const visible = await readResolved(read);
  return unmarked + visible.length;
}
