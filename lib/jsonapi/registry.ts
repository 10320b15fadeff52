import { idFilter, type EmbeddedDef, type IndexDef, type ResourceDef, type ReverseDef } from '#lib/jsonapi/resource.ts';
import { recordKey, refsOf, type Ref, type StoredRecord } from '#lib/store/records.ts';
import { listRef, type RecordModel, type TermSpec } from '#lib/store/write-plan.ts';
import { familyCode } from '#lib/store/uuids.ts';

/** A record's embedded records by type, and the attrs, rels and type they were built from. */
interface HeldViews {
  attrs: StoredRecord['attrs'];
  rels: StoredRecord['rels'];
  type: string;
  byType: Map<string, readonly StoredRecord[]>;
  /** All of them by `family:id` (recordKey), once asked for. */
  byKey?: ReadonlyMap<string, StoredRecord>;
}

/** A view shared by every reader of its holder: none may change it. */
function frozen(view: StoredRecord): StoredRecord {
  Object.freeze(view.attrs);
  Object.freeze(view.rels);
  return Object.freeze(view);
}

/** Every resource definition, by type, and what follows from them for storage. */
export class Registry implements RecordModel {
  private readonly defs: Map<string, ResourceDef>;
  /** Embedded types by the type of record that holds them; fixed by the definitions, so worked out once. */
  private readonly embedded = new Map<string, ResourceDef[]>();
  /** The types the API serves: all but internal ones (request books). */
  private readonly served = new Set<string>();

  /** Id families by the code their records' uuids carry (lib/store/uuids.ts). */
  private readonly familiesByCode = new Map<number, string>();
  private readonly referenceFamilies = new Map<string, boolean>();
  /** How each type's records are embedded (`embeddingOf`), undefined for a type stored in items of its own. */
  private readonly embeddings = new Map<string, EmbeddedDef | undefined>();
  /** Families counted in another family's counter (ResourceDef.countedWith). */
  private readonly counters = new Map<string, string>();
  /** Each record's embedded records as last built, with what they were built from (see `viewsOf`). */
  private readonly held = new WeakMap<StoredRecord, HeldViews>();
  /** Each record as the supertypes it was rendered as (see `as`). */
  private readonly supertypeViews = new WeakMap<StoredRecord, Map<string, StoredRecord>>();

  constructor(defs: readonly ResourceDef[]) {
    // Every type filters by id (contract §6): Limber exports by `filter[id]`.
    this.defs = new Map(defs.map((d) => [d.type, { ...d, filters: { id: idFilter(d.type), ...d.filters } }]));
    for (const family of new Set(defs.map((d) => this.familyOf(d.type)))) {
      const code = familyCode(family);
      const other = this.familiesByCode.get(code);
      if (other) throw new Error(`id families ${other} and ${family} have the same uuid code; rename one`);
      this.familiesByCode.set(code, family);
    }
    for (const def of this.defs.values()) {
      if (def.countedWith) this.counters.set(this.familyOf(def.type), def.countedWith);
      for (const parent of def.embedded?.parentTypes ?? []) this.embedded.set(parent, [...(this.embedded.get(parent) ?? []), def]);
      if (!def.internal) this.served.add(def.type);
      if (!def.embedded) continue;
      for (const [name, index] of Object.entries(def.indexes ?? {})) {
        if (index.unique || index.slot || index.counted)
          throw new Error(`${def.type}.${name}: an embedded type's index is carried by its parents, so it can be neither unique, counted nor a lookup slot`);
      }
    }
    for (const def of this.defs.values()) {
      for (const [name, relationship] of Object.entries(def.relationships)) if (relationship.reverse) this.checkReverse(def, name, relationship.reverse);
    }
  }

  /** A reverse relationship must find an aggregate index on a relationship of its type that can point here: a mistake fails at start-up. */
  private checkReverse(def: ResourceDef, name: string, reverse: ReverseDef): void {
    const problem = (why: string) => new Error(`${def.type}.${name} reverses ${reverse.type}.${reverse.relationship}, but ${why}`);
    const source = this.defs.get(reverse.type);
    if (!source) throw problem(`there is no type ${reverse.type}`);
    const pointing = source.relationships[reverse.relationship];
    // A polymorphic type's records are each of a member type: the relationship must point at every member.
    if (!pointing || !(def.members ?? [def.type]).every((type) => this.satisfies(type, pointing.types)))
      throw problem(`${reverse.type} has no relationship ${reverse.relationship} to ${def.type}`);
    const index = this.aggregateIndex(source, reverse.relationship);
    if (!index) throw problem(`${reverse.type} declares no aggregateIndex('${reverse.relationship}')`);
    if (index.unique || index.slot) throw problem(`its index must be neither unique nor in a lookup slot (eventually consistent)`);
  }

  /** The types the API serves (routed, described, listed at the root); internal storage types are not among them. */
  get types(): string[] {
    return [...this.served];
  }

  serves(type: string): boolean {
    return this.served.has(type);
  }

  get(type: string): ResourceDef | undefined {
    return this.defs.get(type);
  }

  require(type: string): ResourceDef {
    const def = this.defs.get(type);
    if (!def) throw new Error(`unknown resource type ${type}`);
    return def;
  }

  familyOfCode(code: number): string | undefined {
    return this.familiesByCode.get(code);
  }

  familyOf(type: string): string {
    return this.defs.get(type)?.family ?? type;
  }

  /** The counter a family's records are counted in (lib/store/counts.ts): its own, or the family its types are `countedWith`. */
  counterOf(family: string): string {
    return this.counters.get(family) ?? family;
  }

  /** Whether the items of a family hold reference data only (every type stored in it `referenceData`): records a write may take from the process's cache (lib/store/reference-records.ts). */
  holdsReferenceData(family: string): boolean {
    let holds = this.referenceFamilies.get(family);
    if (holds === undefined) {
      const types = [...this.defs.values()].filter((def) => this.familyOf(def.type) === family && !def.embedded);
      holds = types.length > 0 && types.every((def) => def.referenceData === true);
      this.referenceFamilies.set(family, holds);
    }
    return holds;
  }

  /** Where a record is stored: its own item, or the item of the aggregate that holds it (a well's plate). */
  storageOf(ref: Ref): { family: string; id: number; embedded: boolean } {
    const embedded = this.embeddingOf(ref.type);
    return embedded
      ? { family: this.familyOf(embedded.parentTypes[0]!), id: embedded.parentId(ref.id), embedded: true }
      : { family: this.familyOf(ref.type), id: ref.id, embedded: false };
  }

  /**
   * How a type's records are embedded, if they are (its own definition's, else its first member's): worked
   * out once per type, since an include level asks it of every record it reaches.
   */
  private embeddingOf(type: string): EmbeddedDef | undefined {
    if (!this.embeddings.has(type))
      this.embeddings.set(
        type,
        [type, ...this.concreteTypes(type)].map((t) => this.defs.get(t)?.embedded).find((e): e is EmbeddedDef => e !== undefined),
      );
    return this.embeddings.get(type);
  }

  /** The aggregate a record belongs to, as `family:id` of the item it is stored in. */
  aggregateKey(ref: Ref): string {
    const { family, id } = this.storageOf(ref);
    return recordKey(family, id);
  }

  /** The name and definition of a type's index on the aggregates of what `relationship` points at, if it has one. */
  private aggregateIndex(def: ResourceDef, relationship: string): (IndexDef & { name: string }) | undefined {
    const entry = Object.entries(def.indexes ?? {}).find(([, index]) => index.aggregatesOf === relationship);
    return entry && { ...entry[1], name: entry[0] };
  }

  /** The scope of the index a reverse relationship reads (checked to exist at start-up). */
  reverseScope(reverse: ReverseDef): string {
    const source = this.require(reverse.type);
    return this.indexScope(source, this.aggregateIndex(source, reverse.relationship)!.name);
  }

  /** Embedded types held by records of `type`. */
  embeddedIn(type: string): readonly ResourceDef[] {
    return this.embedded.get(type) ?? [];
  }

  /**
   * The records of embedded type `def` a record holds (a plate's wells, a book's requests), built once per
   * record as it is: one write reads them for its index entries before and after, its events and its
   * loads, and a 384-request book takes ~0.7 ms to build. A record is never changed in place but one staged
   * and then changed again in the same write, which gets new attrs and rels (lib/store/unit-of-work.ts,
   * `update`): those are what is checked. Frozen, as every caller reads the same records.
   */
  viewsOf(def: ResourceDef, record: StoredRecord): readonly StoredRecord[] {
    const held = this.heldOf(record);
    let views = held.byType.get(def.type);
    if (!views) {
      views = Object.freeze(def.embedded!.extract(record).map(frozen));
      held.byType.set(def.type, views);
    }
    return views;
  }

  /** A record's embedded records of every type by `family:id` (recordKey): a load's lookup, built once per record as it is, as `viewsOf`. */
  heldByKey(record: StoredRecord): ReadonlyMap<string, StoredRecord> {
    const held = this.heldOf(record);
    held.byKey ??= new Map(
      this.embeddedIn(record.type)
        .flatMap((def) => this.viewsOf(def, record))
        .map((view) => [recordKey(view.family, view.id), view]),
    );
    return held.byKey;
  }

  /** What is cached of a record's embedded records, started afresh when its attrs, rels or type are no longer those they were built from. */
  private heldOf(record: StoredRecord): HeldViews {
    let held = this.held.get(record);
    if (!held || held.attrs !== record.attrs || held.rels !== record.rels || held.type !== record.type) {
      held = { attrs: record.attrs, rels: record.rels, type: record.type, byType: new Map() };
      this.held.set(record, held);
    }
    return held;
  }

  /** The count keys of a type's records under one value of a counted index (lib/store/counts.ts). */
  static countKey(type: string, scope: string, value: string): string {
    return `${type}|${scope}#${value}`;
  }

  countsOf(record: StoredRecord): Record<string, number> {
    const counts: Record<string, number> = { [record.type]: 1 };
    const def = this.require(record.type);
    const types = [record.type, ...(def.supertypes ?? [])];
    for (const supertype of def.supertypes ?? []) counts[supertype] = 1;
    for (const [name, index] of Object.entries(def.indexes ?? {})) {
      if (!index.counted) continue;
      for (const value of this.indexValues(index, record)) for (const type of types) counts[Registry.countKey(type, this.indexScope(def, name), value)] = 1;
    }
    for (const def of this.embeddedIn(record.type)) {
      const held = def.embedded!.count(record);
      if (held === 0) continue;
      for (const type of new Set([def.type, ...(def.supertypes ?? [])])) counts[type] = (counts[type] ?? 0) + held;
    }
    return counts;
  }

  lookupsOf(record: StoredRecord): { lookup1?: string; lookup2?: string } {
    const def = this.require(record.type);
    const lookups: { lookup1?: string; lookup2?: string } = {};
    for (const [name, index] of Object.entries(def.indexes ?? {})) {
      if (!index.slot) continue;
      const [value] = this.indexValues(index, record);
      if (value !== undefined) lookups[`lookup${index.slot}`] = `${this.indexScope(def, name)}#${value}`;
    }
    return lookups;
  }

  /** The concrete types a type stands for: its members when polymorphic, else itself. */
  concreteTypes(type: string): readonly string[] {
    return this.defs.get(type)?.members ?? [type];
  }

  /** Whether a record of type `type` (concrete, or a supertype it is rendered as) satisfies a reference to any of `wanted`. */
  satisfies(type: string, wanted: readonly string[]): boolean {
    return wanted.some((w) => w === type || this.concreteTypes(w).includes(type));
  }

  /**
   * A record as a linkage of a polymorphic type names it (`linkedAs`: a plate as `labware`): the same
   * record rendered as that type, one frozen object per record and type so a document holds it once.
   */
  as(record: StoredRecord, type: string): StoredRecord {
    if (record.type === type || !this.defs.get(type)?.members) return record;
    let views = this.supertypeViews.get(record);
    if (!views) {
      views = new Map();
      this.supertypeViews.set(record, views);
    }
    let view = views.get(type);
    if (!view) {
      view = Object.freeze({ ...record, type });
      views.set(type, view);
    }
    return view;
  }

  /** The scope of a type's index, the type named by its definition or (from code that may not import definitions: lib/operations/) by its name. */
  indexScope(type: ResourceDef | string, name: string): string {
    const def = typeof type === 'string' ? this.require(type) : type;
    return def.indexes?.[name]?.scope ?? `${def.type}.${name}`;
  }

  indexValues(index: IndexDef, record: StoredRecord): string[] {
    const raw = index.values ? index.values(record) : refsOf(record.rels[index.aggregatesOf]).map((ref) => this.aggregateKey(ref));
    const values = raw.filter((v) => v !== null && v !== undefined && v !== '');
    return [...new Set(values.map((v) => (index.normalize ?? String)(String(v))))];
  }

  termsOf(record: StoredRecord): TermSpec[] {
    const def = this.require(record.type);
    const terms: TermSpec[] = [];
    for (const [name, index] of Object.entries(def.indexes ?? {})) {
      if (index.slot) continue;
      const scope = this.indexScope(def, name);
      for (const value of this.indexValues(index, record)) {
        const unique = index.unique;
        terms.push(unique === 'retry' ? { scope, value } : unique ? { scope, value, origin: unique } : { scope, value, ref: listRef(record) });
      }
    }
    // The indexes of the records it holds: one entry per distinct value, under the record itself (see ResourceDef.indexes).
    for (const held of this.embeddedIn(record.type)) {
      const indexes = Object.entries(held.indexes ?? {});
      if (indexes.length === 0) continue;
      const views = this.viewsOf(held, record);
      for (const [name, index] of indexes) {
        const values = new Set(views.flatMap((view) => this.indexValues(index, view)));
        for (const value of values) terms.push({ scope: this.indexScope(held, name), value, ref: listRef(record) });
      }
    }
    return terms;
  }

  /** The records of `type` a record is or holds: itself, or those of that embedded type in it (a book's requests). */
  recordsOfType(record: StoredRecord, type: string): StoredRecord[] {
    if (record.type === type) return [record];
    return this.embeddedIn(record.type)
      .filter((def) => def.type === type)
      .flatMap((def) => this.viewsOf(def, record));
  }
}
