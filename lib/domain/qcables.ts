import { qcableMachine, type QcableState } from '#lib/domain/machines.ts';
import { isState, moveTo, type Step } from '#lib/domain/state-machine.ts';

/**
 * Qcable rules (reference-behaviour.md §3.1, contract §2). A lot type may name the state its new
 * qcables start in (tag plates `created`, QC plates `pending`); without one they start where the
 * machine does.
 */
export function initialQcableState(configured: unknown): QcableState {
  return isState(qcableMachine, configured) ? configured : qcableMachine.initial;
}

/**
 * A requested target state: the one event leading there from the qcable's current state, or a refusal
 * naming the current state, the target and the states reachable from here.
 */
export function qcableStateChange(current: unknown, target: string): Step<QcableState, string> {
  // A stored state outside the machine would be a fault of ours, not the client's.
  if (!isState(qcableMachine, current)) throw new Error(`qcable in unknown state ${String(current)}`);
  return moveTo(qcableMachine, current, target);
}
