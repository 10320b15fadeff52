import { errors, show } from '#lib/jsonapi/errors.ts';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import type { FilterDef } from '#lib/jsonapi/resource.ts';
import { loadAttributes } from '#lib/jsonapi/render.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { withChildren } from '#lib/resources/lineage.ts';

/**
 * The filters Limber's searches send on plates, tubes and labware (contract §6; its ongoing-plates search
 * and pipeline work-in-progress page): none has an index of its own, so each tests the records the other
 * filters (or the type's listing) give (lib/jsonapi/listing.ts, `matchingRecords`).
 */

function oneValue(name: string, values: string[]): string {
  if (values.length !== 1) throw errors.invalidParameter(`filter[${name}]`, `filter[${name}] takes one value, got ${values.length}`);
  return values[0]!;
}

/** `true` or `false`, as Limber's client sends booleans. */
function flag(name: string, values: string[]): boolean {
  const value = oneValue(name, values).toLowerCase();
  if (value !== 'true' && value !== 'false')
    throw errors.invalidParameter(`filter[${name}]`, `filter[${name}] - must be true or false, got ${show(values[0])}`);
  return value === 'true';
}

/**
 * The instant a `*_gt` value names: a date alone (`2026-10-27`, what Limber sends) its start (UTC); a date and
 * time that instant, in the offset it gives (`Z`, `+01:00`, Ruby's `2026-10-27 15:00:00 +0100`), else in UTC.
 * The reference compares with the value's date only (`value.to_date`); here a time given counts, so that a
 * client asking for what changed after an instant it saw gets exactly that (docs/decisions.md, "What Limber's
 * pages read").
 */
const INSTANT = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?) ?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

function instantOf(name: string, values: string[]): string {
  const value = oneValue(name, values);
  const [, day, time, zone] = INSTANT.exec(value.trim()) ?? [];
  const offset = !zone || zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '') || '00'}`;
  const at = day === undefined ? Number.NaN : Date.parse(`${day}T${time ?? '00:00'}${offset}`);
  // Date.parse rolls 2026-02-30 over to March: the day must be the one named.
  if (Number.isNaN(at) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day)
    throw errors.invalidParameter(
      `filter[${name}]`,
      `filter[${name}] - must be a date (YYYY-MM-DD) or a time (YYYY-MM-DDThh:mm:ss, with an offset or in UTC), got ${show(value)}`,
    );
  return new Date(at).toISOString();
}

/** Records whose timestamp is strictly later than the instant named: one made at that very instant is not. */
const after = (name: string, time: (r: StoredRecord) => string): FilterDef => ({
  check: instantOf,
  test: (_ctx, records, values) => {
    const instant = instantOf(name, values);
    return records.map((r) => time(r) > instant);
  },
  ...(name === 'updated_at_gt' ? { updatedAfter: (values: string[]) => instantOf(name, values) } : {}),
});

/** Keeps labware without children (none made from them yet: "not used"). */
const childless = async (ctx: RequestContext, records: StoredRecord[]) => {
  const parents = await withChildren(ctx, records);
  return records.map((r) => !parents.has(r.id));
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Users named by uuid (any of them), each a uuid. */
function userUuids(name: string, values: string[]): string[] {
  const bad = values.find((value) => !UUID.test(value));
  if (bad !== undefined) throw errors.invalidParameter(`filter[${name}]`, `filter[${name}] - must be a user's uuid, got ${show(bad)}`);
  return values;
}

export const labwareLifecycleFilters: Record<string, FilterDef> = {
  /** Any of the states; the state is derived from the labware's transfer requests, as rendered. */
  state: {
    test: async (ctx, records, values) => {
      const wanted = new Set(values);
      // Racks load theirs from their tubes (lib/resources/tube-racks.ts); plates and tubes derive theirs from the record.
      const loaded = await loadAttributes(ctx, records, new Map(records.map((r) => [r.type, new Set(['state'])])));
      return records.map((r) => wanted.has(String(loaded.get(r)?.get('state') ?? ctx.registry.require(r.type).attributes.state?.get?.(r))));
    },
  },
  /** `false`: only labware without children (the reference's `include_labware_with_children`); `true`: all. */
  include_used: {
    check: flag,
    keepsAll: (values) => flag('include_used', values),
    test: (ctx, records, values) => (flag('include_used', values) ? records.map(() => true) : childless(ctx, records)),
  },
  /** `true`: only labware without children; `false`: all. */
  without_children: {
    check: flag,
    keepsAll: (values) => !flag('without_children', values),
    test: (ctx, records, values) => (flag('without_children', values) ? childless(ctx, records) : records.map(() => true)),
  },
  created_at_gt: after('created_at_gt', (r) => r.createdAt),
  updated_at_gt: after('updated_at_gt', (r) => r.updatedAt),
  /**
   * Labware owned by any of the users: the last to make it, move material into it or tag it (the
   * reference's plate owner, found by its plate searches' `user_uuid`). A uuid of no user owns nothing.
   */
  user_uuid: {
    check: userUuids,
    test: async (ctx, records, values) => {
      const users = await ctx.loader.byUuids(userUuids('user_uuid', values), ['users']);
      const owners = new Set(users.flatMap((user) => (user ? [user.id] : [])));
      return records.map((r) => owners.has(labwareAttrs(r).owner ?? 0));
    },
  },
};
