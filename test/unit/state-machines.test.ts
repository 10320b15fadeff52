import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QCABLE_STATES, qcableMachine, REQUEST_STATES, requestMachine } from '#lib/domain/machines.ts';
import { fire, moveTo, reachableFrom, type StateMachine } from '#lib/domain/state-machine.ts';
import { buildPassage, SUBMISSION_STATES, submissionMachine } from '#lib/domain/submissions.ts';

/**
 * The tables of reference-behaviour.md §3, written out again here as the oracle: `event: from,… > to`.
 * Every (state, event) pair not listed must be refused.
 */
const QCABLE_TABLE = [
  'do_stamp: created > pending',
  'destroy_labware: pending, available > destroyed',
  'qc: pending > qc_in_progress',
  'release: pending > available',
  'pass: qc_in_progress > passed',
  'fail: qc_in_progress, pending > failed',
  'use: available > exhausted',
];
const REQUEST_TABLE = [
  'hold: pending > hold',
  'start: pending, hold > started',
  'pass: started > passed',
  'fail: started > failed',
  'retrospective_pass: failed > passed',
  'retrospective_fail: passed > failed',
  'block: pending > blocked',
  'unblock: blocked > pending',
  'detach: cancelled > pending',
  'reset: hold > pending',
  'cancel: started, hold > cancelled',
  'return: failed, passed > pending',
  'cancel_completed: failed, passed > cancelled',
  'cancel_before_started: pending, hold > cancelled',
];
const REQUEST_MANUAL = [
  'submission_cancelled: pending, cancelled > cancelled',
  'fail_from_upstream: pending > cancelled',
  'fail_from_upstream: started, passed > failed',
  'evented_fail: started, passed > failed',
  'evented_pass: started, failed > passed',
];

/**
 * The moves of sanger/sequencescape app/models/submission/state_machine.rb (configure_state_machine) that a
 * build makes: `built!` when submitted, then SubmissionBuilderJob's `process!` and `ready!`.
 */
const SUBMISSION_TABLE = ['built: building > pending', 'process: processing, failed, pending > processing', 'ready: processing, failed > ready'];

/** `event|from` → to. */
function oracle(rows: string[]): Map<string, string> {
  const result = new Map<string, string>();
  for (const row of rows) {
    const [, event, from, to] = /^(\w+): ([\w, ]+) > (\w+)$/.exec(row)!;
    for (const state of from!.split(', ')) result.set(`${event}|${state}`, to!);
  }
  return result;
}

const cases = [
  { name: 'qcable', machine: qcableMachine as StateMachine<string, string>, states: QCABLE_STATES, clientRows: QCABLE_TABLE, manualRows: [] as string[] },
  { name: 'request', machine: requestMachine as StateMachine<string, string>, states: REQUEST_STATES, clientRows: REQUEST_TABLE, manualRows: REQUEST_MANUAL },
  {
    name: 'submission',
    machine: submissionMachine as StateMachine<string, string>,
    states: SUBMISSION_STATES,
    clientRows: SUBMISSION_TABLE,
    manualRows: [] as string[],
  },
];

describe('a submission built as it is made (contract §7.3)', () => {
  it('passes building → pending → processing → ready, in that order', () => {
    expect(buildPassage('building')).toEqual({ ok: true, value: ['pending', 'processing', 'ready'] });
  });

  it('is refused from any other state, naming it (a ready submission is not built again)', () => {
    for (const state of SUBMISSION_STATES.filter((s) => s !== 'building')) {
      const passage = buildPassage(state);
      expect(passage.ok, state).toBe(false);
      expect(!passage.ok && passage.problems[0]).toMatchObject({
        code: 'not_allowed',
        input: ['and_submit'],
        detail: expect.stringContaining(`from ${state}`),
      });
    }
  });
});

describe.each(cases)('the $name machine', ({ machine, states, clientRows, manualRows }) => {
  const all = oracle([...clientRows, ...manualRows]);
  const events = [...new Set([...all.keys()].map((k) => k.split('|')[0]!))];

  it('fires every allowed transition to its state and refuses every other (state, event)', () => {
    expect(new Set(machine.transitions.map((t) => t.event))).toEqual(new Set(events));
    for (const state of states) {
      for (const event of events) {
        const step = fire(machine, state, event);
        const expected = all.get(`${event}|${state}`);
        if (expected) expect(step, `${event} from ${state}`).toEqual({ ok: true, event, state: expected });
        else {
          expect(step.ok, `${event} from ${state}`).toBe(false);
          expect(step.ok === false && step.detail).toContain(`cannot ${event} from ${state}`);
        }
      }
    }
  });

  it('moves to a target state only where a client event leads there, naming the reachable states when refused', () => {
    const client = oracle(clientRows);
    for (const from of states) {
      const reachable = states.filter((to) => [...client].some(([key, target]) => key.endsWith(`|${from}`) && target === to));
      expect(reachableFrom(machine, from)).toEqual(reachable);
      for (const to of states) {
        const step = moveTo(machine, from, to);
        if (reachable.includes(to)) expect(step).toMatchObject({ ok: true, state: to });
        else {
          expect(step.ok, `${from} → ${to}`).toBe(false);
          const detail = step.ok ? '' : step.detail;
          expect(detail).toContain(from);
          expect(detail).toContain(to);
          expect(detail).toContain(reachable.length > 0 ? reachable.join(', ') : 'none');
        }
      }
    }
    expect(moveTo(machine, states[0]!, 'sideways')).toMatchObject({ ok: false, detail: expect.stringContaining('has no state sideways') });
  });

  it('never leaves its states, whatever events arrive', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...events, 'unknown_event')), fc.array(fc.constantFrom(...states, 'nowhere')), (fired, targets) => {
        let state: string = machine.initial;
        for (const [i, event] of fired.entries()) {
          const step = i % 2 === 0 ? fire(machine, state, event) : moveTo(machine, state, targets[i % Math.max(1, targets.length)] ?? 'nowhere');
          if (step.ok) {
            expect(all.has(`${step.event}|${state}`)).toBe(true);
            state = step.state;
          }
          expect(states).toContain(state);
        }
      }),
    );
  });
});
