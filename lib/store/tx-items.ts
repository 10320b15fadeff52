import { gunzipSync, gzipSync } from 'node:zlib';
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { CapacityError, THROTTLED_RETRY_AFTER_SECONDS } from '#lib/store/errors.ts';
import { tableDefinition } from '#lib/store/table.ts';

/**
 * The items of a write larger than one transaction (lib/store/large-write.ts), in key spaces of their own:
 *
 * - the transaction record `$lts#tx_<id>` / `$tx_1`: its state (pending → committed | aborted), when its
 *   request started, when it expires (past that anyone may abort it), and how many key chunks it has;
 * - its staged keys `$lts#tx_<id>` / `$txKeys_1#n_<nnn>`: every item it stages and what it does to it,
 *   gzipped JSON in chunks, written with the record, before anything is staged: what recovery undoes or
 *   completes;
 * - an after-image `$lts#txafter_<id>#<item pk>` / `$txAfter_1`: what a record it changes becomes, beside
 *   the record (whose own item keeps its current content until the write is applied), for a record too
 *   large to carry it inside its own item (`txImage`: INLINE_AFTER_IMAGE_BYTES). One partition each: the
 *   after-images of a large write would exceed one partition's write throughput on AWS;
 * - its entry among the open ones `$lts#open_txs` / `$open_1#expires_<iso>#tx_<id>`, in expiry order, so
 *   the sweeper reads the expired ones with one Query; it names the Idempotency-Key the write answers, so
 *   a retry finds an attempt it outlived.
 *
 * Only large writes write them; readers read the records of a transaction they meet on an item's marker.
 */

export type TxState = 'pending' | 'committed' | 'aborted';
/** What a large write does to an item it stages: creates it, changes it (after-image apart), or deletes it. */
export type TxOp = 'put' | 'update' | 'delete';

export interface ItemKey {
  pk: string;
  sk: string;
}

/** One staged item as the transaction record lists it. */
export interface StagedKey extends ItemKey {
  op: TxOp;
  /** A changed record whose after-image rides in its own item (`txImage`), not in an item beside it. */
  inline?: true;
}

export interface TxRecord {
  txId: string;
  state: TxState;
  /** The request's time (ISO): of two attempts under one Idempotency-Key, the later request's wins. */
  startedAt: string;
  /** Epoch milliseconds past which the write is abandoned: recovery may abort it then. */
  expiresAt: number;
  keyChunks: number;
  /** The scoped Idempotency-Key, if the request had one. */
  idempotencyKey?: string;
}

const { partitionKey: PK, sortKey: SK } = tableDefinition;
const table = () => config().LTS_TABLE_NAME;

export const txItemKey = (txId: string) => ({ [PK]: `$lts#tx_${txId}`, [SK]: '$tx_1' });
export const keyChunkKey = (txId: string, n: number) => ({ [PK]: `$lts#tx_${txId}`, [SK]: `$txKeys_1#n_${String(n).padStart(3, '0')}` });
export const afterImageKey = (txId: string, item: ItemKey) => ({ [PK]: `$lts#txafter_${txId}#${item.pk}#${item.sk}`, [SK]: '$txAfter_1' });
export const OPEN_TXS_PK = '$lts#open_txs';
/** The attribute of a changed record's item that holds its after-image while a large write holds it, if small enough (INLINE_AFTER_IMAGE_BYTES). */
export const AFTER_IMAGE_ATTRIBUTE = 'txImage';
const OPEN_PREFIX = '$open_1#expires_';
export const openEntryKey = (txId: string, expiresAt: number) => ({ [PK]: OPEN_TXS_PK, [SK]: `${OPEN_PREFIX}${new Date(expiresAt).toISOString()}#tx_${txId}` });

/** Bytes of gzipped key list one chunk item holds: well within an item's 400 KB. */
const KEY_CHUNK_BYTES = 300_000;

/** The staged keys as the chunk items that store them (gzipped JSON, split by size). */
export function packKeys(txId: string, keys: readonly StagedKey[]): Record<string, unknown>[] {
  const zipped = gzipSync(JSON.stringify(keys.map(({ pk, sk, op, inline }) => (inline ? [pk, sk, op, 1] : [pk, sk, op]))));
  const count = Math.max(1, Math.ceil(zipped.byteLength / KEY_CHUNK_BYTES));
  return Array.from({ length: count }, (_, n) => ({ ...keyChunkKey(txId, n), data: zipped.subarray(n * KEY_CHUNK_BYTES, (n + 1) * KEY_CHUNK_BYTES) }));
}

function unpackKeys(chunks: readonly Uint8Array[]): StagedKey[] {
  const rows = JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8')) as [string, string, TxOp, 1?][];
  return rows.map(([pk, sk, op, inline]) => ({ pk, sk, op, ...(inline ? { inline: true as const } : {}) }));
}

/** Attempts at a BatchGetItem's unprocessed keys before DynamoDB counts as short of capacity. */
const MAX_UNPROCESSED_ATTEMPTS = 6;

/** Items by key, strongly consistent, 100 keys a call; missing ones are absent. */
export async function batchGet(keys: readonly Record<string, string>[], projection?: readonly string[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const names = projection && {
    ProjectionExpression: projection.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(projection.map((name, i) => [`#p${i}`, name])),
  };
  for (let i = 0; i < keys.length; i += 100) {
    let pending: Record<string, unknown>[] = keys.slice(i, i + 100);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_UNPROCESSED_ATTEMPTS) throw new CapacityError(`BatchGetItem left ${pending.length} keys unprocessed`, THROTTLED_RETRY_AFTER_SECONDS);
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      const result = await dynamo().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: pending, ConsistentRead: true, ...names } } }));
      found.push(...((result.Responses?.[table()] ?? []) as Record<string, unknown>[]));
      pending = result.UnprocessedKeys?.[table()]?.Keys ?? [];
    }
  }
  return found;
}

const TX_ATTRIBUTES = ['txId', 'state', 'startedAt', 'expiresAt', 'keyChunks', 'idempotencyKey'];

/** The transaction records of some large writes (one consistent read); a finished one's is gone, so absent. */
export async function readTxRecords(txIds: readonly string[]): Promise<Map<string, TxRecord>> {
  const items = await batchGet(
    txIds.map((txId) => txItemKey(txId)),
    TX_ATTRIBUTES,
  );
  return new Map(items.map((item) => [item.txId as string, item as unknown as TxRecord]));
}

/** The after-images of items a committed large write changes, by the item's key (`pk sk`); absent once applied. */
export async function readAfterImages(txId: string, items: readonly ItemKey[]): Promise<Map<string, Record<string, unknown>>> {
  const found = await batchGet(items.map((item) => afterImageKey(txId, item)));
  return new Map(found.map((side) => [side.of as string, side.image as Record<string, unknown>]));
}

/** The after-images changed records of a write carry in their own items (`txImage`), by the item's key (`pk sk`); absent once applied or undone. */
export async function readInlineImages(txId: string, items: readonly ItemKey[]): Promise<Map<string, Record<string, unknown>>> {
  const found = await batchGet(
    items.map(({ pk, sk }) => ({ pk, sk })),
    [PK, SK, 'tx', AFTER_IMAGE_ATTRIBUTE],
  );
  const mine = found.filter((item) => item.tx === txId && item[AFTER_IMAGE_ATTRIBUTE] !== undefined);
  return new Map(mine.map((item) => [itemKeyText(item as unknown as ItemKey), item[AFTER_IMAGE_ATTRIBUTE] as Record<string, unknown>]));
}

export const itemKeyText = (key: ItemKey): string => `${key.pk} ${key.sk}`;

/** Every item of one partition, page by page (consistent). */
async function queryPartition(pk: string, skPrefix: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': PK, '#sk': SK },
        ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...((page.Items ?? []) as Record<string, unknown>[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The keys a large write staged (or was about to), from its key chunks. */
export async function readStagedKeys(tx: TxRecord): Promise<StagedKey[]> {
  const chunks = await queryPartition(`$lts#tx_${tx.txId}`, '$txKeys_1#');
  if (chunks.length !== tx.keyChunks) throw new Error(`large write ${tx.txId} names ${tx.keyChunks} key chunks; ${chunks.length} were found`);
  return unpackKeys(chunks.sort((a, b) => String(a[SK]).localeCompare(String(b[SK]))).map((c) => c.data as Uint8Array));
}

/** An open large write's entry: which write, when it expires, the Idempotency-Key it answers. */
export interface OpenEntry {
  txId: string;
  expiresAt: number;
  startedAt: string;
  idempotencyKey?: string;
}

/** The entries of the open large writes (one partition, holding only the writes under way or abandoned). */
export async function readOpenEntries(): Promise<OpenEntry[]> {
  return (await queryPartition(OPEN_TXS_PK, OPEN_PREFIX)) as unknown as OpenEntry[];
}
