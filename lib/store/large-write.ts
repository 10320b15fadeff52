import { randomUUID } from 'node:crypto';
import { config } from '#lib/config.ts';
import { carriesAfterImage, TRANSACTION_ITEM_LIMIT, TRANSACTION_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { currentDeadline, ProcessKilled } from '#lib/store/client.ts';
import { countUpdate, randomShard } from '#lib/store/counts.ts';
import { ConflictError, DeadlineExceeded, IdempotencyRace, mayHaveApplied, WriteOutcomeUnknown } from '#lib/store/errors.ts';
import { log } from '#lib/log.ts';
import { abort, type AfterImage, finish, settle } from '#lib/store/recovery.ts';
import { putChunks } from '#lib/store/payload-items.ts';
import { plainBytes } from '#lib/store/request-payload.ts';
import { type CancellationCode, failure, type TransactItem, transact } from '#lib/store/transaction.ts';
import {
  AFTER_IMAGE_ATTRIBUTE,
  afterImageKey,
  type ItemKey,
  itemKeyText,
  openEntryKey,
  packKeys,
  readOpenEntries,
  type StagedKey,
  type TxRecord,
  txItemKey,
} from '#lib/store/tx-items.ts';
import { type ChangeOp, opBytes, recordBytes, type StagedOp, type WritePlan } from '#lib/store/write-plan.ts';

/**
 * A write larger than one DynamoDB transaction, still one write (contract §7.1; docs/decisions.md, "Writes
 * past one transaction"). Its steps, each one or more TransactWriteItems:
 *
 * 1. stage, in key order, ≤ 100 items a call: a created item is put with the write's mark (its key must be
 *    free: a unique value taken fails here); a changed or deleted record, or a deleted index entry, is
 *    marked (the version read, no other mark), a changed record's after-image put in its item (`txImage`)
 *    or, if too large for it, beside it. The first
 *    stage carries the intent — its transaction record (pending, expiring), the keys it will stage and its
 *    open entry —, so no mark exists without them; every later stage checks the record is still pending,
 *    so nothing is staged once it is aborted;
 * 2. commit: one transaction moves the record from pending to committed, puts the request item (events,
 *    idempotent response) and adds the counts: the write counts from this instant, for every reader;
 * 3. apply (lib/store/recovery.ts, finish): marks removed, after-images put, deletes made; then its own
 *    items removed, in one transaction. The response is answered after it.
 *
 * Readers resolve marks by the record's state (lib/store/visibility.ts); writers never write over a mark
 * (lib/store/write-items.ts, unlockedAt). A failure before the commit undoes what was staged; a crash
 * leaves the record pending until it expires, when recovery (or a writer meeting its mark) aborts and
 * undoes it. A committed one is applied by whoever meets it.
 */

export interface LargeWrite {
  plan: WritePlan;
  deltas: [string, Map<string, number>][];
  /** The request's time: of two attempts under one Idempotency-Key, the later request's stands. */
  startedAt: string;
  /** The scoped Idempotency-Key, if any. */
  idempotencyKey?: string;
}

/** How long past its request's deadline a large write may still be under way: its Lambda's own timeout is 3 s past the deadline (infra/api.ts). */
export const EXPIRY_MARGIN_MS = 5_000;

/** When a write begun now is abandoned: its request's deadline (or, for a message, a budget from now) plus the margin, unless configured shorter. */
function expiryFrom(now: number): number {
  const { LTS_LARGE_WRITE_EXPIRY_MS: configured, LTS_REQUEST_BUDGET_MS: budget } = config();
  return configured !== undefined ? now + configured : (currentDeadline()?.at ?? now + budget) + EXPIRY_MARGIN_MS;
}

/** One staged op as sent: its transaction items (the record or entry, and an after-image beside it if any), their bytes. */
interface Staging {
  key: StagedKey;
  items: TransactItem[];
  bytes: number;
  onReject: StagedOp['onReject'];
  /** A changed record's after-image, measured as its op (applying it is measured as staging it was). */
  image?: AfterImage;
}

const MARK = { '#tx': 'tx', '#txOp': 'txOp' };

/** JSON bytes a staged put's mark adds to its item (a transaction id is a UUID). */
const MARK_BYTES = plainBytes({ tx: randomUUID(), txOp: 'put' }) - '{}'.length;

/** The transaction items that stage one op under `txId`. */
function staging(txId: string, op: ChangeOp): Staging {
  const TableName = config().LTS_TABLE_NAME;
  const { change, onReject } = op;
  if (change.kind === 'create') {
    const { pk, sk } = change.item as unknown as ItemKey;
    const item = { ...change.item, tx: txId, txOp: 'put' };
    return {
      key: { pk, sk, op: 'put' },
      items: [{ Put: { TableName, Item: item, ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } } }],
      // The op's own measure (planWrite's) and its mark's: the item is not serialized again to be measured.
      bytes: opBytes(op) + MARK_BYTES,
      onReject,
    };
  }
  const key = change.kind === 'replace' ? { pk: change.item.pk as string, sk: change.item.sk as string } : { pk: change.key.pk, sk: change.key.sk };
  const txOp = change.kind === 'replace' ? 'update' : 'delete';
  // A record is held at the version read; an index entry being deleted only needs to exist.
  const condition =
    change.version !== undefined
      ? { ConditionExpression: '#version = :version AND attribute_not_exists(#tx)', ExpressionAttributeNames: { ...MARK, '#version': 'version' } }
      : { ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(#tx)', ExpressionAttributeNames: { ...MARK, '#pk': 'pk' } };
  const values = { ':tx': txId, ':txOp': txOp, ...(change.version !== undefined ? { ':version': change.version } : {}) };
  const marking = (set: string, names: Record<string, string>, extra: Record<string, unknown>): TransactItem => ({
    Update: {
      TableName,
      Key: key,
      UpdateExpression: `SET #tx = :tx, #txOp = :txOp${set}`,
      ...condition,
      ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, ...names },
      ExpressionAttributeValues: { ...values, ...extra },
    },
  });
  const mark = marking('', {}, {});
  const markBytes = plainBytes(mark);
  if (change.kind !== 'replace') return { key: { ...key, op: 'delete' }, items: [mark], bytes: markBytes, onReject };
  const image = { image: change.item, bytes: opBytes(op) };
  if (carriesAfterImage(image.bytes, () => recordBytes(change.before))) {
    // Small enough to ride in the record's own item beside its current content (the two within a record's
    // budget, so the item within DynamoDB's 400 KB): one item staged and one applied, not two of each.
    const carried = marking(', #image = :image', { '#image': AFTER_IMAGE_ATTRIBUTE }, { ':image': change.item });
    return { key: { ...key, op: 'update', inline: true }, items: [carried], bytes: image.bytes + markBytes, onReject, image };
  }
  const side = { ...afterImageKey(txId, key), of: itemKeyText(key), image: change.item };
  return { key: { ...key, op: 'update' }, items: [mark, { Put: { TableName, Item: side } }], bytes: image.bytes + markBytes, onReject, image };
}

/** Every stage transaction also checks (and counts on) the record: nothing is staged once it is no longer pending. */
const stillPending = (txId: string): TransactItem => ({
  Update: {
    TableName: config().LTS_TABLE_NAME,
    Key: txItemKey(txId),
    UpdateExpression: 'ADD #staged :one',
    ConditionExpression: '#state = :pending',
    ExpressionAttributeNames: { '#staged': 'stagedCalls', '#state': 'state' },
    ExpressionAttributeValues: { ':one': 1, ':pending': 'pending' },
  },
});

/**
 * Staged ops grouped into stage transactions in key order, each within a transaction's items and bytes
 * beside its head: the intent's items in the first, the record's check in every other.
 */
function stageChunks(ops: Staging[], intent: { items: number; bytes: number }): Staging[][] {
  const chunks: Staging[][] = [[]];
  let items = intent.items;
  let bytes = intent.bytes;
  for (const op of ops) {
    const last = chunks.at(-1)!;
    if (last.length === 0 || (items + op.items.length <= TRANSACTION_ITEM_LIMIT && bytes + op.bytes <= TRANSACTION_SIZE_LIMIT)) {
      last.push(op);
      items += op.items.length;
      bytes += op.bytes;
    } else {
      chunks.push([op]);
      items = 1 + op.items.length;
      bytes = op.bytes;
    }
  }
  return chunks;
}

/** Commits a write too large for one transaction; resolves once it is applied. Throws as the one-transaction path does. */
export async function commitLarge(write: LargeWrite): Promise<void> {
  const { plan, startedAt, idempotencyKey } = write;
  const now = Date.now();
  if (idempotencyKey) await settleEarlierAttempts(idempotencyKey, startedAt, now);
  const txId = randomUUID();
  // Each op's key text made once, not twice in each of the sort's ~n log n comparisons (a rack split stages ~800 ops).
  const ops = plan.changes
    .map((op) => {
      const staged = staging(txId, op);
      return { staged, text: itemKeyText(staged.key) };
    })
    .sort((a, b) => (a.text < b.text ? -1 : 1))
    .map(({ staged }) => staged);
  const keys = ops.map((op) => op.key);
  const chunks = packKeys(txId, keys);
  const tx: TxRecord = {
    txId,
    state: 'pending',
    startedAt,
    expiresAt: expiryFrom(now),
    keyChunks: chunks.length,
    ...(idempotencyKey ? { idempotencyKey } : {}),
  };

  // The intent goes with the first stage: a mark is never without its record, nor the record without its keys.
  const head = intentItems(tx, chunks);
  const stages = stageChunks(ops, { items: head.length, bytes: head.reduce((sum, item) => sum + plainBytes(item), 0) });
  let staged = 0;
  try {
    for (const [n, stage] of stages.entries()) {
      await sendStage(stage, n === 0 ? head : [stillPending(tx.txId)]);
      staged++;
    }
    await putChunks(plan.requestKey, plan.ttl, plan.payload.chunks);
    await commitPoint(tx, write);
  } catch (error) {
    // A crashed process, or one past its deadline, can do nothing more; a commit without an answer may have
    // committed. Recovery ends those. Anything else was refused before the commit: undo what may be staged
    // (the stage that failed included: one that timed out may have landed).
    if (error instanceof ProcessKilled || error instanceof WriteOutcomeUnknown || error instanceof DeadlineExceeded) throw error;
    try {
      await undo(tx, stages.slice(0, staged + 1).flat());
    } catch (undoError) {
      if (undoError instanceof ProcessKilled || undoError instanceof CommittedWhileUndone) throw undoError;
      // The refusal stands (the write never committed); what is left staged, recovery undoes once it expires.
      log('warn', 'a refused large write was not fully undone; recovery completes it', { txId, error: String(undoError) });
    }
    throw error;
  }
  const images = new Map(ops.filter((op) => op.image).map((op) => [itemKeyText(op.key), op.image!]));
  try {
    await finish({ ...tx, state: 'committed' }, keys, 'apply', images);
  } catch (error) {
    if (error instanceof ProcessKilled) throw error;
    // The write is committed and reads as such; what is left of applying it, recovery does.
    log('warn', 'a committed large write was not fully applied; recovery completes it', { txId, error: String(error) });
  }
}

/** The intent: the record, its key chunks and its open entry, sent with the first stage. */
function intentItems(tx: TxRecord, chunks: Record<string, unknown>[]): TransactItem[] {
  const TableName = config().LTS_TABLE_NAME;
  const record = { ...txItemKey(tx.txId), ...tx, stagedCalls: 0 };
  const entry = {
    ...openEntryKey(tx.txId, tx.expiresAt),
    txId: tx.txId,
    expiresAt: tx.expiresAt,
    startedAt: tx.startedAt,
    ...(tx.idempotencyKey ? { idempotencyKey: tx.idempotencyKey } : {}),
  };
  return [
    { Put: { TableName, Item: record, ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } } },
    ...chunks.map((Item): TransactItem => ({ Put: { TableName, Item } })),
    { Put: { TableName, Item: entry } },
  ];
}

/** One stage transaction after its head (the intent, or the record's check); a refusal becomes the error the one-transaction path would raise. */
async function sendStage(stage: Staging[], head: TransactItem[]): Promise<void> {
  const items = [...head, ...stage.flatMap((op) => op.items)];
  const codes = await transact(items);
  if (!codes) return;
  // No longer pending: aborted by recovery or by a retry of the request (the intent's own record is new: it cannot fail so).
  if (codes[0] === 'ConditionalCheckFailed') throw new ConflictError('the large write was aborted while it was staged');
  const onReject = [...head.map(() => undefined), ...stage.flatMap((op) => op.items.map(() => op.onReject))];
  throw await failure(rejections(codes, items, (i) => onReject[i] ?? 'conflict'));
}

const rejections = (codes: CancellationCode[], items: TransactItem[], onReject: (i: number) => StagedOp['onReject']) =>
  codes.map((code, i) => ({ code, item: items[i]!, onReject: onReject(i) })).filter(({ code }) => code !== 'None');

/** Times the commit is re-sent on other count shards when only they met another write. */
const SHARD_RETRIES = 3;

/** The commit point: pending → committed, the request item and the counts, in one transaction. */
async function commitPoint(tx: TxRecord, { plan, deltas }: LargeWrite): Promise<void> {
  const commit: TransactItem = {
    Update: {
      TableName: config().LTS_TABLE_NAME,
      Key: txItemKey(tx.txId),
      UpdateExpression: 'SET #state = :committed',
      ConditionExpression: '#state = :pending',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':committed': 'committed', ':pending': 'pending' },
    },
  };
  const head = [commit, ...(plan.request ? [plan.request.item] : [])];
  for (let attempt = 0; ; attempt++) {
    let codes: CancellationCode[] | undefined;
    try {
      codes = await transact([...head, ...deltas.map(([family, changes]) => countUpdate(family, changes, randomShard()))]);
    } catch (error) {
      if (mayHaveApplied(error)) throw new WriteOutcomeUnknown(error);
      throw error;
    }
    if (!codes) return;
    const rejected = codes.map((code, i) => ({ code, i })).filter(({ code }) => code !== 'None');
    if (rejected.every(({ code, i }) => code === 'TransactionConflict' && i >= head.length) && attempt < SHARD_RETRIES) continue;
    if (codes[0] === 'ConditionalCheckFailed') throw new ConflictError('the large write was aborted before it committed');
    if (codes[1] === 'ConditionalCheckFailed' && plan.request?.onReject === 'idempotency') throw new IdempotencyRace();
    throw new ConflictError('the large write met another at its commit');
  }
}

/** A write refused before its commit found committed as it is undone: cannot happen (an unknown outcome is left to recovery), so never answered as a refusal. */
class CommittedWhileUndone extends Error {}

/** After a failure before the commit: abort (unless another did) and undo what may have been staged. */
async function undo(tx: TxRecord, staged: Staging[]): Promise<void> {
  const state = await abort(tx.txId);
  // Committed after all (an unknown outcome seen as a refusal cannot happen: those are left to recovery).
  if (state === 'committed') throw new CommittedWhileUndone(`large write ${tx.txId} committed while it was being undone`);
  await finish(
    { ...tx, state: 'aborted' },
    staged.map((op) => op.key),
    'undo',
  );
}

/**
 * Before a write under an Idempotency-Key: an earlier request's attempt still open under the same key was
 * outlived by this retry (or is past its expiry): it is ended now — undone if pending, applied if it
 * committed, in which case this request answers as it did (IdempotencyRace: the engine replays it). An
 * attempt of a later request is left to finish (this one then conflicts or replays it).
 */
async function settleEarlierAttempts(idempotencyKey: string, startedAt: string, now: number): Promise<void> {
  const earlier = (await readOpenEntries()).filter(
    (entry) => entry.idempotencyKey === idempotencyKey && (entry.startedAt < startedAt || entry.expiresAt <= now),
  );
  for (const entry of earlier) {
    if ((await settle(entry.txId, now, { force: true })) === 'committed') throw new IdempotencyRace();
  }
}
