import * as z from '#lib/zod.ts';
import { pickOrders } from '#lib/domain/pick-lists.ts';
import { submissionMachine } from '#lib/domain/submissions.ts';
import { refKey, refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { pointer } from '#lib/jsonapi/errors.ts';
import { accepted, type Locate } from '#lib/jsonapi/problems.ts';
import { attr, defineResource, lazySchema, timestamps, type WriteInput } from '#lib/jsonapi/resource.ts';
import { readPicks, type PickListEntries } from '#lib/operations/pick-list.ts';
import { booked } from '#lib/operations/request-books.ts';
import { assetsOf } from '#lib/resources/orders.ts';
import { buildSubmission } from '#lib/resources/submissions.ts';
import { linkOf, refsOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

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

/** A problem of a pick, at its member: `/data/attributes/pick_attributes/0/study_id`. */
const pickAt: Locate = (path) => ({ pointer: pointer('data', 'attributes', ...path), field: path.join('.') });

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
  create: (ctx, input) => createPickList(ctx, input),
});

/**
 * A pick list (the reference's PickList#pick_attributes= and #process): its picks read, grouped into
 * orders, a submission of them built with its requests, and the pick list made `pending` then `built`
 * (an event each), all in this write.
 */
async function createPickList(ctx: WriteContext, input: WriteInput): Promise<StoredRecord> {
  const { picks, requestType } = await readPicks(ctx, input.attributes as PickListEntries);
  const planned = accepted(pickOrders(picks), pickAt);
  const refOfPick = new Map(picks.map((p) => [p.receptacle, p.ref]));
  // Every id this write makes beside its requests' books, reserved at once.
  const reserve = (type: string, count: number) => ctx.uow.allocateIds(ctx.registry.familyOf(type), count);
  const [[submissionId], orderIds, [pickListId]] = await Promise.all([reserve('submissions', 1), reserve('orders', planned.length), reserve('pick_lists', 1)]);
  const submission = await ctx.uow.create('submissions', { id: submissionId!, attrs: { state: submissionMachine.initial }, rels: { user: null } });
  const orders = await Promise.all(
    planned.map((order, n) =>
      ctx.uow.create('orders', {
        id: orderIds[n]!,
        attrs: { request_options: {}, assets: order.receptacles.map((id) => booked(refOfPick.get(id)!)) },
        rels: {
          submission: refOf(submission),
          study: order.study === null ? null : { type: 'studies', id: order.study },
          project: order.project === null ? null : { type: 'projects', id: order.project },
          user: null,
          request_types: [refOf(requestType)],
        },
      }),
    ),
  );
  // Past the bound of one request: at the list the picks came from (the pick list is one record more).
  const list = picks.some((p) => p.at[0] === 'pick_attributes') ? 'pick_attributes' : 'labware_pick_attributes';
  const at = () => ({ pointer: pointer('data', 'attributes', list), field: list });
  const built = await buildSubmission(ctx, submission, orders, new Map(orders.map((o) => [o, [requestType]])), { others: 1, at });
  const pickList = await ctx.uow.create('pick_lists', {
    id: pickListId!,
    attrs: { state: 'pending', asynchronous: input.attributes.asynchronous ?? true },
    rels: { submission: refOf(built), orders: orders.map((o): Ref => refOf(o)) },
  });
  return ctx.uow.update(pickList, { attrs: { state: 'built' } }, { event: 'state_changed' });
}
