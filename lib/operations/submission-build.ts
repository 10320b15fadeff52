import { labwareOfSlot } from '#lib/domain/labware-ids.ts';
import { requestMachine } from '#lib/domain/machines.ts';
import type { BookedRef } from '#lib/domain/request-books.ts';
import { buildPassage, type ChainedType, maxSubmissionRequests, planRequests, submissionBudgetProblem, submissionMachine } from '#lib/domain/submissions.ts';
import { refKey, type WriteContext } from '#lib/jsonapi/context.ts';
import { lowerCase } from '#lib/jsonapi/resource.ts';
import { JsonApiError } from '#lib/jsonapi/errors.ts';
import { accepted, attributeAt, problemErrors } from '#lib/jsonapi/problems.ts';
import { appendRequests } from '#lib/operations/request-books.ts';
import { createWorkOrders } from '#lib/operations/work-orders.ts';
import { findHolders, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * Building a submission in the write that makes it (contract §7.3): Limber's `and_submit`
 * (lib/resources/submissions.ts) and a pick list's (lib/operations/pick-list.ts) — its orders' requests
 * planned (lib/domain/submissions.ts) and appended to request books, its work orders made, its states passed.
 */

/** An order's assets as it stores them (not rendered): the receptacles its requests start from. */
export const assetsOf = (order: StoredRecord): BookedRef[] => (order.attrs.assets as BookedRef[] | undefined) ?? [];

/** An order's request options (none for an order made without a template). */
export const optionsOf = (order: StoredRecord): Record<string, unknown> => (order.attrs.request_options as Record<string, unknown> | undefined) ?? {};

/** A request type as the submission rules see it. */
export const chained = (type: StoredRecord): ChainedType => ({
  id: type.id,
  key: String(type.attrs.key),
  forMultiplexing: type.attrs.for_multiplexing === true,
});

/** Request types by key, in the order given, those found (one batched read of their key guards, one of the records). */
export async function requestTypesByKey(ctx: WriteContext, keys: readonly string[]): Promise<StoredRecord[]> {
  const holders = await findHolders(ctx.registry.indexScope(ctx.registry.require('request_types'), 'key'), keys.map(lowerCase));
  const refs = keys.flatMap((key): Ref[] => {
    const hit = holders.get(lowerCase(key));
    return hit ? [{ type: 'request_types', id: hit.id }] : [];
  });
  const records = await ctx.loader.load(refs);
  return refs.flatMap((ref) => records.get(refKey(ref)) ?? []);
}

/** Where a problem of building a submission's orders points: the list they came from (`order_uuids`, or a pick list's own). */
export type BuildAt = () => { pointer: string; field: string };

/**
 * Builds the requests of a submission's orders (lib/domain/submissions.ts, planRequests) into its request
 * books: each with its order, its request type, its asset and its order's request options; work after a
 * multiplexing step (no asset yet) in the book of its order's first labware. Answers the requests.
 */
async function buildRequests(
  ctx: WriteContext,
  submission: StoredRecord,
  orders: readonly StoredRecord[],
  types: Map<StoredRecord, StoredRecord[]>,
  at: BuildAt,
) {
  const byId = new Map(orders.map((o) => [o.id, o]));
  const planned = accepted(
    planRequests(
      orders.map((o) => ({
        id: o.id,
        requestTypes: types.get(o)!.map(chained),
        multipliers: (optionsOf(o).multiplier as Record<string, number> | undefined) ?? {},
        assets: assetsOf(o),
      })),
      maxSubmissionRequests(orders.length),
    ),
    at,
  );
  return appendRequests(
    ctx,
    submission.id,
    planned.map(({ order, requestType, asset }) => {
      const options = optionsOf(byId.get(order)!);
      return {
        fields: { state: requestMachine.initial, requestType, order, ...(asset ? { asset } : {}), ...(Object.keys(options).length > 0 ? { options } : {}) },
        labware: labwareOfSlot(assetsOf(byId.get(order)!)[0]![1]),
      };
    }),
  );
}

/**
 * Builds a submission of orders in this write (its orders already linked to it): its requests, the work
 * orders of its GridION requests (lib/operations/work-orders.ts), then building → pending → processing →
 * ready (lib/domain/submissions.ts, buildPassage), each state a version with its `submissions.state_changed`
 * event. Refused past the bound of one request (submissionItems, counting `others` records the caller
 * writes beside it), before anything is written, the problem at `at` (the list the orders came from). Answers the submission as built.
 */
export async function buildSubmission(
  ctx: WriteContext,
  submission: StoredRecord,
  orders: readonly StoredRecord[],
  types: Map<StoredRecord, StoredRecord[]>,
  at: BuildAt,
  others = 0,
): Promise<StoredRecord> {
  const requests = await buildRequests(ctx, submission, orders, types, at);
  const typeKeys = new Map([...types.values()].flat().map((type) => [type.id, String(type.attrs.key)]));
  const workOrders = await createWorkOrders(ctx, requests, typeKeys, new Map(orders.map((o) => [o.id, o])));
  const books = ctx.uow.created.filter((r) => r.type === 'request_books').length;
  const overBudget = submissionBudgetProblem(orders.length, books, requests.length, others + workOrders.length);
  if (overBudget.length > 0) throw JsonApiError.all(problemErrors(overBudget, at));
  let built = submission;
  for (const state of accepted(buildPassage(submissionMachine.initial), attributeAt))
    built = ctx.uow.update(built, { attrs: { state } }, { event: 'state_changed' });
  return built;
}
