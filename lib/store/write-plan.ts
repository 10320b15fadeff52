import { randomUUID } from 'node:crypto';
import { auditPut, type AuditEntry } from '#lib/store/audit-trail.ts';
import { ITEM_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { store } from '#lib/store/entities.ts';
import { TooLargeError, type ValueOrigin } from '#lib/store/errors.ts';
import { packPayload, plainBytes, storedBytes, type EventEnvelope, type PackedPayload, type StoredResponse } from '#lib/store/request-payload.ts';
import { padId, termValue, type StoredRecord } from '#lib/store/records.ts';
import type { TransactItem } from '#lib/store/transaction.ts';
import type { ItemKey } from '#lib/store/tx-items.ts';
import { recordPut, requestPut, termPut } from '#lib/store/write-items.ts';

/**
 * What a unit of work's changes become in DynamoDB: an item per record (conditional on the version read),
 * the index items whose values changed (unique ones as guards), and the request item with the events
 * and the idempotent response. Count shards are added by the commit (lib/store/counts.ts).
 */

/** An index entry a record should have. Unique entries are created conditionally and act as guards. */
export interface TermSpec {
  scope: string;
  value: string;
  /** Sort position under scope+value; unique entries have none (one entry per value). */
  ref?: string;
  /**
   * Where the request gave a unique value: a taken one is then a UniqueValueTaken. Without it a taken
   * value (one the write chose itself, e.g. a generated barcode) is a conflict, and the write starts again.
   */
  origin?: ValueOrigin;
}

/** What the unit of work needs to know about types, supplied by the resource registry. */
export interface RecordModel {
  familyOf(type: string): string;
  /** The counter (lib/store/counts.ts) that keeps the counts of a family's records. */
  counterOf(family: string): string;
  /** What a record adds to the counts of its family: its type, its supertypes, records embedded in it. */
  countsOf(record: StoredRecord): Record<string, number>;
  termsOf(record: StoredRecord): TermSpec[];
  /** The record's values in the two lookup slots (maintained by DynamoDB, no transaction item). */
  lookupsOf(record: StoredRecord): { lookup1?: string; lookup2?: string };
}

/** The attributes that put a record into the lookup indexes, sort values included (lib/store/entities.ts). */
export function lookupAttributes(record: StoredRecord, lookups: { lookup1?: string; lookup2?: string }) {
  return {
    ...(lookups.lookup1 !== undefined ? { lookup1: lookups.lookup1, lookup1Id: record.id } : {}),
    ...(lookups.lookup2 !== undefined ? { lookup2: lookups.lookup2, lookup2Id: record.id, lookup2UpdatedAt: record.updatedAt } : {}),
  };
}

/** How long a request record (its events, its idempotent response) is kept. */
export const REQUEST_RETENTION_SECONDS = 7 * 24 * 3600;
export const IDEMPOTENCY_SECONDS = 24 * 3600;

export interface StagedOp {
  item: TransactItem;
  /** What a ConditionalCheckFailed on this item means: a lost race, or a unique value taken. */
  onReject: 'conflict' | 'idempotency' | TakenValue;
  /** JSON bytes of the item when already known (a record, measured for its own limit; the request item, from its packed payload); other items are measured whole. */
  itemSize?: number;
}

/**
 * What one record or index item op does, for a write staged item by item (lib/store/large-write.ts): an
 * item created (its key must be free), a record replaced over the version read, or a record (at the
 * version read) or index entry removed.
 */
export type ItemChange =
  | { kind: 'create'; item: Record<string, unknown> }
  | { kind: 'replace'; item: Record<string, unknown>; version: number; before: StoredRecord }
  | { kind: 'remove'; key: ItemKey; version?: number };

/** A record or index item op: its transaction item and the change it makes. */
export interface ChangeOp extends StagedOp {
  change: ItemChange;
}

export type TakenValue = ValueOrigin & { value: string };

const termKey = (t: TermSpec) => `${t.scope}\u0000${t.value}\u0000${t.ref ?? '-'}`;
/** JSON bytes of a record, as its budget (ITEM_SIZE_LIMIT) counts them. */
export const recordBytes = (record: StoredRecord) => Buffer.byteLength(JSON.stringify(record));

/** The changes a unit of work staged. */
export interface StagedChanges {
  created: readonly StoredRecord[];
  updated: readonly { before: StoredRecord; after: StoredRecord }[];
  deleted: readonly StoredRecord[];
}

/** What the request item carries: the write's events and, under an Idempotency-Key, its response. */
export interface RequestItemContent {
  events: EventEnvelope[];
  idempotency?: { key: string; requestHash: string; response: StoredResponse };
  /** The write's audit entries, one per labware it touched (lib/store/audit-trail.ts). */
  audit?: readonly AuditEntry[];
}

export interface WritePlan {
  /** The records' and index entries' ops. */
  changes: ChangeOp[];
  /** The request item's op (the events, the idempotent response), if the write has one. */
  request?: StagedOp;
  /** Every op's transaction item, the request item's last, and what a failed condition on each means. */
  items: TransactItem[];
  onReject: StagedOp['onReject'][];
  bytes: number;
  /** The request item's payload; its chunks (if large) are written before the transaction. */
  payload: PackedPayload;
  requestKey: string;
  ttl: number;
}

/**
 * The transaction items of the records, index entries and request item, with what a failed condition on
 * each means; and the request item's payload, whose chunks (if large) are written before the transaction.
 */
export function planWrite(changes: StagedChanges, model: RecordModel, request: RequestItemContent, now: string): WritePlan {
  const ops: ChangeOp[] = [];
  const measured = (record: StoredRecord) => {
    const size = recordBytes(record);
    if (size > ITEM_SIZE_LIMIT) {
      throw new TooLargeError(`${record.type} ${record.id} would be ${size} bytes; a record may be at most ${ITEM_SIZE_LIMIT} bytes (a DynamoDB item)`);
    }
    return size;
  };
  const { record: records } = store().entities;

  for (const record of changes.created) {
    const put = recordPut({ ...record, ...lookupAttributes(record, model.lookupsOf(record)) }, 'new');
    ops.push({ item: { Put: put }, onReject: 'conflict', itemSize: measured(record), change: { kind: 'create', item: put.Item } });
    ops.push(...termOps([], model.termsOf(record), record));
  }
  for (const { before, after } of changes.updated) {
    const put = recordPut({ ...after, ...lookupAttributes(after, model.lookupsOf(after)) }, { version: before.version });
    ops.push({
      item: { Put: put },
      onReject: 'conflict',
      itemSize: measured(after),
      change: { kind: 'replace', item: put.Item, version: before.version, before },
    });
    ops.push(...termOps(model.termsOf(before), model.termsOf(after), after));
  }
  for (const record of changes.deleted) {
    const remove = records
      .delete({ family: record.family, id: record.id })
      .where((a, op) => `${op.eq(a.version, record.version)} AND ${op.notExists(a.tx)}`)
      .params();
    ops.push({ item: { Delete: remove }, onReject: 'conflict', change: { kind: 'remove', key: remove.Key as ItemKey, version: record.version } });
    ops.push(...termOps(model.termsOf(record), [], record));
  }
  // Created items like any index entry: a large write stages them marked, so they appear at its commit point.
  for (const entry of request.audit ?? []) {
    const put = auditPut(entry);
    // Measured once here (an entry holds no binary), not again by each reader of opBytes (the total below, a large write's staging).
    ops.push({ item: { Put: put }, onReject: 'conflict', itemSize: plainBytes({ Put: put }), change: { kind: 'create', item: put.Item } });
  }
  const requestKey = request.idempotency?.key ?? `auto:${randomUUID()}`;
  const ttl = Math.floor(Date.parse(now) / 1000) + REQUEST_RETENTION_SECONDS;
  const payload = packPayload({ events: request.events, ...(request.idempotency ? { response: request.idempotency.response } : {}) });
  let requestOp: StagedOp | undefined;
  if (ops.length > 0 || request.idempotency) {
    const head = { key: requestKey, committedAt: now, ttl, ...(request.idempotency ? { requestHash: request.idempotency.requestHash } : {}) };
    requestOp = {
      item: { Put: requestPut({ ...head, ...payload.attributes }) },
      onReject: request.idempotency ? 'idempotency' : 'conflict',
      // The payload measured as it was packed, the rest of the item on its own (within a few bytes of the whole).
      itemSize: storedBytes({ Put: requestPut(head) }) + payload.bytes,
    };
  }
  const all: StagedOp[] = requestOp ? [...ops, requestOp] : ops;
  // Count shards, added at commit, are a few hundred bytes each: the limit's margin covers them.
  const bytes = all.reduce((total, op) => total + opBytes(op), 0);
  return {
    changes: ops,
    ...(requestOp ? { request: requestOp } : {}),
    items: all.map((o) => o.item),
    onReject: all.map((o) => o.onReject),
    bytes,
    payload,
    requestKey,
    ttl,
  };
}

/** JSON bytes an op writes. */
export const opBytes = (op: StagedOp): number => op.itemSize ?? storedBytes(op.item);

function termOps(before: TermSpec[], after: TermSpec[], record: StoredRecord): ChangeOp[] {
  const old = new Map(before.map((t) => [termKey(t), t]));
  const next = new Map(after.map((t) => [termKey(t), t]));
  const ops: ChangeOp[] = [];
  for (const [key, t] of old) {
    if (next.has(key)) continue;
    const remove = store()
      .entities.term.delete({ scope: t.scope, value: termValue(t.value), ref: t.ref ?? '-' })
      .params();
    ops.push({
      item: { Delete: remove },
      onReject: 'conflict',
      itemSize: plainBytes({ Delete: remove }),
      change: { kind: 'remove', key: remove.Key as ItemKey },
    });
  }
  for (const [key, t] of next) {
    if (old.has(key)) continue;
    const item = { scope: t.scope, value: termValue(t.value), ref: t.ref ?? '-', family: record.family, type: record.type, id: record.id };
    const unique = t.ref === undefined;
    const put = termPut(item, unique);
    ops.push({
      item: { Put: put },
      onReject: unique && t.origin ? { ...t.origin, value: t.value } : 'conflict',
      itemSize: plainBytes({ Put: put }),
      change: { kind: 'create', item: put.Item },
    });
  }
  return ops;
}

export const listRef = (record: StoredRecord): string => `${padId(record.id)}#${record.family}`;
