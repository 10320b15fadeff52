import type { Registry } from '#lib/jsonapi/registry.ts';
import { findHolders, getRecords, recordKey, type Ref, type StoredRecord } from '#lib/store/records.ts';
import { cachedReferenceRecord, keepReferenceRecord, referenceTicket } from '#lib/store/reference-records.ts';
import { decodeUuid, UUID_ALIAS_SCOPE } from '#lib/store/uuids.ts';
import { parseHeldUuid, UUID_FORMAT } from '#lib/domain/labware-ids.ts';
import type { KeyScope } from '#lib/store/api-keys.ts';
import type { UnitOfWork } from '#lib/store/unit-of-work.ts';

export interface ApiKeyIdentity {
  name: string;
  scope: KeyScope;
}

/** What every part of the engine may know about the request it serves. */
export interface RequestContext {
  registry: Registry;
  /** `<scheme>://<host>` for absolute links. */
  baseUrl: string;
  requestId: string;
  now: string;
  apiKey: ApiKeyIdentity | null;
  loader: Loader;
}

/** A request that writes: its changes go to one unit of work, committed as one transaction. */
export interface WriteContext extends RequestContext {
  uow: UnitOfWork;
}

/** The context of one request or message, with its own loader (its cache lives as long as the request). */
export function newRequestContext(registry: Registry, about: Pick<RequestContext, 'baseUrl' | 'requestId' | 'apiKey'>): RequestContext {
  return { registry, ...about, now: new Date().toISOString(), loader: new Loader(registry) };
}

export const refKey = (ref: Ref): string => `${ref.type}:${ref.id}`;
export const refOf = (record: StoredRecord): Ref => ({ type: record.type, id: record.id });
/** Loader.byUuids: a record of any type the API serves (a uuid filter, a collection's entries naming wells, tubes or requests). */
export const ANY_SERVED_TYPE = 'any served type';

/** The item a uuid names, and for a held uuid the slot in it (Loader.uuidKey). */
interface UuidKey {
  uuid: string;
  family: string;
  id: number;
  held?: { holderUuid: string; slot: number };
}

/**
 * Loads records for one request: batched, de-duplicated and cached, so a record read twice costs one
 * read. During a write it sees the unit of work's staged changes first (read-your-writes). Embedded
 * records (wells, aliquots, …) are found in their parent, so a plate's wells cost the plate's read.
 */
export class Loader {
  private readonly cache = new Map<string, StoredRecord | null>();
  /** Reads under way, by record key. */
  private readonly fetching = new Map<string, Promise<void>>();
  /** The keys asked for since the last read was sent, read together once the code running now has asked for all it will (`queued`). */
  private queue: { keys: { family: string; id: number }[]; read: Promise<void> } | undefined;
  /** Index reads made for this request, by what they read: a Query two relationships need is made once. */
  private readonly ranges = new Map<string, Promise<unknown>>();

  /**
   * `staged`: a write's unit of work, whose changes it sees first. `cachedReferences`: reference records
   * may come from the process's cache (lib/store/reference-records.ts) — for writes, which only link them.
   */
  constructor(
    private readonly registry: Registry,
    private readonly staged?: (family: string, id: number) => StoredRecord | null | undefined,
    private readonly cachedReferences = false,
  ) {}

  /** Whether a family's records may come from, and go to, the process's cache of reference records. */
  private shared(family: string): boolean {
    return this.cachedReferences && this.registry.holdsReferenceData(family);
  }

  private stored(family: string, id: number): StoredRecord | null | undefined {
    const staged = this.staged?.(family, id);
    return staged === undefined ? this.cache.get(recordKey(family, id)) : staged;
  }

  /**
   * Reads the stored items not yet cached or staged (one batched, consistent read); reference records kept by
   * the process count as cached, if allowed. A key another read of this loader is already fetching is waited
   * for, not read again: the include walk's branches load at once, and a record read twice would be two
   * objects, whose embedded records (a book's requests) would then be in one document twice.
   */
  private async fetch(keys: readonly { family: string; id: number }[]): Promise<void> {
    const waits = new Set<Promise<void>>();
    const missing = keys.filter(({ family, id }) => {
      const key = recordKey(family, id);
      if (this.cache.has(key) || this.staged?.(family, id) !== undefined) return false;
      const inFlight = this.fetching.get(key);
      if (inFlight) {
        waits.add(inFlight);
        return false;
      }
      const kept = this.shared(family) ? cachedReferenceRecord(family, id) : undefined;
      if (kept) this.cache.set(key, kept);
      return !kept;
    });
    if (missing.length > 0) {
      const read = this.queued(missing);
      for (const { family, id } of missing) this.fetching.set(recordKey(family, id), read);
      waits.add(read);
    }
    await Promise.all(waits);
  }

  /**
   * Reads the keys with every other key asked for before the code running now waits on I/O: the read is
   * sent on the next tick, which Node runs once the promise jobs under way have all run. The include walk's
   * branches reach their next level together (a plate page's samples, its transfers' source plates and its
   * requests' types), so they share one BatchGetItem rather than one each (docs/decisions.md, "Includes and
   * their read layout").
   */
  private queued(keys: readonly { family: string; id: number }[]): Promise<void> {
    if (this.queue) {
      this.queue.keys.push(...keys);
      return this.queue.read;
    }
    const queue = { keys: [...keys] } as { keys: { family: string; id: number }[]; read: Promise<void> };
    queue.read = new Promise<void>((resolve) => process.nextTick(resolve)).then(() => {
      this.queue = undefined;
      return this.read(queue.keys);
    });
    this.queue = queue;
    return queue.read;
  }

  /** `read`'s result, made once per request for one `key` (an index read two relationships need, e.g. a plate's children). */
  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let made = this.ranges.get(key) as Promise<T> | undefined;
    if (!made) {
      made = read();
      this.ranges.set(key, made);
    }
    return made;
  }

  private async read(missing: readonly { family: string; id: number }[]): Promise<void> {
    const ticket = referenceTicket();
    try {
      const found = await getRecords([...missing]);
      for (const { family, id } of missing) {
        const record = found.get(recordKey(family, id));
        this.cache.set(recordKey(family, id), record ?? null);
        if (record && this.shared(family)) keepReferenceRecord(record, ticket);
      }
    } finally {
      for (const { family, id } of missing) this.fetching.delete(recordKey(family, id));
    }
  }

  /** Records for the refs, keyed by `type:id` as asked; a ref whose record is missing or of another type is absent. */
  async load(refs: readonly Ref[]): Promise<Map<string, StoredRecord>> {
    const wanted = refs.map((ref) => ({ ref, ...this.registry.storageOf(ref) }));
    await this.fetch(wanted);
    const result = new Map<string, StoredRecord>();
    for (const { ref, family, id, embedded } of wanted) {
      const holder = this.stored(family, id);
      const record = holder && embedded ? this.registry.heldByKey(holder).get(recordKey(this.registry.familyOf(ref.type), ref.id)) : holder;
      if (record && this.registry.satisfies(record.type, [ref.type])) result.set(refKey(ref), record);
    }
    return result;
  }

  /** Reads the records of refs and uuids together (one batched read), so that loading them one by one afterwards reads nothing. */
  async prefetch(refs: readonly Ref[], uuids: readonly string[]): Promise<void> {
    const byUuid = uuids.map((uuid) => this.uuidKey(uuid)).filter((key) => key !== undefined);
    await this.fetch([...refs.map((ref) => this.registry.storageOf(ref)), ...byUuid]);
  }

  /**
   * The item a uuid names: its record's (lib/store/uuids.ts), or, for a uuid made of its holder's and a
   * slot (a request's, lib/domain/labware-ids.ts), its holder's with that slot.
   */
  private uuidKey(raw: string): UuidKey | undefined {
    const uuid = raw.toLowerCase();
    const own = decodeUuid(uuid);
    const held = own ? undefined : parseHeldUuid(uuid);
    const decoded = own ?? (held && decodeUuid(held.holderUuid));
    const family = decoded && this.registry.familyOfCode(decoded.code);
    return family ? { uuid, family, id: decoded!.id, ...(held ? { held } : {}) } : undefined;
  }

  /** The record a held uuid names in its holder, if the holder's types place records by slot (EmbeddedDef.atSlot): that one alone, not all the holder holds. */
  private heldAt(holder: StoredRecord, slot: number): StoredRecord | undefined {
    for (const def of this.registry.embeddedIn(holder.type)) {
      const view = def.embedded!.atSlot?.(holder, slot);
      if (view) return view;
    }
    return undefined;
  }

  /**
   * The keys of uuids that do not decode (strings here) found through the records' alias entries
   * (resource.ts, `uuidAliasIndex`: a uuid a client chose): one consistent batched read of the unique
   * entries, only when such uuids are asked. A uuid with no entry names nothing.
   */
  private async withAliases(keys: readonly (UuidKey | string)[]): Promise<(UuidKey | undefined)[]> {
    const aliases = [...new Set(keys.filter((k): k is string => typeof k === 'string' && UUID_FORMAT.test(k)))];
    const holders = aliases.length > 0 ? await findHolders(UUID_ALIAS_SCOPE, aliases) : new Map();
    return keys.map((key) => {
      if (typeof key !== 'string') return key;
      const hit = holders.get(key);
      return hit && { uuid: key, family: hit.family, id: hit.id };
    });
  }

  async one(ref: Ref): Promise<StoredRecord | undefined> {
    return (await this.load([ref])).get(refKey(ref));
  }

  /** The record with this uuid if it is of one of the given types. */
  async byUuid(uuid: string, types: readonly string[]): Promise<StoredRecord | undefined> {
    return (await this.byUuids([uuid], types))[0];
  }

  /**
   * The records with these uuids (in order; undefined where there is none of the given types, or of any
   * type the API serves with ANY_SERVED_TYPE). A uuid names its record's key (lib/store/uuids.ts), so this
   * is one consistent batched read, never an index that may lag a write; the record must carry exactly that uuid.
   */
  async byUuids(uuids: readonly string[], types: readonly string[] | typeof ANY_SERVED_TYPE): Promise<(StoredRecord | undefined)[]> {
    const decoded = uuids.map((uuid) => this.uuidKey(uuid) ?? uuid.toLowerCase());
    const found = await this.byKeys(await this.withAliases(decoded));
    // A client's uuid (an alias) may decode as this service's by chance: most random uuids parse as a slot
    // of a holder, and about 1 in 1,070 such holders carries a family's code (one of 50 heron receptions
    // could not be found by its uuid). One that decoded and named nothing is looked for as an alias too.
    const misses = decoded.flatMap((key, i) => (found[i] === undefined && typeof key !== 'string' ? [i] : []));
    if (misses.length > 0) {
      const aliased = await this.byKeys(await this.withAliases(misses.map((i) => uuids[i]!.toLowerCase())));
      misses.forEach((i, n) => {
        found[i] = aliased[n];
      });
    }
    // Any served type is one set lookup a record, not a walk of every type's members (a 96-entry collection names ~200 uuids).
    const wanted = types === ANY_SERVED_TYPE ? (type: string) => this.registry.serves(type) : (type: string) => this.registry.satisfies(type, types);
    return found.map((record) => (record && wanted(record.type) ? record : undefined));
  }

  /** The records these keys name (one batched read), each only if it carries exactly the key's uuid. */
  private async byKeys(keys: readonly (UuidKey | undefined)[]): Promise<(StoredRecord | undefined)[]> {
    await this.fetch(keys.filter((k) => k !== undefined));
    return keys.map((key) => {
      const stored = key && this.stored(key.family, key.id);
      const record = stored && key.held ? (stored.uuid === key.held.holderUuid ? this.heldAt(stored, key.held.slot) : undefined) : stored;
      return record && record.uuid === key!.uuid ? record : undefined;
    });
  }
}
