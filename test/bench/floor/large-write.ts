import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { TRANSACTION_ITEM_LIMIT } from '#lib/domain/budgets.ts';
import { registry } from '#lib/resources/index.ts';
import { termValue } from '#lib/store/records.ts';
import { asRecord, type Db, type Item } from './db.ts';
import { entityMarkers, termKey, type Key } from './keys.ts';

/**
 * The floor of a write past one DynamoDB transaction: the fewest calls that write the same items with the
 * same guarantee (one write: no reader sees part of it, a crash is undone or completed, nothing is staged
 * once it is aborted). The reasoning, and what the service does on top: docs/decisions.md, "Measuring speed". Its calls, for S staged transactions:
 *
 * 1. stage (S transactions at once, nothing orders them): each puts the keys it stages beside the other
 *    open writes' (what recovery undoes; put only if its key is free: recovery, aborting the write, fills
 *    the keys of the stages it did not find, so none lands after) and up to 99 items marked with the write
 *    (`tx`): a new item as it will be, a changed record's new content inside its own item (`txImage`), the
 *    old content read until the commit. No item is common to two stages, which would make them conflict;
 * 2. commit (one transaction): the write's record, committed; the count shards and the request item. No
 *    record or index item rides in it final: a BatchGetItem or Query is only read-committed against a
 *    transaction (DynamoDB's isolation levels), so a reader could see some of those items written and
 *    others not — part of the write. Marked, every item is decided by the record's state read after it;
 * 3. apply (S transactions at once): each stage's items unmarked (a changed record put as its image),
 *    its key list removed;
 * 4. the record removed, last (a reader that meets a mark finds it until no mark is left).
 *
 * A write that fits one transaction is one transaction (contract §7.1), as the service's.
 */

/** A record or index item the write creates (`unique`: its key must be free), or a record it changes from the version read. */
export type FloorOp = { kind: 'create'; item: Item; unique: boolean } | { kind: 'replace'; item: Item; version: number };

/** A new record's ops: the record (its key must be free) and its index entries, as the service's registry indexes it (unique ones as guards). */
export function newRecordOps(record: Item): FloorOp[] {
  const { family, type, id } = record as { family: string; type: string; id: number };
  const terms = registry.termsOf(asRecord(record)).map((term): FloorOp => {
    const [value, ref] = [termValue(term.value), term.ref ?? '-'];
    const item = { ...termKey(term.scope, value, ref), ...entityMarkers('term'), scope: term.scope, value, ref, family, type, id };
    return { kind: 'create', item, unique: term.ref === undefined };
  });
  return [{ kind: 'create', item: record, unique: true }, ...terms];
}

/** Items of a stage transaction besides its key list. */
const STAGED_PER_TRANSACTION = TRANSACTION_ITEM_LIMIT - 1;
/** Where the floor's open writes list their staged keys: a partition of its own, so the service's recovery never reads them. */
const OPEN_PK = '$lts#floor_open_txs';
/** How long a write may be under way before recovery may abort it (the service's request budget and margin). */
const EXPIRY_MS = 35_000;

const keyOf = (item: Item): Key => ({ pk: item.pk as string, sk: item.sk as string });
const absent = { ConditionExpression: 'attribute_not_exists(pk)' };
const markedBy = (tx: string) => ({ ConditionExpression: '#tx = :tx', ExpressionAttributeNames: { '#tx': 'tx' }, ExpressionAttributeValues: { ':tx': tx } });
const unlocked = (version: number) => ({
  ConditionExpression: '#v = :v AND attribute_not_exists(#tx)',
  ExpressionAttributeNames: { '#v': 'version', '#tx': 'tx' },
  ExpressionAttributeValues: { ':v': version },
});

/** An op as a one-transaction write puts it. */
export function final(table: string, op: FloorOp) {
  if (op.kind === 'replace') return { Put: { TableName: table, Item: op.item, ...unlocked(op.version) } };
  return { Put: { TableName: table, Item: op.item, ...(op.unique ? absent : {}) } };
}

/** An op staged under mark `tx`: a new item put marked (its key must be free), a changed record marked with its image. */
function staged(table: string, tx: string, op: FloorOp) {
  if (op.kind === 'create') return { Put: { TableName: table, Item: { ...op.item, tx }, ...absent } };
  const hold = unlocked(op.version);
  return {
    Update: {
      TableName: table,
      Key: keyOf(op.item),
      UpdateExpression: 'SET #tx = :tx, #img = :img',
      ...hold,
      ExpressionAttributeNames: { ...hold.ExpressionAttributeNames, '#img': 'txImage' },
      ExpressionAttributeValues: { ...hold.ExpressionAttributeValues, ':tx': tx, ':img': op.item },
    },
  };
}

/** A staged op made final once the write is committed: the mark removed, or the record put as its image. */
function applied(table: string, tx: string, op: FloorOp) {
  if (op.kind === 'replace') return { Put: { TableName: table, Item: op.item, ...markedBy(tx) } };
  const held = markedBy(tx);
  return { Update: { TableName: table, Key: keyOf(op.item), UpdateExpression: 'REMOVE #tx', ...held } };
}

/**
 * Writes `ops` and `tail` (count shards, the request item: written once, at the commit) as one write. One
 * transaction when they fit in one; else the steps above.
 */
export async function writeLarge(db: Db, table: string, ops: readonly FloorOp[], tail: readonly Item[]): Promise<void> {
  if (ops.length + tail.length <= TRANSACTION_ITEM_LIMIT) {
    await db.transact({ TransactItems: [...ops.map((op) => final(table, op)), ...tail] });
    return;
  }
  const tx = randomUUID();
  const record: Key = { pk: `$lts#floortx_${tx}`, sk: '$floortx' };
  const stages: FloorOp[][] = [];
  for (let i = 0; i < ops.length; i += STAGED_PER_TRANSACTION) stages.push(ops.slice(i, i + STAGED_PER_TRANSACTION));
  const expires = new Date(Date.now() + EXPIRY_MS).toISOString();
  const listKey = (n: number): Key => ({ pk: OPEN_PK, sk: `$open#expires_${expires}#tx_${tx}#n_${n}` });

  await Promise.all(
    stages.map((stage, n) =>
      db.transact({
        TransactItems: [
          {
            Put: {
              TableName: table,
              Item: { ...listKey(n), stages: stages.length, keys: gzipSync(JSON.stringify(stage.map((op) => [op.item.pk, op.item.sk, op.kind]))) },
              ...absent,
            },
          },
          ...stage.map((op) => staged(table, tx, op)),
        ],
      }),
    ),
  );
  await db.transact({
    TransactItems: [{ Put: { TableName: table, Item: { ...record, state: 'committed' }, ...absent } }, ...tail],
  });
  await Promise.all(
    stages.map((stage, n) => db.transact({ TransactItems: [...stage.map((op) => applied(table, tx, op)), { Delete: { TableName: table, Key: listKey(n) } }] })),
  );
  await db.transact({ TransactItems: [{ Delete: { TableName: table, Key: record } }] });
}
