import type { Registry } from '#lib/jsonapi/registry.ts';
import { findByUuid, getRecords, recordKey, type Ref, type StoredRecord } from '#lib/store/records.ts';
import type { UnitOfWork } from '#lib/store/unit-of-work.ts';

export interface ApiKeyIdentity {
  name: string;
  scope: 'read' | 'write';
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

export const refKey = (ref: Ref): string => `${ref.type}:${ref.id}`;
export const refOf = (record: StoredRecord): Ref => ({ type: record.type, id: record.id });

/**
 * Loads records for one request: batched, de-duplicated and cached, so a record read twice costs one
 * read. During a write it sees the unit of work's staged changes first (read-your-writes).
 */
export class Loader {
  private readonly cache = new Map<string, StoredRecord | null>();

  constructor(
    private readonly registry: Registry,
    private readonly staged?: (family: string, id: number) => StoredRecord | null | undefined,
  ) {}

  /** Records for the refs, keyed by `type:id` as asked; a ref whose record is missing or of another type is absent. */
  async load(refs: readonly Ref[]): Promise<Map<string, StoredRecord>> {
    const wanted = refs.map((ref) => ({ ref, family: this.registry.familyOf(ref.type) }));
    const missing = wanted.filter(({ family, ref }) => !this.cache.has(recordKey(family, ref.id)) && this.staged?.(family, ref.id) === undefined);
    if (missing.length > 0) {
      const found = await getRecords(missing.map(({ family, ref }) => ({ family, id: ref.id })));
      for (const { family, ref } of missing) this.cache.set(recordKey(family, ref.id), found.get(recordKey(family, ref.id)) ?? null);
    }
    const result = new Map<string, StoredRecord>();
    for (const { ref, family } of wanted) {
      const staged = this.staged?.(family, ref.id);
      const record = staged === undefined ? this.cache.get(recordKey(family, ref.id)) : staged;
      if (record && this.registry.satisfies(record.type, [ref.type])) result.set(refKey(ref), record);
    }
    return result;
  }

  async one(ref: Ref): Promise<StoredRecord | undefined> {
    return (await this.load([ref])).get(refKey(ref));
  }

  /** The record with this uuid if it is of one of the given types. */
  async byUuid(uuid: string, types: readonly string[]): Promise<StoredRecord | undefined> {
    const hit = await findByUuid(uuid.toLowerCase());
    if (!hit || !this.registry.satisfies(hit.type, types)) return undefined;
    return this.one({ type: hit.type, id: hit.id });
  }
}
