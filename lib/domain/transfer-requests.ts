import { TRANSFER_REQUEST_STATES, transferRequestMachine, type TransferRequestState } from '#lib/domain/machines.ts';
import { moveTo, type Step } from '#lib/domain/state-machine.ts';

/**
 * Transfer requests' rules (reference-behaviour.md §7.1, §7.2): how one moves to a target state, and how
 * the state of what they fill (a receptacle, a labware) derives from theirs.
 */
export { TRANSFER_REQUEST_STATES, type TransferRequestState };

/**
 * The order in which mixed transfer request states name what they fill (reference-behaviour.md §7.2, the
 * reference's `Transfer::State::ALL_STATES`): `started` outranks `pending` when half a plate has started.
 */
const MIXED_STATE_ORDER: readonly string[] = ['started', 'qc_complete', 'pending', 'passed', 'failed', 'cancelled'];

/**
 * The state derived from transfer requests' states: their one common state; when mixed, the first present
 * of MIXED_STATE_ORDER, else `unknown` (as the reference answers, e.g. processed_1 beside processed_2); with
 * none, `fallback` (what the receptacle or labware was made with: its purpose's default, `pending`).
 */
export function derivedState(states: Iterable<string>, fallback: string): string {
  const present = new Set(states);
  if (present.size === 0) return fallback;
  if (present.size === 1) return [...present][0]!;
  return MIXED_STATE_ORDER.find((state) => present.has(state)) ?? 'unknown';
}

/**
 * "Move to state X" (reference-behaviour.md §7.1): the one client-requested event that leads from the
 * current state to X; refused with a detail naming the current state and the reachable ones.
 */
export const moveTransferRequest = (from: TransferRequestState, target: string): Step<TransferRequestState, string> =>
  moveTo(transferRequestMachine, from, target);

/** Events that start the outer requests of the material (reference-behaviour.md §7.1: start, process_1, pass from pending). */
export const startsOuterRequests = (from: TransferRequestState, event: string): boolean =>
  from === 'pending' && (event === 'start' || event === 'process_1' || event === 'pass');
