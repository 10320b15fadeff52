import * as z from '#lib/zod.ts';
import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { attr, defineResource, lazySchema, timestamps } from '#lib/jsonapi/resource.ts';
import { createPickList, type PickListInput } from '#lib/operations/pick-list.ts';
import { assetsOf } from '#lib/operations/submission-build.ts';
import { linkOf, refsOf, type StoredRecord } from '#lib/store/records.ts';

/**
 * Pick lists (the reference's PickList): receptacles to cherrypick, each for a study and a project. POST
 * builds, in its own write, a submission of `cherrypick` requests with one order per study and project
 * (lib/domain/pick-lists.ts), as a submission with `and_submit` is built (contract §7.3), so the pick list
 * is `built` when the POST answers, `asynchronous` or not. The reference then batches the requests in its
 * CherrypickPipeline; there are no batches here, so `links` are the pick list's own page and its
 * submission's (docs/decisions.md, "Pick lists and work orders"). The pick list stores its submission and
 * orders; `pick_attributes` are read back from the orders, as the reference's are.
 */

const PICK_LIST_STATES = ['pending', 'built'] as const;

const recordId = lazySchema(() => z.number().check(z.int(), z.positive()));
const named = lazySchema(() => z.optional(z.nullable(recordId())));
const receptaclePick = lazySchema(() => z.strictObject({ source_receptacle_id: recordId(), study_id: named(), project_id: named() }));
const labwarePick = lazySchema(() =>
  z.strictObject({
    source_labware_id: z.optional(recordId()),
    source_labware_barcode: z.optional(z.string().check(z.minLength(1))),
    study_id: named(),
    project_id: named(),
  }),
);

/** The picks of pick lists, read back from their orders (one batched read): each receptacle with its order's study and project. */
async function picksOf(ctx: RequestContext, records: StoredRecord[]) {
  const orders = await ctx.loader.load(records.flatMap((r) => refsOf(r.rels.orders)));
  return new Map(
    records.map((record) => [
      record,
      refsOf(record.rels.orders).flatMap((ref) => {
        const order = orders.get(refKey(ref));
        if (!order) return [];
        const [study, project] = [linkOf(order, 'study')?.id ?? null, linkOf(order, 'project')?.id ?? null];
        return assetsOf(order).map(([, id]) => ({ source_receptacle_id: id, study_id: study, project_id: project }));
      }),
    ]),
  );
}

/** The pick list's page and its submission's: where the reference links its batches, the requests are in the submission here. */
async function linksOf(ctx: RequestContext, records: StoredRecord[]) {
  const api = `${ctx.baseUrl}/api/v2`;
  return new Map(
    records.map((record) => {
      const submission = linkOf(record, 'submission');
      return [
        record,
        [
          { name: `Pick-list ${record.id}`, url: `${api}/pick_lists/${record.id}` },
          ...(submission ? [{ name: `Submission ${submission.id}`, url: `${api}/submissions/${submission.id}` }] : []),
        ],
      ];
    }),
  );
}

export const pickLists = defineResource({
  type: 'pick_lists',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...timestamps,
    state: attr('R', () => z.enum(PICK_LIST_STATES)),
    links: attr('R', () => z.array(z.object({ name: z.string(), url: z.string() })), { load: linksOf }),
    pick_attributes: attr('RW', () => z.array(receptaclePick()), { transient: true, load: picksOf }),
    // Write-only, as the reference's: one entry becomes a pick for each receptacle of the labware that holds aliquots.
    labware_pick_attributes: attr('W', () => z.array(labwarePick()), { transient: true }),
    asynchronous: attr('RW', () => z.boolean()),
  },
  relationships: {},
  filters: {},
  create: (ctx, input) => createPickList(ctx, input.attributes as PickListInput),
});
