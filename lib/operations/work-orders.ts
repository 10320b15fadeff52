import { labwareOfSlot, slotOf } from '#lib/domain/labware-ids.ts';
import { requestChangesOf, visibleOptions, WORK_ORDER_REQUEST_TYPE, workOrdersOf, type WorkOrderChange } from '#lib/domain/work-orders.ts';
import { refKey, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { changeRequests } from '#lib/operations/request-books.ts';
import { linkOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * Work orders (lib/domain/work-orders.ts): made with the requests of a submission as it is built
 * (lib/operations/submission-build.ts), and changed with their requests (PATCH work_orders). A work order
 * stores the ids of its requests (`requests`, not rendered), so a change finds their books in one read.
 */

const WORK_ORDERS = 'work_orders';

/** The samples each receptacle holds, by receptacle key (one batched read of their labware). */
async function samplesIn(ctx: RequestContext, receptacles: readonly Ref[]): Promise<Map<string, Ref[]>> {
  const labwareRef = (receptacle: Ref): Ref => ({ type: 'labware', id: labwareOfSlot(receptacle.id) });
  const labware = await ctx.loader.load(receptacles.map(labwareRef));
  return new Map(
    receptacles.map((receptacle) => {
      const record = labware.get(refKey(labwareRef(receptacle)));
      const aliquots = (record && labwareAttrs(record).receptacles[slotOf(receptacle.id) - 1]?.aliquots) ?? [];
      return [refKey(receptacle), [...new Set(aliquots.map((a) => a.sample))].map((id) => ({ type: 'samples', id }))];
    }),
  );
}

/**
 * Stages the work orders of a submission's new requests (the reference's GridIon requests register them
 * for when their submission is built): one per source receptacle of the requests of
 * WORK_ORDER_REQUEST_TYPE, for the study and project of its first request's order. `typeKeys`: request
 * type ids to keys; `orders`: the submission's orders by id. Their ids are reserved with one call.
 */
export async function createWorkOrders(
  ctx: WriteContext,
  requests: readonly StoredRecord[],
  typeKeys: ReadonlyMap<number, string>,
  orders: ReadonlyMap<number, StoredRecord>,
): Promise<StoredRecord[]> {
  const ofType = requests.filter((r) => typeKeys.get(linkOf(r, 'request_type')!.id) === WORK_ORDER_REQUEST_TYPE && linkOf(r, 'asset'));
  if (ofType.length === 0) return [];
  const planned = workOrdersOf(
    ofType.map((record) => ({
      id: record.id,
      asset: refKey(linkOf(record, 'asset')!),
      state: String(record.attrs.state),
      options: record.attrs.options as Record<string, unknown>,
      record,
    })),
  );
  const assets = planned.map(({ requests: [first] }) => linkOf(first!.record, 'asset')!);
  const [samples, ids] = await Promise.all([samplesIn(ctx, assets), ctx.uow.allocateIds(ctx.registry.familyOf(WORK_ORDERS), planned.length)]);
  return Promise.all(
    planned.map(({ requests: group, ...work }, n) => {
      const order = orders.get(linkOf(group[0]!.record, 'order')?.id ?? -1);
      return ctx.uow.create(WORK_ORDERS, {
        id: ids[n]!,
        attrs: { ...work, order_type: WORK_ORDER_REQUEST_TYPE, requests: group.map((r) => r.id) },
        rels: {
          study: order ? linkOf(order, 'study') : null,
          project: order ? linkOf(order, 'project') : null,
          source_receptacle: assets[n]!,
          samples: samples.get(refKey(assets[n]!)) ?? [],
        },
      });
    }),
  );
}

/** The ids of a work order's requests. */
const requestIdsOf = (workOrder: StoredRecord): number[] => (workOrder.attrs.requests as number[] | undefined) ?? [];

/**
 * A work order's change (PATCH `state`, `at_risk`): staged on the work order and on each of its requests
 * (lib/domain/work-orders.ts, requestChangesOf), each book once; one batched read of the books.
 */
export async function changeWorkOrder(ctx: WriteContext, workOrder: StoredRecord, change: WorkOrderChange): Promise<StoredRecord> {
  const refs = requestIdsOf(workOrder).map((id): Ref => ({ type: 'requests', id }));
  const requests = await ctx.loader.load(refs);
  const current = refs.flatMap((ref) => {
    const request = requests.get(refKey(ref));
    return request ? [{ id: request.id, options: (request.attrs.options as Record<string, unknown> | undefined) ?? {} }] : [];
  });
  const changes = requestChangesOf(current, change);
  await changeRequests(ctx, changes);
  // Its options are its first request's as they now are (a risk taken shows there, as in the reference).
  const first = current[0] && changes.get(current[0].id)?.options;
  return ctx.uow.update(workOrder, { attrs: { ...change, ...(first ? { options: visibleOptions(first) } : {}) } });
}
