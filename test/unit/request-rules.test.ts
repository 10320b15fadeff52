import { describe, expect, it } from 'vitest';
import { REQUEST_STATES } from '#lib/domain/machines.ts';
import { initialRequestState, requestLinkProblems, requestOptions, requestStateChange } from '#lib/domain/requests.ts';

describe('initialRequestState', () => {
  it('is the state given when it is one of the machine’s, else pending when none is given', () => {
    for (const state of REQUEST_STATES) expect(initialRequestState(state)).toEqual({ ok: true, value: state });
    expect(initialRequestState(undefined)).toEqual({ ok: true, value: 'pending' });
    expect(initialRequestState(null)).toEqual({ ok: true, value: 'pending' });
  });

  it('refuses anything else, naming the states a request may start in', () => {
    for (const given of ['', 'done', 'Pending', 'in progress']) {
      expect(initialRequestState(given)).toEqual({
        ok: false,
        problems: [
          {
            code: 'unknown_state',
            input: ['state'],
            detail: `a request has no state ${JSON.stringify(given)}; it may start in pending, started, passed, failed, cancelled, blocked, hold`,
          },
        ],
      });
    }
  });
});

describe('requestStateChange', () => {
  it('moves by a client-requested event of the machine', () => {
    expect(requestStateChange('pending', 'started')).toEqual({ ok: true, state: 'started' });
    expect(requestStateChange('hold', 'cancelled')).toEqual({ ok: true, state: 'cancelled' });
    expect(requestStateChange('cancelled', 'pending')).toEqual({ ok: true, state: 'pending' });
    expect(requestStateChange('failed', 'passed')).toEqual({ ok: true, state: 'passed' });
  });

  it('accepts the state the request already has, changing nothing', () => {
    for (const state of REQUEST_STATES) expect(requestStateChange(state, state)).toEqual({ ok: true, state });
  });

  it('refuses other moves and unknown states, naming the current state, the target and the reachable states', () => {
    expect(requestStateChange('pending', 'passed')).toEqual({
      ok: false,
      detail: 'a request cannot move from pending to passed; from pending it can move to started, cancelled, blocked, hold',
    });
    // A blocked request is unblocked (to pending) before it starts.
    expect(requestStateChange('blocked', 'started')).toEqual({
      ok: false,
      detail: 'a request cannot move from blocked to started; from blocked it can move to pending',
    });
    expect(requestStateChange('started', 'done')).toEqual({
      ok: false,
      detail: 'a request has no state done; from started it can move to passed, failed, cancelled',
    });
  });

  it('treats a stored state outside the machine as a fault of the service (thrown)', () => {
    expect(() => requestStateChange('done', 'pending')).toThrow(/unknown state done/);
  });
});

describe('requestLinkProblems', () => {
  const order = { id: 5, submission: 3, requestTypes: [1, 2] };

  it('finds none for a request without an order, or one agreeing with its order', () => {
    expect(requestLinkProblems({ submission: 9, requestType: 4 })).toEqual([]);
    expect(requestLinkProblems({ order, submission: 3, requestType: 2 })).toEqual([]);
    expect(requestLinkProblems({ order, requestType: 1 })).toEqual([]);
    expect(requestLinkProblems({ order: { ...order, requestTypes: [] }, requestType: 7 })).toEqual([]);
  });

  it('names an order of another submission, and a request type the order does not list', () => {
    expect(requestLinkProblems({ order, submission: 4, requestType: 7 })).toEqual([
      { code: 'other_submission', input: ['order'], detail: 'order 5 belongs to submission 3, not to submission 4' },
      { code: 'not_ordered', input: ['request_type'], detail: 'request type 7 is not one of the request types of order 5 (1, 2)' },
    ]);
  });
});

describe('requestOptions', () => {
  it('are the metadata values that are set', () => {
    expect(requestOptions({ number_of_pools: 2, cells_per_chip_well: null, allowance_band: undefined })).toEqual({ number_of_pools: 2 });
    expect(requestOptions({})).toEqual({});
  });
});
