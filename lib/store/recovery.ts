import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { TRANSACTION_ITEM_LIMIT, TRANSACTION_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { log } from '#lib/log.ts';
import { bounded } from '#lib/store/bounded.ts';
import { dynamo } from '#lib/store/client.ts';
import { CapacityError, THROTTLED_RETRY_AFTER_SECONDS } from '#lib/store/errors.ts';
import { storedBytes } from '#lib/store/request-payload.ts';
import { type TransactItem, transact } from '#lib/store/transaction.ts';
import {
  AFTER_IMAGE_ATTRIBUTE,
  afterImageKey,
  batchGet,
  type ItemKey,
  itemKeyText,
  keyChunkKey,
  openEntryKey,
  readAfterImages,
  readInlineImages,
  readOpenEntries,
  readStagedKeys,
  readTxRecords,
  type StagedKey,
  type TxRecord,
  txItemKey,
} from '#lib/store/tx-items.ts';

/**
 * Completing and undoing writes larger than one transaction (lib/store/large-write.ts): by the write itself
 * (applying what it committed, undoing what it staged before a failure), by recovery after a crash (the
 * sweeper: recoverTransactions), and by a writer that meets a mark of an abandoned write (settleLocks).
 * Every step is conditional on the item still carrying the write's mark, so any number of them may run
 * at once, and again, with one outcome.
 */

const table = () => config().LTS_TABLE_NAME;
/** Apply or undo transactions one write runs at once (they touch disjoint items). */
const PARALLEL_FINISHING = 4;
/** Times a finishing transaction is re-sent when it met another transaction on an item, before giving up for now (recovery finishes it). */
const MAX_FINISH_ATTEMPTS = 8;

const marked = (txId: string) => ({
  ConditionExpression: '#tx = :tx',
  ExpressionAttributeNames: { '#tx': 'tx' },
  ExpressionAttributeValues: { ':tx': txId },
});
/** The mark removed, and an after-image the item carries (an undone change's). */
const unmark = (txId: string, key: ItemKey): TransactItem => ({
  Update: {
    TableName: table(),
    Key: key,
    UpdateExpression: 'REMOVE #tx, #txOp, #image',
    ...withName(withName(marked(txId), '#txOp', 'txOp'), '#image', AFTER_IMAGE_ATTRIBUTE),
  },
});
const remove = (txId: string, key: ItemKey): TransactItem => ({ Delete: { TableName: table(), Key: key, ...marked(txId) } });
const withName = <T extends { ExpressionAttributeNames: Record<string, string> }>(condition: T, alias: string, name: string): T => ({
  ...condition,
  ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, [alias]: name },
});

/** What a staged item becomes: the write's change made (applied) or undone (rolled back); and its after-image, which goes either way. */
function finishing(txId: string, staged: StagedKey, decision: 'apply' | 'undo', image?: Record<string, unknown>): { main?: TransactItem; side?: TransactItem } {
  const key = { pk: staged.pk, sk: staged.sk };
  const side: TransactItem | undefined =
    staged.op === 'update' && !staged.inline ? { Delete: { TableName: table(), Key: afterImageKey(txId, key) } } : undefined;
  let main: TransactItem | undefined;
  if (decision === 'undo') main = staged.op === 'put' ? remove(txId, key) : unmark(txId, key);
  else if (staged.op === 'put') main = unmark(txId, key);
  else if (staged.op === 'delete') main = remove(txId, key);
  // A changed item whose after-image is gone (beside it, or from the item) was applied already.
  else if (image) main = { Put: { TableName: table(), Item: image, ...marked(txId) } };
  return { ...(main ? { main } : {}), ...(side ? { side } : {}) };
}

/** An after-image and its JSON bytes. */
export interface AfterImage {
  image: Record<string, unknown>;
  bytes: number;
}

/**
 * Applies (a committed write) or undoes (an aborted one) what a large write staged, then removes its own
 * items: the after-images with their items, then its record, key chunks and open entry — the record
 * last but for the entry, so a reader that finds the record gone knows every mark is gone
 * (lib/store/visibility.ts). `images`: the after-images by item key, which the write itself has in hand,
 * measured as its stages measured them (not serialized again); recovery reads and measures them.
 */
export async function finish(tx: TxRecord, staged: readonly StagedKey[], decision: 'apply' | 'undo', images?: Map<string, AfterImage>): Promise<void> {
  const imageOf = images ?? (decision === 'apply' ? await readImages(tx.txId, staged) : new Map<string, AfterImage>());
  // An item and its after-image go in one transaction (an after-image is gone only once its item is
  // applied or undone), within a transaction's items and bytes (after-images are whole records).
  const chunks: TransactItem[][] = [[]];
  let bytes = 0;
  for (const s of staged) {
    const image = imageOf.get(itemKeyText(s));
    const { main, side } = finishing(tx.txId, s, decision, image?.image);
    const items = [main, side].filter((item) => item !== undefined);
    const size = decision === 'apply' && image ? image.bytes : 0;
    if (chunks.at(-1)!.length + items.length > TRANSACTION_ITEM_LIMIT || bytes + size > TRANSACTION_SIZE_LIMIT) {
      chunks.push([]);
      bytes = 0;
    }
    chunks.at(-1)!.push(...items);
    bytes += size;
  }
  await bounded(chunks, PARALLEL_FINISHING, sendFinishing);
  // Its own items at once, once no mark is left: a reader that finds the record gone knows every mark is gone.
  await sendFinishing([
    { Delete: { TableName: table(), Key: txItemKey(tx.txId) } },
    ...Array.from({ length: tx.keyChunks }, (_, n): TransactItem => ({ Delete: { TableName: table(), Key: keyChunkKey(tx.txId, n) } })),
    { Delete: { TableName: table(), Key: openEntryKey(tx.txId, tx.expiresAt) } },
  ]);
}

/** The after-images of a write's changed items, as recovery reads them (from the items that carry them, and beside the others), measured. */
async function readImages(txId: string, staged: readonly StagedKey[]): Promise<Map<string, AfterImage>> {
  const changed = staged.filter((s) => s.op === 'update');
  const [carried, beside] = await Promise.all([
    readInlineImages(
      txId,
      changed.filter((s) => s.inline),
    ),
    readAfterImages(
      txId,
      changed.filter((s) => !s.inline),
    ),
  ]);
  return new Map([...carried, ...beside].map(([key, image]) => [key, { image, bytes: storedBytes(image) }]));
}

/**
 * Sends finishing items as one transaction. An item whose condition fails is done already (applied or
 * undone by another, or never staged): it is left out and the rest sent again; so is a transaction that
 * met another on an item, after a pause.
 */
async function sendFinishing(items: TransactItem[]): Promise<void> {
  let pending = items;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const codes = await transact(pending);
    if (!codes) return;
    if (attempt === MAX_FINISH_ATTEMPTS)
      throw new CapacityError('a large write could not be finished for now; recovery finishes it', THROTTLED_RETRY_AFTER_SECONDS);
    const unexpected = codes.filter((code) => code !== 'None' && code !== 'ConditionalCheckFailed' && code !== 'TransactionConflict');
    if (unexpected.length > 0) throw new Error(`finishing a large write was cancelled: ${unexpected.join(', ')}`);
    if (codes.includes('TransactionConflict')) await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
    pending = pending.filter((_, i) => codes[i] !== 'ConditionalCheckFailed');
  }
}

/**
 * Moves a pending write to aborted, unless it has committed (or been aborted) first: the one decision that
 * races with its commit, taken by DynamoDB's condition. Answers the state it ends in (undefined: no record, finished).
 */
export async function abort(txId: string): Promise<TxRecord['state'] | undefined> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: txItemKey(txId),
        UpdateExpression: 'SET #state = :aborted',
        ConditionExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':aborted': 'aborted', ':pending': 'pending' },
      }),
    );
    return 'aborted';
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    return (await readTxRecords([txId])).get(txId)?.state;
  }
}

/**
 * Brings a large write to its end if it may be ended now: committed → applied; aborted → undone; pending
 * past its expiry (or `force`: an attempt a retry of its request outlived) → aborted, then undone. A
 * pending write within its time is left alone. Answers the state it was decided in, if any.
 */
export async function settle(txId: string, now: number, options: { force?: boolean } = {}): Promise<TxRecord['state'] | undefined> {
  const tx = (await readTxRecords([txId])).get(txId);
  if (!tx) return undefined;
  let state: TxRecord['state'] | undefined = tx.state;
  if (state === 'pending') {
    if (!options.force && tx.expiresAt > now) return 'pending';
    state = await abort(txId);
    if (!state) return undefined;
  }
  const staged = await readStagedKeys(tx).catch(async (error: unknown) => {
    // A write's record and its key chunks are deleted in one transaction (`finish`): with its record gone
    // too, another settler or the writer itself finished it between the two reads, and nothing is left to do.
    if ((await readTxRecords([txId])).has(txId)) throw error;
    return undefined;
  });
  if (staged) await finish(tx, staged, state === 'committed' ? 'apply' : 'undo');
  return state;
}

/** How often the local sweeper looks for abandoned large writes at the latest (lib/local/sweeper.ts); it wakes earlier for a write about to expire. */
export const SWEEP_INTERVAL_MS = 30_000;

/** How often a schedule invokes the sweeper on AWS (infra/sweeper.ts, functions/events/sweeper.ts): EventBridge's finest rate. */
export const SWEEP_SCHEDULE_MS = 60_000;

/** What a pass of recovery did: how many writes it ended, and when the next open one expires (epoch ms), if any is open. */
export interface Sweep {
  ended: number;
  nextExpiry?: number;
}

/**
 * Recovery (the sweepers: lib/local/sweeper.ts on a timer, functions/events/sweeper.ts on a schedule on
 * AWS): ends every large write past its expiry — applies the committed, undoes the rest. An entry whose
 * write's record is gone (its write finished but for the entry) is removed. Answers when the next write
 * still open expires, so a sweeper can wake then: a write abandoned by a crash is ended as it expires,
 * within its request's deadline plus EXPIRY_MARGIN_MS of its start (30 s on AWS).
 */
export async function recoverTransactions(now: number = Date.now()): Promise<Sweep> {
  const open = await readOpenEntries();
  let ended = 0;
  for (const entry of open.filter((e) => e.expiresAt <= now)) {
    try {
      const state = await settle(entry.txId, now);
      if (state === undefined) await sendFinishing([{ Delete: { TableName: table(), Key: openEntryKey(entry.txId, entry.expiresAt) } }]);
      else {
        ended++;
        log('info', 'recovered a large write', { txId: entry.txId, state, startedAt: entry.startedAt });
      }
    } catch (error) {
      // One write that cannot be ended now holds back no other; the next pass tries it again.
      log('warn', 'a large write could not be recovered now', { txId: entry.txId, error: String(error) });
    }
  }
  const next = open.filter((e) => e.expiresAt > now).map((e) => e.expiresAt);
  return { ended, ...(next.length > 0 ? { nextExpiry: Math.min(...next) } : {}) };
}

/**
 * Of items a write's condition failed on, those a large write holds (its mark on them): each such write is
 * ended where it may be (settle), so that the writer, starting again, finds them free or decided.
 * Answers whether any was held: the failure was then the large write's, not a value taken or a version
 * changed for good. One read, made only when a condition has failed.
 */
export async function settleLocks(keys: readonly ItemKey[], now: number = Date.now()): Promise<boolean> {
  if (keys.length === 0) return false;
  const holders = await batchGet(
    keys.map((key) => ({ pk: key.pk, sk: key.sk })),
    ['tx'],
  );
  const writes = [...new Set(holders.map((item) => item.tx).filter((tx): tx is string => typeof tx === 'string'))];
  for (const txId of writes) await settle(txId, now);
  return writes.length > 0;
}
