import { requestMachine, type RequestState } from '#lib/domain/machines.ts';
import { fire } from '#lib/domain/state-machine.ts';

/**
 * Work completion (reference-behaviour.md §7.4, contract §6): the lab says the work of some submissions is
 * done on a labware. Pure: given the labware's receptacles and the requests involved, it answers each
 * request's new state and links.
 */

/** A request as work completion sees it. */
export interface WorkRequest {
  id: number;
  state: RequestState;
  submission: number | null;
  order: number | null;
  requestType: number;
  /** The receptacle the work starts from (none yet for work after a multiplexing step). */
  asset: number | null;
  /** The receptacle the work ended in, once known. */
  targetAsset: number | null;
}

/** A receptacle of the target labware (a well, a tube's receptacle, a racked tube's receptacle) and the outer requests its aliquots carry. */
export interface CompletedReceptacle {
  id: number;
  outerRequests: readonly number[];
}

export interface WorkCompletionInput {
  receptacles: readonly CompletedReceptacle[];
  submissions: ReadonlySet<number>;
  /** Every request of those submissions (the outer requests and the ones after them), by id. */
  requests: ReadonlyMap<number, WorkRequest>;
  /** Each order's request types, in order: the sequence of its work. */
  orderRequestTypes: ReadonlyMap<number, readonly number[]>;
  /** Request types whose requests are pooled for the next step (`for_multiplexing`). */
  multiplexing: ReadonlySet<number>;
}

/** The request type after a request's in its order's sequence, if any. */
function nextRequestType(request: WorkRequest, orderRequestTypes: ReadonlyMap<number, readonly number[]>): number | undefined {
  const sequence = request.order === null ? undefined : orderRequestTypes.get(request.order);
  const at = sequence?.indexOf(request.requestType) ?? -1;
  return at < 0 ? undefined : sequence![at + 1];
}

const byId = (a: WorkRequest, b: WorkRequest) => a.id - b.id;

/**
 * A request's next requests (the reference's `next_requests`): those of its submission of the next request
 * type of its order — out of its target receptacle when it has one; else, for a multiplexed request type,
 * all of them (pooled work goes on together); else the one at the request's own place among its order's
 * requests of its type (in id order: one next request for each).
 */
export function nextRequests(
  request: WorkRequest,
  all: readonly WorkRequest[],
  input: Pick<WorkCompletionInput, 'orderRequestTypes' | 'multiplexing'>,
): WorkRequest[] {
  const next = nextRequestType(request, input.orderRequestTypes);
  if (request.submission === null || next === undefined) return [];
  const ofSubmission = all.filter((r) => r.submission === request.submission);
  const candidates = ofSubmission.filter((r) => r.requestType === next).sort(byId);
  if (request.targetAsset !== null) return candidates.filter((r) => r.asset === request.targetAsset);
  if (input.multiplexing.has(request.requestType)) return candidates;
  const sameOrder = (r: WorkRequest) => r.order === null || r.order === request.order;
  const siblings = ofSubmission.filter((r) => r.requestType === request.requestType && sameOrder(r)).sort(byId);
  const following = candidates.filter(sameOrder)[siblings.findIndex((r) => r.id === request.id)];
  return following ? [following] : [];
}

/**
 * For each receptacle, each outer request of its aliquots in the listed submissions: its next requests
 * (found before it is linked) get the receptacle as their asset, it gets the receptacle as its target if it
 * has none, and it passes where its machine allows (started → passed; a failed or pending request stays).
 * Answers the requests that changed, in id order.
 */
export function completeWork(input: WorkCompletionInput): WorkRequest[] {
  const working = new Map(input.requests);
  for (const receptacle of input.receptacles) {
    for (const id of new Set(receptacle.outerRequests)) {
      const request = working.get(id);
      if (!request || request.submission === null || !input.submissions.has(request.submission)) continue;
      for (const next of nextRequests(request, [...working.values()], input)) working.set(next.id, { ...next, asset: receptacle.id });
      // The reference's `pass if may_pass?`: the pass event, from started only.
      const step = fire(requestMachine, request.state, 'pass');
      working.set(id, { ...request, targetAsset: request.targetAsset ?? receptacle.id, state: step.ok ? step.state : request.state });
    }
  }
  const changed = (r: WorkRequest) => {
    const before = input.requests.get(r.id)!;
    return r.state !== before.state || r.asset !== before.asset || r.targetAsset !== before.targetAsset;
  };
  return [...working.values()].filter(changed).sort(byId);
}
