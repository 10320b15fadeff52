import { REQUEST_STATES, requestMachine, type RequestState } from '#lib/domain/machines.ts';
import { ok, quoted, refuse, type Outcome, type Problem } from '#lib/domain/problems.ts';
import { isState, moveTo } from '#lib/domain/state-machine.ts';

/**
 * Request rules (reference-behaviour.md §2.11, §3.2; contract §2): the state a request starts in, the
 * states a PATCH may move it to, and how its order, submission and request type must agree.
 */
export const REQUEST_PRIORITIES = ['high', 'medium', 'low'] as const;

/** A new request starts in the state the client names (any of the machine's states), else where the machine does. */
export function initialRequestState(given: string | null | undefined): Outcome<RequestState> {
  if (given === undefined || given === null) return ok(requestMachine.initial);
  if (isState(requestMachine, given)) return ok(given);
  return refuse([{ code: 'unknown_state', input: ['state'], detail: `a request has no state ${quoted(given)}; it may start in ${REQUEST_STATES.join(', ')}` }]);
}

/** Where a PATCH of `state` leads, or why it may not (the detail names the current, the target and the reachable states). */
export type StateChange = { ok: true; state: RequestState } | { ok: false; detail: string };

/**
 * A PATCH of `state`: the state it already has changes nothing (so a repeated PATCH is harmless); any
 * other target must be reached by one client-requested event of the machine.
 */
export function requestStateChange(current: unknown, target: string): StateChange {
  // A stored state outside the machine would be a fault of ours, not the client's.
  if (!isState(requestMachine, current)) throw new Error(`request in unknown state ${String(current)}`);
  if (target === current) return { ok: true, state: current };
  const step = moveTo(requestMachine, current, target);
  return step.ok ? { ok: true, state: step.state } : step;
}

/** What a new request names, by id: its order (with that order's submission and request types), submission and request type. */
export interface RequestLinks {
  /** Its submission is null while it waits for one (an order made from a template, lib/resources/orders.ts). */
  order?: { id: number; submission: number | null; requestTypes: readonly number[] };
  submission?: number;
  requestType?: number;
}

/**
 * An order belongs to one submission, so a request of an order is of that submission (an order waiting for
 * its submission takes none yet); and an order that lists request types asks for work of those types only.
 */
export function requestLinkProblems({ order, submission, requestType }: RequestLinks): Problem[] {
  if (!order) return [];
  const problems: Problem[] = [];
  if (order.submission === null) {
    problems.push({
      code: 'other_submission',
      input: ['order'],
      detail: `order ${order.id} is in no submission yet: submit it first (POST submissions with order_uuids)`,
    });
  } else if (submission !== undefined && submission !== order.submission) {
    problems.push({
      code: 'other_submission',
      input: ['order'],
      detail: `order ${order.id} belongs to submission ${order.submission}, not to submission ${submission}`,
    });
  }
  if (requestType !== undefined && order.requestTypes.length > 0 && !order.requestTypes.includes(requestType)) {
    problems.push({
      code: 'not_ordered',
      input: ['request_type'],
      detail: `request type ${requestType} is not one of the request types of order ${order.id} (${order.requestTypes.join(', ')})`,
    });
  }
  return problems;
}

/** The values of a request's metadata, as the request renders them in `options`: those that are set. */
export function requestOptions(metadata: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== null && value !== undefined));
}

/** Requests still to be worked on (the reference's "opened" states): their submission is their receptacle's pool. */
const OPEN_REQUEST_STATES: readonly string[] = ['pending', 'blocked', 'started'];
export const isOpenRequest = (state: unknown): boolean => OPEN_REQUEST_STATES.includes(String(state));
