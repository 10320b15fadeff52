import * as z from '#lib/zod.ts';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import { errors, show } from '#lib/jsonapi/errors.ts';
import type { CollectionPage } from '#lib/jsonapi/listing.ts';
import { pageOfSorted, positionOf, type Page, type Sort } from '#lib/jsonapi/paging.ts';
import { attr, defineResource, isRecordId, timestamp, toOne } from '#lib/jsonapi/resource.ts';
import { readTrail, type AuditEntry } from '#lib/store/audit-trail.ts';
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

/** An entry as a record the engine renders: its number is its id, its time orders it. */
const recordOf = (entry: AuditEntry): StoredRecord => ({
  family: TYPE,
  type: TYPE,
  id: entry.n,
  uuid: '',
  createdAt: entry.at,
  updatedAt: entry.at,
  version: 1,
  attrs: { ...entry },
  rels: { labware: entry.labware },
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
      const entries = labware ? (await readTrail(labware)).map(recordOf).filter((r) => !ids || ids.includes(String(r.id))) : [];
      return pageOfAudits(entries, page);
    },
  },
});

/** A page of a trail read whole, with the cursor of the next page whenever more follow (so a walk by links is never shifted by new entries). */
function pageOfAudits(sorted: StoredRecord[], page: Page): CollectionPage {
  if (page.cursor) {
    const { items, next } = pageOfSorted(sorted, NEWEST_FIRST, page);
    return { records: items, count: sorted.length, ...(next ? { next } : {}) };
  }
  const records = sorted.slice((page.number - 1) * page.size, page.number * page.size);
  const last = records.at(-1);
  const more = last !== undefined && page.number * page.size < sorted.length;
  return { records, count: sorted.length, ...(more ? { next: { after: positionOf(last, NEWEST_FIRST) } } : {}) };
}
