import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '#lib/store/audit-trail.ts';
import { LARGE_WRITE_ITEM_LIMIT, LARGE_WRITE_SIZE_LIMIT, TRANSACTION_ITEM_LIMIT, TRANSACTION_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { countDeltas } from '#lib/store/counts.ts';
import { mayHaveApplied, TooLargeError, WriteOutcomeUnknown } from '#lib/store/errors.ts';
import { deleteChunks, putChunks } from '#lib/store/payload-items.ts';
import type { EventEnvelope, StoredResponse } from '#lib/store/request-payload.ts';
import { recordKey, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { commitLarge } from '#lib/store/large-write.ts';
import { reserve } from '#lib/store/sequences.ts';
import { sendWrite } from '#lib/store/transaction.ts';
import { encodeUuid } from '#lib/store/uuids.ts';
import { planWrite, type RecordModel } from '#lib/store/write-plan.ts';

/** The members of a JSON object as JSON.stringify writes them (those whose value is undefined are left out). */
const jsonEntries = (value: object) => Object.entries(value).filter(([, v]) => v !== undefined);

/**
 * Whether two JSON values serialise alike (JSON.stringify(a) === JSON.stringify(b)), walking both and
 * stopping at the first difference rather than serialising them whole.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return JSON.stringify(a) === JSON.stringify(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item ?? null, b[i] ?? null));
  }
  // Anything but plain objects (a Date, a byte array) serialises its own way.
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return JSON.stringify(a) === JSON.stringify(b);
  const [left, right] = [jsonEntries(a), jsonEntries(b)];
  return left.length === right.length && left.every(([key, value], i) => key === right[i]![0] && sameJson(value, right[i]![1]));
}

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
  private readonly updatedByKey = new Map<string, { before: StoredRecord; after: StoredRecord; event?: string }>();
  private readonly deletedByKey = new Map<string, StoredRecord>();
  /** Records created here that then moved on by named events: each state before a move, oldest first (movesOf). */
  private readonly movesByKey = new Map<string, { before: StoredRecord; event: string }[]>();
  private readonly events: EventEnvelope[] = [];
  private audit: readonly AuditEntry[] = [];
  private idempotency: { key: string; requestHash: string; response: StoredResponse } | undefined;

  constructor(
    private readonly model: RecordModel,
    readonly now: string,
  ) {}

  get created(): StoredRecord[] {
    return [...this.createdByKey.values()];
  }
  get updated(): { before: StoredRecord; after: StoredRecord; event?: string }[] {
    return [...this.updatedByKey.values()];
  }

  /** Whether the record of this key (`recordKey`) is created by this write: nothing committed can name it yet. */
  createsKey(key: string): boolean {
    return this.createdByKey.has(key);
  }

  /**
   * Reserves `count` consecutive ids of a family (one atomic ADD); unused ones are simply skipped. The
   * creation time offered is the clock's as the ADD is sent (never before the request's): concurrent
   * requests then reach the sequence in the order of their times, so its never-go-back condition rarely
   * fails (with the request's start time, half the creates of 50 concurrent clients paid a second ADD).
   */
  async allocateIds(family: string, count: number): Promise<number[]> {
    const clock = new Date().toISOString();
    const { first, createdAt } = await reserve(family, count, clock > this.now ? clock : this.now);
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

  /**
   * Stages a change of a record read earlier; returns the new state. A change that changes nothing is no
   * write. `event` names the change's event when its stored attributes do not say it (a labware's state
   * change is `state_changed`, though its state is derived: lib/jsonapi/write.ts recordEvents).
   */
  update(
    current: StoredRecord,
    change: { attrs?: Record<string, unknown>; rels?: Record<string, RelValue>; type?: string },
    options: { event?: string } = {},
  ): StoredRecord {
    const key = recordKey(current.family, current.id);
    const attrs = { ...current.attrs, ...change.attrs };
    const rels = { ...current.rels, ...change.rels };
    const type = change.type ?? current.type;
    // Compared structurally, stopping at the first difference: serialising both states of a plate to compare them cost more than planning its write.
    if (type === current.type && sameJson(attrs, current.attrs) && sameJson(rels, current.rels)) {
      return current;
    }
    const fresh = this.createdByKey.get(key);
    if (fresh) {
      // A record this write makes and then moves on by a named event (a submission built as it is made,
      // contract §7.3): each move is a version of its own, so each has its event, after the created one.
      if (options.event) this.movesByKey.set(key, [...(this.movesByKey.get(key) ?? []), { before: { ...fresh }, event: options.event }]);
      Object.assign(fresh, { attrs, rels, type, ...(options.event ? { version: fresh.version + 1 } : {}) });
      return fresh;
    }
    const staged = this.updatedByKey.get(key);
    const before = staged?.before ?? current;
    const { family, id, uuid, createdAt, version } = before;
    const after: StoredRecord = { family, id, type, uuid, createdAt, updatedAt: this.now, version: version + 1, attrs, rels };
    const event = options.event ?? staged?.event;
    this.updatedByKey.set(key, { before, after, ...(event ? { event } : {}) });
    return after;
  }

  /** The states a record created here was in before each named move it made in this write, oldest first (none for most). */
  movesOf(record: StoredRecord): readonly { before: StoredRecord; event: string }[] {
    return this.movesByKey.get(recordKey(record.family, record.id)) ?? [];
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

  /** The events recorded so far (the audit trail is derived from them: lib/jsonapi/audit.ts). */
  get recordedEvents(): readonly EventEnvelope[] {
    return this.events;
  }

  /** Sets the write's audit entries, written with it (lib/store/audit-trail.ts). */
  setAudit(entries: readonly AuditEntry[]): void {
    this.audit = entries;
  }

  rememberResponse(key: string, requestHash: string, response: StoredResponse): void {
    this.idempotency = { key, requestHash, response };
  }

  async commit(): Promise<void> {
    const request = { events: this.events, audit: this.audit, ...(this.idempotency ? { idempotency: this.idempotency } : {}) };
    const changes = { created: this.created, updated: this.updated, deleted: [...this.deletedByKey.values()] };
    const plan = planWrite(changes, this.model, request, this.now);
    const { items, onReject, bytes, payload, requestKey, ttl } = plan;
    if (items.length === 0) return;
    const deltas = [...countDeltas(this.model, changes)];
    const total = items.length + deltas.length;
    if (total > TRANSACTION_ITEM_LIMIT || bytes > TRANSACTION_SIZE_LIMIT) {
      // Past one transaction: several calls, still one write (lib/store/large-write.ts), up to the bound of one request.
      // The bound counts records and index entries, as the lab operations' budgets do (lib/domain/budgets.ts);
      // the audit entries beside them are one per labware touched (docs/decisions.md, "Audit trail").
      checkLargeWriteBound(plan.changes.length - this.audit.length, bytes);
      await commitLarge({ plan, deltas, startedAt: this.now, ...(this.idempotency ? { idempotencyKey: this.idempotency.key } : {}) });
      return;
    }
    await putChunks(requestKey, ttl, payload.chunks);
    try {
      await sendWrite(items, onReject, deltas);
    } catch (error) {
      // No answer: the transaction may have committed, and its chunks then hold its payload, so they stay
      // (if it did not, they name no committed request and expire with their TTL).
      if (mayHaveApplied(error)) throw new WriteOutcomeUnknown(error);
      // Best effort: chunks left behind name no committed request, and expire with their TTL.
      await deleteChunks(requestKey, payload.chunks).catch(() => undefined);
      throw error;
    }
  }
}

/** Refuses (TooLargeError: a 422 naming the bound and the size) a write past what one request may write. */
function checkLargeWriteBound(items: number, bytes: number): void {
  if (items > LARGE_WRITE_ITEM_LIMIT) {
    throw new TooLargeError(`this request would write ${items} records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}`);
  }
  if (bytes > LARGE_WRITE_SIZE_LIMIT)
    throw new TooLargeError(`this request would write ${bytes} bytes; one request may write at most ${LARGE_WRITE_SIZE_LIMIT} bytes`);
}
