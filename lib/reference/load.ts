import { isDeepStrictEqual } from 'node:util';
import { tagSetAdapterTypeProblem, type TagGroupAdapter } from '#lib/domain/tag-sets.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { own, type RelationshipDef, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { findTerms, getRecords, linkOf, recordKey, type Ref, type RelValue } from '#lib/store/records.ts';
import { forgetReferenceRecord } from '#lib/store/reference-records.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { referenceUuid } from '#lib/store/uuids.ts';

/**
 * Loads reference data from a JSON document `{ "<type>": [ { "<attribute>": value, … }, … ], … }`.
 * Each record is found by its type's first unique index (users by login, request types by key, the
 * rest by name): an existing record is updated to match, a missing one created, so loading twice
 * changes nothing. A relationship is given as the natural key of the record it names (or a list of them):
 * a record already stored or one earlier in the same document. Only reference data types can be loaded
 * (`referenceData`: read-only through the API, or, as purposes, created there by admin keys only);
 * everything, references included, is validated before anything is written.
 */
export interface LoadReport {
  created: number;
  updated: number;
  unchanged: number;
}

export class ReferenceDataError extends Error {}

/** A load's outcome as one line (the admin command line and `npm start` print it). */
export const describeLoad = (r: LoadReport) => `Reference data: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged.`;

/** One problem is one line (the admin command line prints it as is); several are listed a line each. */
const refusal = (problems: string[]) =>
  new ReferenceDataError(problems.length === 1 ? `invalid reference data: ${problems[0]}` : `invalid reference data:\n  ${problems.join('\n  ')}`);

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
  /** Where the record is in the document, for messages (`lots[0]`). */
  where: string;
  key: string;
  attrs: Record<string, unknown>;
  /** The natural keys each relationship names (null clears a to-one). */
  rels: Record<string, string | string[] | null>;
  /** The natural keys each naming attribute (`names`) gives, by the type they name. */
  named: { name: string; target: string; keys: string[] }[];
}

/** The natural keys a relationship value names, or why it cannot name any. */
function namedKeys(registry: Registry, relationship: RelationshipDef, value: unknown): { keys: string | string[] | null } | { problem: string } {
  const target = relationship.types[0]!;
  const targetDef = registry.get(target);
  if (!targetDef) return { problem: `links to ${target}, which this service does not serve yet` };
  if (relationship.resolve || !targetDef.referenceData) return { problem: 'is not loadable: it does not link reference data' };
  if (relationship.kind === 'one')
    return value === null || typeof value === 'string' ? { keys: value } : { problem: `must be the name of a ${target} record or null` };
  const keys = Array.isArray(value) ? value : [value];
  return keys.every((k) => typeof k === 'string') ? { keys } : { problem: `must be a list of names of ${target} records` };
}

const keysOf = (value: string | string[] | null): string[] => (value === null ? [] : Array.isArray(value) ? value : [value]);

function validate(registry: Registry, document: unknown): Planned[] {
  if (!isObject(document)) throw new ReferenceDataError('reference data must be a JSON object keyed by type');
  const problems: string[] = [];
  const planned: Planned[] = [];
  for (const [type, records] of Object.entries(document)) {
    const def = registry.get(type);
    if (!def?.referenceData || def.members) {
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
      const rels: Planned['rels'] = {};
      const named: Planned['named'] = [];
      for (const [name, value] of Object.entries(record)) {
        const attribute = own(def.attributes, name);
        const relationship = own(def.relationships, name);
        if (relationship) {
          const named = namedKeys(registry, relationship, value);
          if ('problem' in named) problems.push(`${where}.${name}: ${named.problem} (got ${JSON.stringify(value)})`);
          else rels[name] = named.keys;
        } else if (!attribute || attribute.get) problems.push(`${where}.${name}: not a loadable attribute of ${type}`);
        else {
          const parsed = attribute.schema.safeParse(value);
          if (parsed.success) {
            attrs[name] = parsed.data;
            if (attribute.names && parsed.data !== null) named.push({ name, target: attribute.names, keys: keysOf(parsed.data as string | string[]) });
          } else problems.push(`${where}.${name}: ${parsed.error.issues.map((issue) => issue.message).join('; ')} (got ${JSON.stringify(value)})`);
        }
      }
      for (const [name, attribute] of Object.entries(def.attributes)) {
        if (attribute.required && attrs[name] === undefined) problems.push(`${where}.${name}: required`);
      }
      for (const [name, relationship] of Object.entries(def.relationships)) {
        if (relationship.required && (rels[name] === undefined || rels[name] === null)) problems.push(`${where}.${name}: required`);
      }
      if (typeof attrs[field] === 'string') planned.push({ def, where, key: attrs[field], attrs, rels, named });
    });
  }
  if (problems.length > 0) throw refusal(problems);
  return planned;
}

/** Each reference must name a record stored already or planned earlier in the document (written before it). */
async function checkReferences(registry: Registry, planned: Planned[]): Promise<void> {
  const plannedBefore = (i: number, def: ResourceDef, key: string) =>
    planned.slice(0, i).some((p) => registry.concreteTypes(def.type).includes(p.def.type) && normalizedKey(p.def, p.key) === normalizedKey(def, key));
  const problems = await Promise.all(
    planned.flatMap(({ def, where, rels, named }, i) =>
      [...Object.entries(rels).map(([name, value]) => ({ name, target: def.relationships[name]!.types[0]!, keys: keysOf(value) })), ...named].flatMap(
        ({ name, target: targetType, keys }) => {
          const target = registry.require(targetType);
          return keys.map(async (key) =>
            plannedBefore(i, target, key) || (await findByNaturalKey(registry, target, key))
              ? []
              : [`${where}.${name}: names ${JSON.stringify(key)}, which is no ${target.type} record (stored, or earlier in this document)`],
          );
        },
      ),
    ),
  );
  if (problems.flat().length > 0) throw refusal(problems.flat());
}

const normalizedKey = (def: ResourceDef, key: string) => (def.indexes![naturalKey(def).index]!.normalize ?? String)(key);

/**
 * The natural key of the record a to-one relationship of a record (of `def`, by its natural key) names once
 * the records planned before `before` are written: as planned there if the document gives it, else as stored.
 * Null when it names none (or the record is not stored).
 */
async function linkedKey(registry: Registry, planned: Planned[], before: number, def: ResourceDef, key: string, relationship: string): Promise<string | null> {
  const given = planned
    .slice(0, before)
    .findLast((p) => p.def.type === def.type && normalizedKey(p.def, p.key) === normalizedKey(def, key) && p.rels[relationship] !== undefined);
  if (given) return given.rels[relationship] as string | null;
  const ref = await findByNaturalKey(registry, def, key);
  const read = async (r: Ref) => {
    const family = registry.familyOf(r.type);
    return (await getRecords([{ family, id: r.id }])).get(recordKey(family, r.id));
  };
  const stored = ref && (await read(ref));
  const linked = stored && linkOf(stored, relationship);
  const target = linked && (await read(linked));
  return target ? String(target.attrs[naturalKey(registry.require(target.type)).field]) : null;
}

/** The reference's TagSet rule (lib/domain/tag-sets.ts): each tag set's two groups share an adapter type, once this load is written. */
async function checkTagSets(registry: Registry, planned: Planned[]): Promise<void> {
  const groups = registry.require('tag_groups');
  const adapterTypes = registry.require('tag_group_adapter_types');
  const problems = await Promise.all(
    planned.map(async ({ def, where, key, rels }, i) => {
      if (def.type !== 'tag_sets') return [];
      const group = async (name: string | null | undefined): Promise<TagGroupAdapter | null> =>
        name ? { name, adapterType: await linkedKey(registry, planned, i, groups, name, 'tag_group_adapter_type') } : null;
      // An update that names neither group keeps the stored ones.
      const named = async (relationship: string) =>
        rels[relationship] !== undefined ? (rels[relationship] as string | null) : linkedKey(registry, planned, i, def, key, relationship);
      const [tagGroup, tag2Group] = await Promise.all([group(await named('tag_group')), group(await named('tag2_group'))]);
      const problem = tagGroup && tagSetAdapterTypeProblem(tagGroup, tag2Group, (a, b) => normalizedKey(adapterTypes, a) === normalizedKey(adapterTypes, b));
      return problem ? [`${where}.tag_group: ${problem}`] : [];
    }),
  );
  if (problems.flat().length > 0) throw refusal(problems.flat());
}

/**
 * The members of `given` whose value differs from the stored one. A map comes back from DynamoDB in its
 * own order of keys (a transfer template's `transfers`), so values are compared whatever the order of
 * their keys: loading a file again then changes nothing.
 */
function changedMembers<T>(given: Record<string, T>, stored: Record<string, unknown>): Record<string, T> {
  return Object.fromEntries(Object.entries(given).filter(([name, value]) => !isDeepStrictEqual(value, stored[name])));
}

export async function loadReferenceData(registry: Registry, document: unknown): Promise<LoadReport> {
  const planned = validate(registry, document);
  await checkReferences(registry, planned);
  await checkTagSets(registry, planned);
  const report: LoadReport = { created: 0, updated: 0, unchanged: 0 };
  for (const { def, key, attrs, rels: linked } of planned) {
    const rels: Record<string, RelValue> = {};
    for (const [name, value] of Object.entries(linked)) {
      const relationship = def.relationships[name]!;
      const targetDef = registry.require(relationship.types[0]!);
      const resolve = async (v: string) => {
        const ref = await findByNaturalKey(registry, targetDef, v);
        if (!ref) throw new ReferenceDataError(`${def.type} ${key}: ${name} names ${JSON.stringify(v)}, which is not a ${targetDef.type} record`);
        return ref;
      };
      rels[name] = relationship.kind === 'many' ? await Promise.all(keysOf(value).map(resolve)) : value === null ? null : await resolve(value as string);
    }
    const uow = new UnitOfWork(registry, new Date().toISOString());
    const existing = await findByNaturalKey(registry, def, key);
    if (existing) {
      const family = registry.familyOf(existing.type);
      const current = (await getRecords([{ family, id: existing.id }])).get(recordKey(family, existing.id))!;
      const after = uow.update(current, { attrs: changedMembers(attrs, current.attrs), rels: changedMembers(rels, current.rels) });
      if (after === current) report.unchanged++;
      else report.updated++;
    } else {
      // Ids are allocated one record at a time in document order, and the uuid follows from the id and the key.
      const family = registry.familyOf(def.type);
      const [id] = await uow.allocateIds(family, 1);
      await uow.create(def.type, { attrs, rels, id: id!, uuid: referenceUuid(family, id!, def.type, key) });
      report.created++;
    }
    await uow.commit();
    // This process's writes see the change at once; other processes' within the cache's TTL.
    for (const { family, id } of uow.updated.map((u) => u.after)) forgetReferenceRecord(family, id);
  }
  return report;
}
