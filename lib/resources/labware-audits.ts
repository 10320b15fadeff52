import * as z from '#lib/zod.ts';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import { errors, show } from '#lib/jsonapi/errors.ts';
import { positionOf, type Sort } from '#lib/jsonapi/paging.ts';
import { attr, defineResource, isRecordId, timestamp, toOne } from '#lib/jsonapi/resource.ts';
import { readTrailPage, type AuditEntry } from '#lib/store/audit-trail.ts';
import { linkOf, type StoredRecord, type TermHit } from '#lib/store/records.ts';

/**
 * The audit trail of a labware (contract §7.6): one entry per write that touched it or its receptacles,
 * newest first, read with `filter[labware]` (a labware's id or uuid; required, one labware a request). The
 * entries are written by the engine with every write (lib/jsonapi/audit.ts, lib/store/audit-trail.ts),
 * never through this type, which only lists them. Named apart from the reference's `asset_audits` (the
 * audits lab staff record), which is another type.
 */

const TYPE = 'labware_audits';
/** Newest first, the only order a trail is read in; a cursor walk continues after the last entry shown. */
const NEWEST_FIRST: Sort = { field: 'updated_at', descending: true };

const text = () => z.string();

/** An entry of a labware's trail as a record the engine renders: its number is its id, its time orders it. */
const recordOf = (labware: TermHit, entry: AuditEntry): StoredRecord => ({
  family: TYPE,
  type: TYPE,
  id: entry.n,
  uuid: '',
  createdAt: entry.at,
  updatedAt: entry.at,
  version: 1,
  attrs: { ...entry },
  rels: { labware: { type: labware.type, id: labware.id } },
});

/** The labware `filter[labware]` names, by id or uuid: its index hit, or none. */
async function findLabware(ctx: RequestContext, values: string[]): Promise<TermHit[]> {
  const [value] = values;
  const record = isRecordId(value!) ? await ctx.loader.one({ type: 'labware', id: Number(value) }) : await ctx.loader.byUuid(value!, ['labware']);
  return record ? [{ ref: '-', family: record.family, type: record.type, id: record.id }] : [];
}

const checkLabware = (name: string, values: string[]) => {
  if (values.length !== 1)
    throw errors.invalidParameter(`filter[${name}]`, `filter[${name}] - names ${values.length} labware; a trail is read one labware at a time`);
};

export const labwareAudits = defineResource({
  type: TYPE,
  methods: ['list'],
  attributes: {
    occurred_at: attr('R', timestamp, { get: (r) => r.createdAt }),
    who: attr('R', text, {
      get: (r) => {
        const { user, api_key } = r.attrs as unknown as AuditEntry;
        return user?.login ?? user?.uuid ?? api_key;
      },
    }),
    user_uuid: attr('R', () => z.uuid(), { get: (r) => (r.attrs as unknown as AuditEntry).user?.uuid ?? null }),
    user_login: attr('R', text, { get: (r) => (r.attrs as unknown as AuditEntry).user?.login ?? null }),
    api_key: attr('R', text),
    action: attr('R', text),
    changes: attr('R', () => z.record(z.string(), z.number())),
    subjects: attr('R', () => z.array(z.object({ type: z.string(), id: z.string(), attributes: z.record(z.string(), z.unknown()) }))),
    more_subjects: attr('R', () => z.number().check(z.int(), z.gte(0))),
  },
  relationships: { labware: toOne('labware', 'R', { alwaysLinked: true }) },
  filters: {
    labware: {
      check: checkLabware,
      lookup: findLabware,
      matches: (record, values) => values.includes(String(linkOf(record, 'labware')?.id)),
    },
  },

  listing: {
    order: NEWEST_FIRST,
    page: async (ctx, filters, page) => {
      const values = filters.get('labware');
      if (!values) throw errors.invalidParameter('filter[labware]', 'filter[labware] - is required: a trail is read by labware id or uuid');
      const unique = [...new Set(values)];
      checkLabware('labware', unique);
      const [labware] = await findLabware(ctx, unique);
      const ids = filters.get('id');
      const bad = ids?.find((id) => !isRecordId(id));
      if (bad !== undefined) throw errors.invalidParameter('filter[id]', `filter[id] - ${show(bad)} is not an id (a positive integer)`);
      if (!labware) return { records: [], count: 0 };
      const { entries, more, count } = await readTrailPage(labware.id, {
        size: page.size,
        number: page.number,
        // A cursor of this listing holds an entry's time (a forged one without it pages by number).
        ...(page.cursor?.after.updatedAt ? { after: { at: page.cursor.after.updatedAt!, n: page.cursor.after.id }, count: page.cursor.count } : {}),
        ...(ids ? { ids: new Set(ids.map(Number)) } : {}),
      });
      const records = entries.map((entry) => recordOf(labware, entry));
      const last = records.at(-1);
      // The walk's cursor carries the count its first page read, as other listings' do (lib/jsonapi/listing.ts).
      return { records, count, ...(more && last ? { next: { after: positionOf(last, NEWEST_FIRST), count } } : {}) };
    },
  },
});
