import { randomUUID } from 'node:crypto';
import { JsonApiError, errors } from '#lib/jsonapi/errors.ts';
import { store, type LtsService } from '#lib/store/entities.ts';
import { padId, recordKey, termValue, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';

/** An index entry a record should have. Unique entries are created conditionally and act as guards. */
export interface TermSpec {
  scope: string;
  value: string;
  /** Sort position under scope+value; unique entries have none (one entry per value). */
  ref?: string;
  /** The 422 to answer when a unique entry already exists. */
  onTaken?: JsonApiError;
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

export interface EventEnvelope {
  id: string;
  type: string;
  occurred_at: string;
  resource: { type: string; id: string; uuid: string | null };
  data: unknown;
  actor: unknown;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/** Thrown when another request changed what this one read; the caller retries from the start. */
export class ConflictError extends Error {}

/** Thrown when a concurrent request with the same Idempotency-Key committed first. */
export class IdempotencyRace extends Error {}

/** DynamoDB's limits: 100 items and 4 MB a transaction, 400 KB an item (we keep a margin for keys). */
export const TRANSACTION_ITEM_LIMIT = 100;
export const ITEM_SIZE_LIMIT = 380_000;
/** How long a request record (its events, its idempotent response) is kept. */
export const REQUEST_RETENTION_SECONDS = 7 * 24 * 3600;
export const IDEMPOTENCY_SECONDS = 24 * 3600;

/** The entities as ElectroDB hands them to a transaction callback. */
type TxEntities = Parameters<Parameters<LtsService['transaction']['write']>[0]>[0];
type Op = (entities: TxEntities) => unknown;
interface StagedOp {
  op: Op;
  /** What a ConditionalCheckFailed on this item means. */
  onReject: 'conflict' | 'idempotency' | JsonApiError;
}

/** A family's counter as read: the last id handed out, per-type counts, and the version the update is conditional on. */
interface Counter {
  value: number;
  counts: Record<string, number>;
  createdAt: string;
  version: number;
  exists: boolean;
  used: number;
}

const termKey = (t: TermSpec) => `${t.scope}\u0000${t.value}\u0000${t.ref ?? '-'}`;
const itemSize = (record: StoredRecord) => Buffer.byteLength(JSON.stringify(record));

/**
 * Everything one request writes, committed as one DynamoDB transaction. Ids come from per-family
 * counters advanced inside that same transaction (conditionally), so a failed request leaves no gap;
 * updates are conditional on the version read, so concurrent writers never lose an update. The
 * request's events and idempotent response go into one request item of the same transaction.
 */
export class UnitOfWork {
  private readonly counters = new Map<string, Counter>();
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
  get deleted(): StoredRecord[] {
    return [...this.deletedByKey.values()];
  }

  private async counter(family: string): Promise<Counter> {
    let counter = this.counters.get(family);
    if (!counter) {
      const { data } = await store().entities.counter.get({ name: family }).go({ consistent: true });
      counter = data
        ? { value: data.value, counts: data.counts as Record<string, number>, createdAt: data.createdAt ?? '', version: data.version, exists: true, used: 0 }
        : { value: 0, counts: {}, createdAt: '', version: 0, exists: false, used: 0 };
      this.counters.set(family, counter);
    }
    return counter;
  }

  /** Reserves `count` consecutive ids of a family; nothing is visible until commit. */
  async allocateIds(family: string, count: number): Promise<number[]> {
    const counter = await this.counter(family);
    const first = counter.value + counter.used + 1;
    counter.used += count;
    return Array.from({ length: count }, (_, i) => first + i);
  }

  async create(type: string, init: { attrs: Record<string, unknown>; rels: Record<string, RelValue>; id?: number; uuid?: string }): Promise<StoredRecord> {
    const family = this.model.familyOf(type);
    const id = init.id ?? (await this.allocateIds(family, 1))[0]!;
    // A later id never gets an earlier creation time than the family's last (so created_at order is id order).
    const counter = await this.counter(family);
    const createdAt = counter.createdAt > this.now ? counter.createdAt : this.now;
    counter.createdAt = createdAt;
    const record: StoredRecord = {
      family,
      id,
      type,
      uuid: init.uuid ?? randomUUID(),
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

  get hasWrites(): boolean {
    return this.createdByKey.size + this.updatedByKey.size + this.deletedByKey.size > 0;
  }

  async commit(): Promise<void> {
    const deltas = this.countDeltas();
    for (const family of deltas.keys()) await this.counter(family);
    const staged = this.plan(deltas);
    if (staged.length === 0) return;
    if (staged.length > TRANSACTION_ITEM_LIMIT) {
      throw errors.tooLarge('/data', `this request would write ${staged.length} items; one request may write at most ${TRANSACTION_ITEM_LIMIT}`);
    }
    const result = await store()
      .transaction.write((entities) => staged.map((s) => s.op(entities)) as never[])
      .go();
    if (!result.canceled) return;

    const reasons = result.data as { rejected: boolean; code: string }[];
    const taken: JsonApiError[] = [];
    let conflict = false;
    let race = false;
    const unexpected: string[] = [];
    reasons.forEach((reason, i) => {
      if (!reason.rejected) return;
      const onReject = staged[i]?.onReject;
      if (reason.code === 'TransactionConflict') conflict = true;
      else if (reason.code !== 'ConditionalCheckFailed') unexpected.push(reason.code);
      else if (onReject === 'conflict') conflict = true;
      else if (onReject === 'idempotency') race = true;
      else if (onReject) taken.push(onReject);
    });
    // Anything but a lost race or a taken value is a fault of ours (e.g. a validation error): a 500, not a retry.
    if (unexpected.length > 0) throw new Error(`transaction cancelled: ${unexpected.join(', ')}`);
    if (race) throw new IdempotencyRace();
    if (taken.length > 0 && !conflict) throw JsonApiError.all(taken);
    throw new ConflictError('transaction cancelled by a concurrent change');
  }

  /** Per family, how the counts of each type change. */
  private countDeltas(): Map<string, Map<string, number>> {
    const deltas = new Map<string, Map<string, number>>();
    const add = (record: StoredRecord, sign: number) => {
      let family = deltas.get(record.family);
      if (!family) deltas.set(record.family, (family = new Map()));
      for (const [type, n] of Object.entries(this.model.countsOf(record))) family.set(type, (family.get(type) ?? 0) + sign * n);
    };
    for (const record of this.createdByKey.values()) add(record, 1);
    for (const { before, after } of this.updatedByKey.values()) {
      add(before, -1);
      add(after, 1);
    }
    for (const record of this.deletedByKey.values()) add(record, -1);
    for (const [family, types] of deltas) {
      for (const [type, n] of types) if (n === 0) types.delete(type);
      if (types.size === 0 && !this.counters.get(family)?.used) deltas.delete(family);
    }
    return deltas;
  }

  private plan(deltas: Map<string, Map<string, number>>): StagedOp[] {
    const ops: StagedOp[] = [];
    const oversized = (record: StoredRecord) => {
      const size = itemSize(record);
      if (size > ITEM_SIZE_LIMIT) {
        throw errors.tooLarge('/data', `${record.type} ${record.id} would be ${size} bytes; a record may be at most ${ITEM_SIZE_LIMIT} bytes`);
      }
    };

    for (const record of this.createdByKey.values()) {
      oversized(record);
      const item = { ...record, ...this.model.lookupsOf(record) };
      ops.push({ op: (e) => e.record.create(item).commit(), onReject: 'conflict' });
      ops.push(...this.termOps([], this.model.termsOf(record), record));
    }
    for (const { before, after } of this.updatedByKey.values()) {
      oversized(after);
      const item = { ...after, ...this.model.lookupsOf(after) };
      ops.push({
        op: (e) => e.record.put(item).where((a, op) => op.eq(a.version, before.version)).commit(),
        onReject: 'conflict',
      });
      ops.push(...this.termOps(this.model.termsOf(before), this.model.termsOf(after), after));
    }
    for (const record of this.deletedByKey.values()) {
      ops.push({
        op: (e) => e.record.delete({ family: record.family, id: record.id }).where((a, op) => op.eq(a.version, record.version)).commit(),
        onReject: 'conflict',
      });
      ops.push(...this.termOps(this.model.termsOf(record), [], record));
    }
    for (const [family, counter] of this.counters) {
      const delta = deltas.get(family);
      if (!counter.used && !delta) continue;
      const counts = { ...counter.counts };
      for (const [type, n] of delta ?? []) counts[type] = (counts[type] ?? 0) + n;
      const next = { value: counter.value + counter.used, counts, version: counter.version + 1, ...(counter.createdAt ? { createdAt: counter.createdAt } : {}) };
      ops.push({
        op: (e) =>
          e.counter
            .update({ name: family })
            .set(next)
            .where((a, op) => (counter.exists ? op.eq(a.version, counter.version) : op.notExists(a.version)))
            .commit(),
        onReject: 'conflict',
      });
    }
    if (ops.length > 0 || this.idempotency) {
      const ttl = Math.floor(Date.parse(this.now) / 1000) + REQUEST_RETENTION_SECONDS;
      const request = {
        key: this.idempotency?.key ?? `auto:${randomUUID()}`,
        committedAt: this.now,
        events: this.events,
        ttl,
        ...(this.idempotency ? { requestHash: this.idempotency.requestHash, response: this.idempotency.response } : {}),
      };
      // All events of the write travel in this one item, so it must fit an item too.
      const size = Buffer.byteLength(JSON.stringify(request));
      if (size > ITEM_SIZE_LIMIT) {
        throw errors.tooLarge('/data', `the ${this.events.length} events this request would record take ${size} bytes; one request may record at most ${ITEM_SIZE_LIMIT} bytes`);
      }
      ops.push({ op: (e) => e.request.create(request).commit(), onReject: this.idempotency ? 'idempotency' : 'conflict' });
    }
    return ops;
  }

  private termOps(before: TermSpec[], after: TermSpec[], record: StoredRecord): StagedOp[] {
    const old = new Map(before.map((t) => [termKey(t), t]));
    const next = new Map(after.map((t) => [termKey(t), t]));
    const ops: StagedOp[] = [];
    for (const [key, t] of old) {
      if (!next.has(key)) ops.push({ op: (e) => e.term.delete({ scope: t.scope, value: termValue(t.value), ref: t.ref ?? '-' }).commit(), onReject: 'conflict' });
    }
    for (const [key, t] of next) {
      if (old.has(key)) continue;
      const item = { scope: t.scope, value: termValue(t.value), ref: t.ref ?? '-', family: record.family, type: record.type, id: record.id };
      ops.push(
        t.ref === undefined
          ? { op: (e) => e.term.create(item).commit(), onReject: t.onTaken ?? 'conflict' }
          : { op: (e) => e.term.put(item).commit(), onReject: 'conflict' },
      );
    }
    return ops;
  }
}

export const listRef = (record: StoredRecord): string => `${padId(record.id)}#${record.family}`;
export type { Ref };
