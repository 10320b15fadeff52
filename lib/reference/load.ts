import type { Registry } from '#lib/jsonapi/registry.ts';
import { own, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { findTerms, getRecords, recordKey, type Ref, type RelValue } from '#lib/store/records.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';

/**
 * Loads reference data from a JSON document `{ "<type>": [ { "<attribute>": value, … }, … ], … }`.
 * Each record is found by its type's first unique index (users by login, request types by key, the
 * rest by name): an existing record is updated to match, a missing one created, so loading twice
 * changes nothing. A relationship is given as the natural key of the record it names (or a list of them).
 * Only read-only reference types can be loaded; everything is validated before anything is written.
 */
export interface LoadReport {
  created: number;
  updated: number;
  unchanged: number;
}

export class ReferenceDataError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function naturalKey(def: ResourceDef): { index: string; field: string } {
  for (const [index, { unique }] of Object.entries(def.indexes ?? {})) if (unique && unique !== 'retry') return { index, field: unique.field };
  throw new ReferenceDataError(`${def.type} has no unique field to identify its records`);
}

async function findByNaturalKey(registry: Registry, def: ResourceDef, value: string): Promise<Ref | undefined> {
  const { index } = naturalKey(def);
  const indexDef = def.indexes![index]!;
  const [hit] = await findTerms(registry.indexScope(def, index), (indexDef.normalize ?? String)(value));
  return hit && registry.concreteTypes(def.type).includes(hit.type) ? { type: hit.type, id: hit.id } : undefined;
}

interface Planned {
  def: ResourceDef;
  key: string;
  attrs: Record<string, unknown>;
  rels: Record<string, unknown>;
}

function validate(registry: Registry, document: unknown): Planned[] {
  if (!isObject(document)) throw new ReferenceDataError('reference data must be a JSON object keyed by type');
  const problems: string[] = [];
  const planned: Planned[] = [];
  for (const [type, records] of Object.entries(document)) {
    const def = registry.get(type);
    if (!def || def.methods.includes('create')) {
      problems.push(`${type}: not a reference data type`);
      continue;
    }
    if (!Array.isArray(records)) {
      problems.push(`${type}: must be an array of records`);
      continue;
    }
    const { field } = naturalKey(def);
    records.forEach((record, i) => {
      const where = `${type}[${i}]`;
      if (!isObject(record)) {
        problems.push(`${where}: must be an object`);
        return;
      }
      const attrs: Record<string, unknown> = {};
      const rels: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(record)) {
        const attribute = own(def.attributes, name);
        if (own(def.relationships, name)) rels[name] = value;
        else if (!attribute?.schema) problems.push(`${where}.${name}: not a loadable attribute of ${type}`);
        else {
          const parsed = attribute.schema.safeParse(value);
          if (parsed.success) attrs[name] = parsed.data;
          else problems.push(`${where}.${name}: ${parsed.error.issues.map((issue) => issue.message).join('; ')} (got ${JSON.stringify(value)})`);
        }
      }
      for (const [name, attribute] of Object.entries(def.attributes)) {
        if (attribute.required && attrs[name] === undefined) problems.push(`${where}.${name}: required`);
      }
      if (typeof attrs[field] === 'string') planned.push({ def, key: attrs[field], attrs, rels });
    });
  }
  if (problems.length > 0) throw new ReferenceDataError(`invalid reference data:\n  ${problems.join('\n  ')}`);
  return planned;
}

export async function loadReferenceData(registry: Registry, document: unknown): Promise<LoadReport> {
  const planned = validate(registry, document);
  const report: LoadReport = { created: 0, updated: 0, unchanged: 0 };
  for (const { def, key, attrs, rels: rawRels } of planned) {
    const rels: Record<string, RelValue> = {};
    for (const [name, value] of Object.entries(rawRels)) {
      const relationship = def.relationships[name]!;
      const targetDef = registry.require(relationship.types[0]!);
      const resolve = async (v: unknown) => {
        const ref = typeof v === 'string' ? await findByNaturalKey(registry, targetDef, v) : undefined;
        if (!ref) throw new ReferenceDataError(`${def.type} ${key}: ${name} names ${JSON.stringify(v)}, which is not a ${targetDef.type} record`);
        return ref;
      };
      rels[name] =
        relationship.kind === 'many' ? await Promise.all((Array.isArray(value) ? value : [value]).map(resolve)) : value === null ? null : await resolve(value);
    }
    const uow = new UnitOfWork(registry, new Date().toISOString());
    const existing = await findByNaturalKey(registry, def, key);
    if (existing) {
      const family = registry.familyOf(existing.type);
      const current = (await getRecords([{ family, id: existing.id }])).get(recordKey(family, existing.id))!;
      const after = uow.update(current, { attrs, rels });
      if (after === current) report.unchanged++;
      else report.updated++;
    } else {
      await uow.create(def.type, { attrs, rels });
      report.created++;
    }
    await uow.commit();
  }
  return report;
}
