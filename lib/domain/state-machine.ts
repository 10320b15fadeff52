/**
 * Declarative state machines (reference-behaviour.md §3): states, an initial state and named events
 * from → to. Pure: the write that changes a state is conditional on the record's version, so two
 * concurrent transitions of one record cannot both commit (docs/decisions.md, "Qcables, state changes and lots").
 */
export interface Transition<S extends string, E extends string> {
  event: E;
  from: readonly S[];
  to: S;
  /** Fired only by the system (e.g. on an upstream failure), never by a client asking for a target state. */
  manual?: boolean;
}

export interface StateMachine<S extends string, E extends string> {
  /** What the states belong to, for messages ("qcable", "request"). */
  subject: string;
  states: readonly S[];
  initial: S;
  transitions: readonly Transition<S, E>[];
}

export type Step<S extends string, E extends string> = { ok: true; event: E; state: S } | { ok: false; detail: string };

export const defineMachine = <S extends string, E extends string>(machine: StateMachine<S, E>): StateMachine<S, E> => {
  for (const t of machine.transitions) {
    const unknown = [...t.from, t.to].find((s) => !machine.states.includes(s));
    if (unknown !== undefined) throw new Error(`${machine.subject} machine: event ${t.event} names unknown state ${unknown}`);
  }
  return machine;
};

export const isState = <S extends string>(machine: StateMachine<S, string>, value: unknown): value is S =>
  typeof value === 'string' && (machine.states as readonly string[]).includes(value);

/** The transitions a client may ask for from a state (manual ones are the system's). */
const open = <S extends string, E extends string>(machine: StateMachine<S, E>, from: S) =>
  machine.transitions.filter((t) => !t.manual && t.from.includes(from));

/** States one client-requested transition leads to from `from`, in the machine's order of states. */
export const reachableFrom = <S extends string, E extends string>(machine: StateMachine<S, E>, from: S): S[] => {
  const targets = new Set(open(machine, from).map((t) => t.to));
  return machine.states.filter((s) => targets.has(s));
};

const listed = (states: readonly string[]) => (states.length === 0 ? 'none' : states.join(', '));

/** Fires a named event (manual ones included: the system fires those). */
export function fire<S extends string, E extends string>(machine: StateMachine<S, E>, from: S, event: E): Step<S, E> {
  const transition = machine.transitions.find((t) => t.event === event && t.from.includes(from));
  if (transition) return { ok: true, event, state: transition.to };
  const allowed = machine.transitions.filter((t) => t.event === event).flatMap((t) => t.from);
  return { ok: false, detail: `a ${machine.subject} cannot ${event} from ${from} (only from ${listed([...new Set(allowed)])})` };
}

/**
 * Moves to a target state by a client-requested event that leads there from the current state (where
 * two do, as `cancel` and `cancel_before_started` from hold, the first declared names the move: the
 * state reached is the same). Refused: the detail names the current state, the target and the states
 * reachable from here.
 */
export function moveTo<S extends string, E extends string>(machine: StateMachine<S, E>, from: S, target: string): Step<S, E> {
  const leading = open(machine, from).find((t) => t.to === target);
  if (leading) return { ok: true, event: leading.event, state: leading.to };
  const why = isState(machine, target) ? `cannot move from ${from} to ${target}` : `has no state ${target}`;
  return { ok: false, detail: `a ${machine.subject} ${why}; from ${from} it can move to ${listed(reachableFrom(machine, from))}` };
}
