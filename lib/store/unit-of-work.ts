import { randomUUID } from 'node:crypto';
import { ConflictError, IdempotencyRace, TooLargeError, UniqueValueTaken, type ValueOrigin } from '#lib/store/errors.ts';
import { ITEM_SIZE_LIMIT, TRANSACTION_ITEM_LIMIT, TRANSACTION_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { countUpdate, randomShard } from '#lib/store/counts.ts';
import { store } from '#lib/store/entities.ts';
import { deleteChunks, packPayload, putChunks, type EventEnvelope, type PackedPayload, type StoredResponse } from '#lib/store/request-payload.ts';
import { reserve } from '#lib/store/sequences.ts';
import { transact, type TransactItem } from '#lib/store/transaction.ts';
import { encodeUuid } from '#lib/store/uuids.ts';
import { padId, recordKey, termValue, type RelValue, type StoredRecord } from '#lib/store/records.ts';

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

export type { EventEnvelope, StoredResponse } from '#lib/store/request-payload.ts';

/** How long a request record (its events, its idempotent response) is kept. */
export const REQUEST_RETENTION_SECONDS = 7 * 24 * 3600;
export const IDEMPOTENCY_SECONDS = 24 * 3600;

interface StagedOp {
  item: TransactItem;
  /** What a ConditionalCheckFailed on this item means: a lost race, or a unique value taken. */
  onReject: 'conflict' | 'idempotency' | TakenValue;
  /** JSON bytes of a record it puts (measured once; other items are measured whole). */
  recordSize?: number;
}

type TakenValue = ValueOrigin & { value: string };

const termKey = (t: TermSpec) => `${t.scope}\u0000${t.value}\u0000${t.ref ?? '-'}`;
const itemSize = (record: StoredRecord) => Buffer.byteLength(JSON.stringify(record));
/** JSON bytes of a transaction item, binary values (a compressed payload) counted as their own length. */
function transactItemSize(item: TransactItem): number {
  let binary = 0;
  const json = JSON.stringify(item, (_, value) => {
    if (!(value instanceof Uint8Array)) return value;
    binary += value.byteLength;
    return '';
  });
  return Buffer.byteLength(json) + binary;
}
/** Times a plan is re-sent with other count shards when only its count items met a concurrent write. */
const SHARD_RETRIES = 3;

/**
 * Everything one request writes, committed as one DynamoDB transaction. Ids are reserved from their
 * sequences as records are created (an atomic ADD each, outside the transaction: a failed request leaves
 * a gap). Updates and deletes are conditional on the version read, so concurrent writers never lose an
 * update; counts are unconditional ADDs on a random shard (lib/store/counts.ts), so writes of different
 * records never conflict. The request's events and idempotent response go into one request item of the
 * same transaction.
 */
export class UnitOfWork {
  /** Creation time of each reserved id, by record key. */
  private readonly reserved = new Map<string, string>();
  private readonly createdByKey = new Map<string, StoredRecord>();
  private readonly updatedByKey = new Map<string, { before: StoredRecord; after: StoredRecord }>();
  private readonly deletedByKey = new Map<string, StoredRecord>();
  private readonly events: EventEnvelope[] = [];
  private idempotency: { key: string; requestHash: string; response: StoredResponse } | undefined;

  constructor(
    private readonly model: RecordModel,
    readonly now: string,
  ) {}

  get created(): StoredRecord[] {
    return [...this.createdByKey.values()];
  }
  get updated(): { before: StoredRecord; after: StoredRecord }[] {
    return [...this.updatedByKey.values()];
  }

  /** Reserves `count` consecutive ids of a family (one atomic ADD); unused ones are simply skipped. */
  async allocateIds(family: string, count: number): Promise<number[]> {
    const { first, createdAt } = await reserve(family, count, this.now);
    const ids = Array.from({ length: count }, (_, i) => first + i);
    for (const id of ids) this.reserved.set(recordKey(family, id), createdAt);
    return ids;
  }

  async create(type: string, init: { attrs: Record<string, unknown>; rels: Record<string, RelValue>; id?: number; uuid?: string }): Promise<StoredRecord> {
    const family = this.model.familyOf(type);
    const id = init.id ?? (await this.allocateIds(family, 1))[0]!;
    // The sequence hands out creation times that never go back as ids grow (so created_at order is id order).
    const createdAt = this.reserved.get(recordKey(family, id)) ?? this.now;
    const record: StoredRecord = {
      family,
      id,
      type,
      uuid: init.uuid ?? encodeUuid(family, id),
      createdAt,
      updatedAt: createdAt,
      version: 1,
      attrs: init.attrs,
      rels: init.rels,
    };
    this.createdByKey.set(recordKey(family, id), record);
    return record;
  }

  /** Stages a change of a record read earlier; returns the new state. A change that changes nothing is no write. */
  update(current: StoredRecord, change: { attrs?: Record<string, unknown>; rels?: Record<string, RelValue>; type?: string }): StoredRecord {
    const key = recordKey(current.family, current.id);
    const attrs = { ...current.attrs, ...change.attrs };
    const rels = { ...current.rels, ...change.rels };
    const type = change.type ?? current.type;
    if (type === current.type && JSON.stringify(attrs) === JSON.stringify(current.attrs) && JSON.stringify(rels) === JSON.stringify(current.rels)) {
      return current;
    }
    const fresh = this.createdByKey.get(key);
    if (fresh) {
      Object.assign(fresh, { attrs, rels, type });
      return fresh;
    }
    const before = this.updatedByKey.get(key)?.before ?? current;
    const { family, id, uuid, createdAt, version } = before;
    const after: StoredRecord = { family, id, type, uuid, createdAt, updatedAt: this.now, version: version + 1, attrs, rels };
    this.updatedByKey.set(key, { before, after });
    return after;
  }

  delete(record: StoredRecord): void {
    const key = recordKey(record.family, record.id);
    if (this.createdByKey.delete(key)) return;
    const before = this.updatedByKey.get(key)?.before ?? record;
    this.updatedByKey.delete(key);
    this.deletedByKey.set(key, before);
  }

  /** The staged state of a record, if this unit of work created or changed it. */
  staged(family: string, id: number): StoredRecord | null | undefined {
    const key = recordKey(family, id);
    if (this.deletedByKey.has(key)) return null;
    return this.createdByKey.get(key) ?? this.updatedByKey.get(key)?.after;
  }

  addEvent(event: Omit<EventEnvelope, 'id' | 'occurred_at'>): void {
    this.events.push({ id: randomUUID(), occurred_at: this.now, ...event });
  }

  rememberResponse(key: string, requestHash: string, response: StoredResponse): void {
    this.idempotency = { key, requestHash, response };
  }

  async commit(): Promise<void> {
    const { items, onReject, bytes, payload, requestKey, ttl } = this.plan();
    if (items.length === 0) return;
    const deltas = [...this.countDeltas()];
    const total = items.length + deltas.length;
    if (total > TRANSACTION_ITEM_LIMIT) {
      throw new TooLargeError(`this request would write ${total} items; one request may write at most ${TRANSACTION_ITEM_LIMIT} (a DynamoDB transaction)`);
    }
    if (bytes > TRANSACTION_SIZE_LIMIT) {
      throw new TooLargeError(
        `this request would write ${bytes} bytes; one request may write at most ${TRANSACTION_SIZE_LIMIT} bytes (a DynamoDB transaction)`,
      );
    }
    await putChunks(requestKey, ttl, payload.chunks);
    try {
      await this.send(items, onReject, deltas);
    } catch (error) {
      // Best effort: chunks left behind name no committed request, and expire with their TTL.
      await deleteChunks(requestKey, payload.chunks).catch(() => undefined);
      throw error;
    }
  }

  /** Sends the transaction; when only its count shards met another write, again on other shards. */
  private async send(items: TransactItem[], onReject: StagedOp['onReject'][], deltas: [string, Map<string, number>][]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      // One ADD per counter that changes, on a shard drawn afresh for every attempt.
      const counts = deltas.map(([family, changes]) => countUpdate(family, changes, randomShard()));
      const codes = await transact([...items, ...counts]);
      if (!codes) return;
      const rejected = codes.map((code, i) => ({ code, i })).filter(({ code }) => code !== 'None');
      // Only count shards met another write: the same plan on other shards needs no fresh reads.
      if (rejected.every(({ code, i }) => code === 'TransactionConflict' && i >= items.length) && attempt < SHARD_RETRIES) continue;
      throw this.failure(rejected.map(({ code, i }) => ({ code, onReject: onReject[i] ?? 'conflict' })));
    }
  }

  /** The error a cancelled transaction becomes: values taken, an idempotency race, or a conflict (retried by the engine). */
  private failure(rejected: { code: string; onReject: StagedOp['onReject'] }[]): Error {
    const unexpected = rejected.filter(({ code }) => code !== 'ConditionalCheckFailed' && code !== 'TransactionConflict').map(({ code }) => code);
    // Anything but a lost race or a taken value is a fault of ours (e.g. a validation error): a 500, not a retry.
    if (unexpected.length > 0) return new Error(`transaction cancelled: ${unexpected.join(', ')}`);
    const failed = rejected.filter(({ code }) => code === 'ConditionalCheckFailed').map(({ onReject }) => onReject);
    if (failed.includes('idempotency')) return new IdempotencyRace();
    const taken = failed.filter((r): r is TakenValue => typeof r === 'object');
    if (taken.length > 0 && taken.length === rejected.length) return new UniqueValueTaken(taken);
    return new ConflictError();
  }

  /** Per counter (id family), how its counted keys change. */
  private countDeltas(): Map<string, Map<string, number>> {
    const deltas = new Map<string, Map<string, number>>();
    const add = (record: StoredRecord, sign: number) => {
      let family = deltas.get(record.family);
      if (!family) {
        family = new Map();
        deltas.set(record.family, family);
      }
      for (const [key, n] of Object.entries(this.model.countsOf(record))) family.set(key, (family.get(key) ?? 0) + sign * n);
    };
    for (const record of this.createdByKey.values()) add(record, 1);
    for (const { before, after } of this.updatedByKey.values()) {
      add(before, -1);
      add(after, 1);
    }
    for (const record of this.deletedByKey.values()) add(record, -1);
    for (const [family, keys] of deltas) {
      for (const [key, n] of keys) if (n === 0) keys.delete(key);
      if (keys.size === 0) deltas.delete(family);
    }
    return deltas;
  }

  /**
   * The transaction items of the records, index entries and request item, with what a failed condition on
   * each means; and the request item's payload, whose chunks (if large) are written before the transaction.
   */
  private plan(): { items: TransactItem[]; onReject: StagedOp['onReject'][]; bytes: number; payload: PackedPayload; requestKey: string; ttl: number } {
    const ops: StagedOp[] = [];
    const measured = (record: StoredRecord) => {
      const size = itemSize(record);
      if (size > ITEM_SIZE_LIMIT) {
        throw new TooLargeError(`${record.type} ${record.id} would be ${size} bytes; a record may be at most ${ITEM_SIZE_LIMIT} bytes (a DynamoDB item)`);
      }
      return size;
    };
    const { record: records, request: requests } = store().entities;

    for (const record of this.createdByKey.values()) {
      ops.push({
        item: { Put: records.create({ ...record, ...lookupAttributes(record, this.model.lookupsOf(record)) }).params() },
        onReject: 'conflict',
        recordSize: measured(record),
      });
      ops.push(...this.termOps([], this.model.termsOf(record), record));
    }
    for (const { before, after } of this.updatedByKey.values()) {
      const recordSize = measured(after);
      const item = records
        .put({ ...after, ...lookupAttributes(after, this.model.lookupsOf(after)) })
        .where((a, op) => op.eq(a.version, before.version))
        .params();
      ops.push({ item: { Put: item }, onReject: 'conflict', recordSize });
      ops.push(...this.termOps(this.model.termsOf(before), this.model.termsOf(after), after));
    }
    for (const record of this.deletedByKey.values()) {
      ops.push({
        item: {
          Delete: records
            .delete({ family: record.family, id: record.id })
            .where((a, op) => op.eq(a.version, record.version))
            .params(),
        },
        onReject: 'conflict',
      });
      ops.push(...this.termOps(this.model.termsOf(record), [], record));
    }
    const requestKey = this.idempotency?.key ?? `auto:${randomUUID()}`;
    const ttl = Math.floor(Date.parse(this.now) / 1000) + REQUEST_RETENTION_SECONDS;
    const payload = packPayload({ events: this.events, ...(this.idempotency ? { response: this.idempotency.response } : {}) });
    if (ops.length > 0 || this.idempotency) {
      const request = {
        key: requestKey,
        committedAt: this.now,
        ttl,
        ...(this.idempotency ? { requestHash: this.idempotency.requestHash } : {}),
        ...payload.attributes,
      };
      ops.push({ item: { Put: requests.create(request).params() }, onReject: this.idempotency ? 'idempotency' : 'conflict' });
    }
    // Count shards, added at commit, are a few hundred bytes each: the limit's margin covers them.
    const bytes = ops.reduce((total, op) => total + (op.recordSize ?? transactItemSize(op.item)), 0);
    return { items: ops.map((o) => o.item), onReject: ops.map((o) => o.onReject), bytes, payload, requestKey, ttl };
  }

  private termOps(before: TermSpec[], after: TermSpec[], record: StoredRecord): StagedOp[] {
    const { term } = store().entities;
    const old = new Map(before.map((t) => [termKey(t), t]));
    const next = new Map(after.map((t) => [termKey(t), t]));
    const ops: StagedOp[] = [];
    for (const [key, t] of old) {
      if (!next.has(key))
        ops.push({ item: { Delete: term.delete({ scope: t.scope, value: termValue(t.value), ref: t.ref ?? '-' }).params() }, onReject: 'conflict' });
    }
    for (const [key, t] of next) {
      if (old.has(key)) continue;
      const item = { scope: t.scope, value: termValue(t.value), ref: t.ref ?? '-', family: record.family, type: record.type, id: record.id };
      ops.push(
        t.ref === undefined
          ? { item: { Put: term.create(item).params() }, onReject: t.origin ? { ...t.origin, value: t.value } : 'conflict' }
          : { item: { Put: term.put(item).params() }, onReject: 'conflict' },
      );
    }
    return ops;
  }
}

export const listRef = (record: StoredRecord): string => `${padId(record.id)}#${record.family}`;
