import { describe, expect, it } from 'vitest';
import { QCABLE_STATES } from '#lib/domain/machines.ts';
import { initialQcableState, qcableStateChange } from '#lib/domain/qcables.ts';

describe('initialQcableState', () => {
  it("is the lot type's state when it names one of the machine's states", () => {
    for (const state of QCABLE_STATES) expect(initialQcableState(state)).toBe(state);
  });

  it('is created when the lot type names none (or something that is no state)', () => {
    for (const configured of [undefined, null, '', 'ready', 'Pending', 3]) expect(initialQcableState(configured)).toBe('created');
  });
});

describe('qcableStateChange', () => {
  it('moves by the one event that leads from the current state to the target', () => {
    expect(qcableStateChange('created', 'pending')).toEqual({ ok: true, event: 'do_stamp', state: 'pending' });
    expect(qcableStateChange('pending', 'qc_in_progress')).toEqual({ ok: true, event: 'qc', state: 'qc_in_progress' });
    expect(qcableStateChange('qc_in_progress', 'passed')).toEqual({ ok: true, event: 'pass', state: 'passed' });
    expect(qcableStateChange('pending', 'available')).toEqual({ ok: true, event: 'release', state: 'available' });
    expect(qcableStateChange('available', 'exhausted')).toEqual({ ok: true, event: 'use', state: 'exhausted' });
  });

  it('refuses a move the machine does not allow, naming the current state, the target and the reachable states', () => {
    expect(qcableStateChange('created', 'passed')).toEqual({
      ok: false,
      detail: 'a qcable cannot move from created to passed; from created it can move to pending',
    });
    expect(qcableStateChange('pending', 'pending')).toEqual({
      ok: false,
      detail: 'a qcable cannot move from pending to pending; from pending it can move to failed, available, destroyed, qc_in_progress',
    });
    expect(qcableStateChange('exhausted', 'available')).toEqual({
      ok: false,
      detail: 'a qcable cannot move from exhausted to available; from exhausted it can move to none',
    });
  });

  it('refuses a target that is no state at all, still naming the reachable states', () => {
    expect(qcableStateChange('available', 'used')).toEqual({
      ok: false,
      detail: 'a qcable has no state used; from available it can move to destroyed, exhausted',
    });
  });

  it('treats a stored state outside the machine as a fault of the service (thrown), not a refusal', () => {
    expect(() => qcableStateChange('ready', 'pending')).toThrow(/unknown state ready/);
  });
});
