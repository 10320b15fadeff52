import type { IndexDef, ResourceDef } from '#lib/jsonapi/resource.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { listRef, type RecordModel, type TermSpec } from '#lib/store/unit-of-work.ts';
import { familyCode } from '#lib/store/uuids.ts';

/** Every resource definition, by type, and what follows from them for storage. */
export class Registry implements RecordModel {
  private readonly defs: Map<string, ResourceDef>;
  /** Embedded types by the type of record that holds them; fixed by the definitions, so worked out once. */
  private readonly embedded = new Map<string, ResourceDef[]>();

  /** Id families by the code their records' uuids carry (lib/store/uuids.ts). */
  private readonly familiesByCode = new Map<number, string>();

  constructor(defs: readonly ResourceDef[]) {
    this.defs = new Map(defs.map((d) => [d.type, d]));
    for (const family of new Set(defs.map((d) => this.familyOf(d.type)))) {
      const code = familyCode(family);
      const other = this.familiesByCode.get(code);
      if (other) throw new Error(`id families ${other} and ${family} have the same uuid code; rename one`);
      this.familiesByCode.set(code, family);
    }
    for (const def of defs) {
      for (const parent of def.embedded?.parentTypes ?? []) this.embedded.set(parent, [...(this.embedded.get(parent) ?? []), def]);
    }
  }

  get types(): string[] {
    return [...this.defs.keys()];
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

  /** Embedded types held by records of `type`. */
  embeddedIn(type: string): readonly ResourceDef[] {
    return this.embedded.get(type) ?? [];
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
      for (const child of def.embedded!.extract(record)) {
        for (const type of new Set([child.type, ...(this.defs.get(child.type)?.supertypes ?? [])])) counts[type] = (counts[type] ?? 0) + 1;
      }
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

  /** Whether a record of concrete type `type` satisfies a reference to any of `wanted`. */
  satisfies(type: string, wanted: readonly string[]): boolean {
    return wanted.some((w) => this.concreteTypes(w).includes(type));
  }

  indexScope(def: ResourceDef, name: string): string {
    return def.indexes?.[name]?.scope ?? `${def.type}.${name}`;
  }

  indexValues(index: IndexDef, record: StoredRecord): string[] {
    const values = index.values(record).filter((v) => v !== null && v !== undefined && v !== '');
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
    return terms;
  }
}
