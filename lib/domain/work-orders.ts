import type { RequestChange } from '#lib/domain/request-books.ts';

/**
 * Work orders (the reference's WorkOrder, WorkOrder::Factory and Request::Traction::GridIon): when a
 * submission of GridION requests is built, one work order per source receptacle, over that receptacle's
 * requests; a change of the work order's state or risk is made to each of its requests too. Pure.
 */

/** The request type whose submissions make work orders (the reference's `Request::Traction::GridIon`, key as its traction rake task creates it). */
export const WORK_ORDER_REQUEST_TYPE = 'traction_grid_ion';

/** What a work order's quantity counts: its requests, one flowcell each (the reference's WorkOrder#quantity_units). */
export const QUANTITY_UNIT = 'flowcells';

/** A request a work order may be made of: its id, its source receptacle (as a key), its state and its options (the reference's request metadata). */
export interface WorkRequest {
  id: number;
  asset: string;
  state: string;
  options: Readonly<Record<string, unknown>>;
}

/** A work order to make: its requests, its state (its first request's), its options (its first request's, blank values left out, as the reference renders them) and quantity. */
export interface PlannedWorkOrder<R extends WorkRequest> {
  requests: R[];
  state: string;
  options: Record<string, unknown>;
  at_risk: boolean;
  quantity: { number: number; unit_of_measurement: string };
}

/** Blank as the reference's `blank?` has it (false is blank there). */
const blank = (value: unknown) => value === null || value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0);

/** A work order's options as the reference renders them: its example request's metadata, blank values left out. */
export const visibleOptions = (options: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => !blank(value)));

/** The work orders of a submission's requests (the reference's WorkOrder::Factory#create_work_orders!): grouped by source receptacle, in the order first met. */
export function workOrdersOf<R extends WorkRequest>(requests: readonly R[]): PlannedWorkOrder<R>[] {
  const byAsset = new Map<string, R[]>();
  for (const request of requests) (byAsset.get(request.asset) ?? byAsset.set(request.asset, []).get(request.asset)!).push(request);
  return [...byAsset.values()].map((group) => {
    const example = group[0]!;
    return {
      requests: group,
      state: example.state,
      options: visibleOptions(example.options),
      at_risk: example.options.customer_accepts_responsibility === true,
      quantity: { number: group.length, unit_of_measurement: QUANTITY_UNIT },
    };
  });
}

/** A work order's change as PATCH asks it (absent: unchanged). */
export interface WorkOrderChange {
  state?: string;
  at_risk?: boolean;
}

/**
 * What a work order's change does to its requests (the reference's WorkOrder#state= and #at_risk=): each
 * takes the state as given (its GridIon requests have no state machine), and the risk as its
 * `customer_accepts_responsibility`.
 */
export function requestChangesOf(requests: readonly Pick<WorkRequest, 'id' | 'options'>[], change: WorkOrderChange): Map<number, RequestChange> {
  return new Map(
    requests.map((request) => [
      request.id,
      {
        ...(change.state === undefined ? {} : { state: change.state }),
        ...(change.at_risk === undefined ? {} : { options: { ...request.options, customer_accepts_responsibility: change.at_risk } }),
      },
    ]),
  );
}
