import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stateChangeItems, TRANSACTION_ITEM_LIMIT, transactionItems, workCompletionItems, writtenItems } from '#lib/domain/budgets.ts';
import { receptacleState, type Receptacle, type TransferRequest } from '#lib/domain/labware.ts';
import type { RequestState } from '#lib/domain/machines.ts';
import { changeState, endsIn, stateChangerOf, type RequestFacts, type StateChangeInput, type StateChanger } from '#lib/domain/state-changers.ts';
import { derivedState, TRANSFER_REQUEST_STATES } from '#lib/domain/transfer-requests.ts';
import { completeWork, nextRequests, type WorkRequest } from '#lib/domain/work-completion.ts';

/**
 * The state changers (reference-behaviour.md §7.3; the reference's app/models/state_changer/*.rb and their
 * specs) and work completion (§7.4, app/models/work_completion*.rb) as pure rules.
 */

const SUBMISSION = 7;
const transfer = (n: number, state: TransferRequest['state'], outerRequest?: number): TransferRequest => ({
  n,
  source: 1000 + n,
  state,
  submission: SUBMISSION,
  ...(outerRequest ? { outerRequest } : {}),
});
/** A well holding one aliquot bound for `request`, filled by one transfer request in `state`. */
const well = (request: number | null, state: TransferRequest['state'] = 'pending', n = request ?? 0): Receptacle => ({
  state: 'pending',
  aliquots: request === null ? [] : [{ n, sample: n, study: null, tag: null, tag2: null, library_type: null, request }],
  ...(request === null ? {} : { transfers: [transfer(n, state, request)] }),
});
const requests = (states: Record<number, RequestState>, targetAsset: number | null = null, forMultiplexing = false): Map<number, RequestFacts> =>
  new Map(Object.entries(states).map(([id, state]) => [Number(id), { id: Number(id), state, submission: SUBMISSION, targetAsset, forMultiplexing }]));

const change = (changer: StateChanger, targets: Receptacle[], targetState: string, extra: Partial<StateChangeInput> = {}) =>
  changeState({
    changer,
    labware: 'plates 1',
    targets: targets.map((receptacle, i) => ({ id: 1001 + i, name: `well ${String.fromCharCode(65 + i)}1`, receptacle })),
    others: [],
    targetState,
    customerAcceptsResponsibility: false,
    requests: new Map(),
    ...extra,
  });

const value = <T>(outcome: { ok: true; value: T } | { ok: false; problems: unknown }): T => {
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.problems));
  return outcome.value;
};
const moves = (outcome: Parameters<typeof value>[0]) =>
  (value(outcome) as { requestMoves: { id: number; to: string; customerAcceptsResponsibility: boolean }[] }).requestMoves.map(
    (m) => `${m.id}:${m.to}${m.customerAcceptsResponsibility ? '!' : ''}`,
  );

describe('which state changer (contract §6)', () => {
  it.each([
    ['plates', {}, 'standard_plate'],
    ['plates', { input_plate: true }, 'input_plate'],
    ['tubes', { purpose_type: 'IlluminaHtp::InitialStockTubePurpose' }, 'initial_stock_tube'],
    ['tubes', { purpose_type: 'IlluminaHtp::StockTubePurpose' }, 'stock_tube'],
    ['tubes', { purpose_type: 'Tube::Purpose' }, 'stock_tube'],
    ['tubes', {}, 'stock_tube'],
    ['tubes', { purpose_type: 'IlluminaHtp::MxTubePurpose' }, 'mx_tube'],
    ['tubes', { purpose_type: 'Tube::StandardMx' }, 'mx_tube'],
    ['tube_racks', {}, 'tube_rack'],
  ])('%s of a purpose %j: %s', (type, purpose, changer) => {
    expect(stateChangerOf(type, purpose)).toBe(changer);
  });
});

describe('standard plates (StateChanger::StandardPlate)', () => {
  it('passing pending wells passes their transfer requests and starts their outer requests (the first pass)', () => {
    const result = value(change('standard_plate', [well(1), well(2)], 'passed', { requests: requests({ 1: 'pending', 2: 'pending' }) }));
    expect(result.receptacles.map(receptacleState)).toEqual(['passed', 'passed']);
    expect(result.transferRequestsMoved).toBe(2);
    expect(moves(change('standard_plate', [well(1), well(2)], 'passed', { requests: requests({ 1: 'pending', 2: 'pending' }) }))).toEqual([
      '1:started',
      '2:started',
    ]);
  });

  it.each(['started', 'processed_1'])('moving pending wells to %s starts the requests too (the reference spec’s initial plate)', (target) => {
    expect(moves(change('standard_plate', [well(1)], target, { requests: requests({ 1: 'pending' }) }))).toEqual(['1:started']);
  });

  it('passing started wells moves no request; failing them fails the started requests, marked when the customer accepts', () => {
    expect(moves(change('standard_plate', [well(1, 'started')], 'passed', { requests: requests({ 1: 'started' }) }))).toEqual([]);
    expect(
      moves(
        change('standard_plate', [well(1, 'passed'), well(2, 'passed')], 'failed', {
          requests: requests({ 1: 'started', 2: 'passed' }),
          customerAcceptsResponsibility: true,
        }),
      ),
    ).toEqual(['1:failed!', '2:failed!']);
  });

  it('cancelling leaves the requests (only failed is mapped)', () => {
    expect(moves(change('standard_plate', [well(1, 'passed')], 'cancelled', { requests: requests({ 1: 'passed' }) }))).toEqual([]);
  });

  it('a request also in a well not targeted and not failed stays; with every other such well failed it fails', () => {
    const input = { requests: requests({ 1: 'started' }), customerAcceptsResponsibility: true };
    expect(moves(change('standard_plate', [well(1, 'passed')], 'failed', { ...input, others: [well(1, 'passed', 2)] }))).toEqual(['1:started!']);
    expect(moves(change('standard_plate', [well(1, 'passed')], 'failed', { ...input, others: [well(1, 'failed', 2)] }))).toEqual(['1:failed!']);
  });

  it('a pending request stays when its well fails (its work never started)', () => {
    expect(moves(change('standard_plate', [well(1)], 'failed', { requests: requests({ 1: 'pending' }) }))).toEqual([]);
  });

  it('refuses a move the machine does not allow, naming each well, its state and where it can go', () => {
    const result = change('standard_plate', [well(1, 'passed'), well(2, 'failed')], 'started', { requests: requests({ 1: 'started', 2: 'failed' }) });
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          code: 'not_allowed',
          input: ['target_state'],
          detail: 'well A1 is passed: a transfer request cannot move from passed to started; from passed it can move to failed, qc_complete, cancelled',
        },
        {
          code: 'not_allowed',
          input: ['target_state'],
          detail: 'well B1 is failed: a transfer request cannot move from failed to started; from failed it can move to passed',
        },
      ],
    });
  });

  it('a transfer request already in the target state stays (a repeat moves nothing); no transfer request at all is nothing to change', () => {
    expect(value(change('standard_plate', [well(1, 'passed')], 'passed', { requests: requests({ 1: 'started' }) })).transferRequestsMoved).toBe(0);
    expect(change('standard_plate', [well(null)], 'passed')).toMatchObject({ ok: false, problems: [{ code: 'nothing_to_change' }] });
    expect(change('standard_plate', [well(1)], 'done')).toMatchObject({ ok: false, problems: [{ code: 'unknown_state' }] });
  });

  it('failing work of a submission whose aliquots carry no request is an error (the reference raises)', () => {
    const orphan: Receptacle = { state: 'pending', aliquots: [], transfers: [transfer(1, 'passed')] };
    expect(change('standard_plate', [orphan], 'failed')).toMatchObject({ ok: false, problems: [{ code: 'no_outer_request' }] });
  });
});

describe('input plates (StateChanger::InputPlate)', () => {
  const stockWell = (requestsAsSource: number[]) => ({ id: 1001, name: 'well A1', receptacle: well(null), requestsAsSource });
  it('failing fails the requests out of the wells; no transfer request moves', () => {
    const result = changeState({ ...base('input_plate', 'failed'), targets: [stockWell([3, 4])], requests: requests({ 3: 'started', 4: 'passed' }) });
    expect(moves(result)).toEqual(['3:failed', '4:failed']);
    expect(value(result).transferRequestsMoved).toBe(0);
  });
  it('other targets move nothing; no request out of the wells is nothing to change', () => {
    expect(moves(changeState({ ...base('input_plate', 'passed'), targets: [stockWell([3])], requests: requests({ 3: 'started' }) }))).toEqual([]);
    expect(changeState({ ...base('input_plate', 'failed'), targets: [stockWell([])] })).toMatchObject({ ok: false, problems: [{ code: 'nothing_to_change' }] });
  });
});

function base(changer: StateChanger, targetState: string): StateChangeInput {
  return { changer, labware: 'tubes 2', targets: [], others: [], targetState, customerAcceptsResponsibility: false, requests: new Map() };
}
/** A tube's receptacle with aliquots bound for each request and a transfer request per state. */
const tube = (requestIds: number[], states: TransferRequest['state'][]) => ({
  id: 2001,
  name: 'tube NT1',
  receptacle: {
    state: 'pending' as const,
    aliquots: requestIds.map((request, i) => ({ n: i + 1, sample: i + 1, study: null, tag: null, tag2: null, library_type: null, request })),
    transfers: states.map((state, i) => transfer(i + 1, state, requestIds[i])),
  },
});

describe('tubes (StateChanger::StockTube, InitialStockTube, MxTube)', () => {
  it('stock tubes move the transfer requests not failed or cancelled; failing fails their requests', () => {
    const result = value(
      changeState({ ...base('stock_tube', 'passed'), targets: [tube([1, 2], ['pending', 'failed'])], requests: requests({ 1: 'started', 2: 'started' }) }),
    );
    expect(result.receptacles[0]!.transfers!.map((t) => t.state)).toEqual(['passed', 'failed']);
    expect(moves(changeState({ ...base('stock_tube', 'failed'), targets: [tube([1], ['passed'])], requests: requests({ 1: 'started' }) }))).toEqual([
      '1:failed',
    ]);
  });

  it('initial stock tubes start their pending outer requests on any target but failed (fail), cancelled and pending (left)', () => {
    const at = (target: string, state: RequestState) =>
      moves(changeState({ ...base('initial_stock_tube', target), targets: [tube([1], ['started'])], requests: requests({ 1: state }) }));
    expect(at('passed', 'pending')).toEqual(['1:started']);
    expect(at('passed', 'started')).toEqual([]);
    expect(at('failed', 'started')).toEqual(['1:failed']);
    expect(at('cancelled', 'pending')).toEqual([]);
  });

  it('MX tubes passing or failing pass or fail the open requests whose target is the tube', () => {
    const into = requests({ 1: 'started' }, 2001);
    expect(moves(changeState({ ...base('mx_tube', 'passed'), targets: [tube([1], ['pending'])], requests: into }))).toEqual(['1:passed']);
    expect(
      moves(changeState({ ...base('mx_tube', 'failed'), targets: [tube([1], ['pending'])], requests: into, customerAcceptsResponsibility: true })),
    ).toEqual(['1:failed!']);
    // A request whose work ends elsewhere (a well) is not the tube's: starting it is the only move (its transfer request left pending).
    expect(moves(changeState({ ...base('mx_tube', 'passed'), targets: [tube([1], ['pending'])], requests: requests({ 1: 'pending' }, 999) }))).toEqual([
      '1:started',
    ]);
  });
});

describe('MX tubes a by-submission transfer made (the reference’s Submission#multiplexed_labware)', () => {
  const OTHER = SUBMISSION + 1;
  /** Requests by id: [state, submission, target, for multiplexing]. */
  const facts = (entries: Record<number, [RequestState, number, number | null, boolean]>): Map<number, RequestFacts> =>
    new Map(
      Object.entries(entries).map(([id, [state, submission, targetAsset, forMultiplexing]]) => [
        Number(id),
        { id: Number(id), state, submission, targetAsset, forMultiplexing },
      ]),
    );
  const poolTube = { ...tube([1], ['pending']), poolOf: SUBMISSION };
  const all = facts({
    1: ['pending', SUBMISSION, null, false], // the library request the tube's material is bound for
    2: ['pending', SUBMISSION, null, true], // the submission's multiplexed requests, pending or started
    3: ['started', SUBMISSION, null, true],
    4: ['pending', SUBMISSION, 999, true], // one that ends elsewhere
    5: ['pending', OTHER, null, true], // another submission's
    6: ['passed', SUBMISSION, null, true], // one no longer open
  });

  it('end in it: a request whose target it is, or a multiplexed request of its submission without a target of its own', () => {
    const at = (request: number, receptacle: { id: number; poolOf?: number }) => endsIn(all.get(request)!, receptacle);
    expect([1, 2, 3, 4, 5, 6].filter((id) => at(id, poolTube))).toEqual([2, 3, 6]);
    expect([1, 2, 3, 4, 5].filter((id) => at(id, { id: 999 }))).toEqual([4]);
    // A tube made for no submission's pooling is the end of none of them.
    expect([2, 3, 5].filter((id) => at(id, { id: 2001 }))).toEqual([]);
  });

  it('passing it passes its submission’s open multiplexed requests, from pending too (Request::Multiplexing); its material’s request starts', () => {
    expect(moves(changeState({ ...base('mx_tube', 'passed'), targets: [poolTube], requests: all }))).toEqual(['1:started', '2:passed', '3:passed']);
  });

  it('failing it fails them, from pending too, marked when asked; a library request is left', () => {
    const failed = changeState({ ...base('mx_tube', 'failed'), targets: [poolTube], requests: all, customerAcceptsResponsibility: true });
    expect(moves(failed)).toEqual(['2:failed!', '3:failed!']);
  });

  it('other changers move a multiplexed request by its own machine: a standard plate failing fails one still pending', () => {
    const multiplexed = facts({ 1: ['pending', SUBMISSION, null, true] });
    const library = facts({ 1: ['pending', SUBMISSION, null, false] });
    expect(moves(change('standard_plate', [well(1, 'passed')], 'failed', { requests: multiplexed }))).toEqual(['1:failed']);
    // A pending request of any other type does not fail: its work never started.
    expect(moves(change('standard_plate', [well(1, 'passed')], 'failed', { requests: library }))).toEqual([]);
  });
});

describe('tube racks (StateChanger::TubeRack)', () => {
  it('passing skips failed and cancelled transfer requests; other targets move them all; no request moves', () => {
    const passed = value(changeState({ ...base('tube_rack', 'passed'), targets: [tube([1, 2], ['started', 'failed'])], requests: requests({ 1: 'started' }) }));
    expect(passed.receptacles[0]!.transfers!.map((t) => t.state)).toEqual(['passed', 'failed']);
    expect(passed.requestMoves).toEqual([]);
    const cancelled = value(changeState({ ...base('tube_rack', 'cancelled'), targets: [tube([1, 2], ['started', 'passed'])] }));
    expect(cancelled.receptacles[0]!.transfers!.map((t) => t.state)).toEqual(['cancelled', 'cancelled']);
  });
});

describe('derived states (reference §7.2) and changes, for any transfer request states', () => {
  const states = fc.array(fc.constantFrom(...TRANSFER_REQUEST_STATES), { maxLength: 6 });
  it('a derived state is one of its transfer requests’ states, or the default with none (unknown when mixed with none of the ranked states)', () => {
    fc.assert(
      fc.property(states, (list) => {
        const derived = derivedState(list, 'pending');
        if (list.length === 0) return derived === 'pending';
        return (list as string[]).includes(derived) || (derived === 'unknown' && new Set(list).size > 1);
      }),
    );
  });
  it('after an accepted change every transfer request moved is in the target state, the others untouched', () => {
    fc.assert(
      fc.property(states, fc.constantFrom(...TRANSFER_REQUEST_STATES), (list, target) => {
        const receptacle: Receptacle = { state: 'pending', aliquots: [], transfers: list.map((s, i) => ({ n: i + 1, source: 1, state: s })) };
        const outcome = change('standard_plate', [receptacle], target);
        if (!outcome.ok) return list.length === 0 || outcome.problems.every((p) => p.code === 'not_allowed');
        const after = outcome.value.receptacles[0]!.transfers!.map((t) => t.state);
        return after.every((s) => s === target) && receptacleState(outcome.value.receptacles[0]!) === target;
      }),
    );
  });
});

describe('item budgets', () => {
  it('a plate’s first pass (its requests in one book, whatever its size) is 5 items; a rack of 96 tubes moving no request is the 100 of one transaction, with its requests’ book one write of several', () => {
    expect(transactionItems(stateChangeItems(1, 1))).toBe(5);
    expect(transactionItems(stateChangeItems(1 + 96, 0))).toBe(TRANSACTION_ITEM_LIMIT);
    expect(transactionItems(stateChangeItems(1 + 96, 1))).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    expect(writtenItems(stateChangeItems(1 + 96, 1))).toBe(99);
  });

  it('a work completion is its books and the index entries they gain: a 96-well plate with next requests in one book is 5 items; next requests moved into a rack’s 96 tubes, 100', () => {
    expect(transactionItems(workCompletionItems(1, 0))).toBe(4);
    expect(transactionItems(workCompletionItems(1, 1))).toBe(5);
    expect(transactionItems(workCompletionItems(1, 96))).toBe(TRANSACTION_ITEM_LIMIT);
  });
});

describe('work completion (WorkCompletion::PlateCompletion, LabwareCompletion)', () => {
  const LIB = 1;
  const SEQ = 2;
  const request = (id: number, requestType: number, state: RequestState, asset: number, extra: Partial<WorkRequest> = {}): WorkRequest => ({
    id,
    state,
    submission: SUBMISSION,
    order: 5,
    requestType,
    asset,
    targetAsset: null,
    ...extra,
  });
  const input = (list: WorkRequest[], multiplexing: number[] = []) => ({
    requests: new Map(list.map((r) => [r.id, r])),
    orderRequestTypes: new Map([[5, [LIB, SEQ]]]),
    multiplexing: new Set(multiplexing),
    submissions: new Set([SUBMISSION]),
  });

  it('passes started requests, leaves failed and pending ones, links each to its well once', () => {
    const list = [request(1, LIB, 'started', 11), request(2, LIB, 'failed', 12), request(3, LIB, 'pending', 13, { targetAsset: 99 })];
    const changed = completeWork({
      ...input(list),
      receptacles: [
        { id: 101, outerRequests: [1] },
        { id: 102, outerRequests: [2] },
        { id: 103, outerRequests: [3] },
      ],
    });
    expect(changed.map((r) => [r.id, r.state, r.targetAsset])).toEqual([
      [1, 'passed', 101],
      [2, 'failed', 102],
    ]);
  });

  it('requests of other submissions are left', () => {
    const list = [request(1, LIB, 'started', 11, { submission: 8 })];
    expect(completeWork({ ...input(list), receptacles: [{ id: 101, outerRequests: [1] }] })).toEqual([]);
  });

  it('next requests: by place among the order’s requests; all of them for a multiplexed type; out of the target asset when set', () => {
    const list = [request(1, LIB, 'started', 11), request(2, LIB, 'started', 12), request(3, SEQ, 'pending', 11), request(4, SEQ, 'pending', 12)];
    expect(nextRequests(list[1]!, list, input(list)).map((r) => r.id)).toEqual([4]);
    expect(nextRequests(list[0]!, list, input(list, [LIB])).map((r) => r.id)).toEqual([3, 4]);
    expect(nextRequests({ ...list[0]!, targetAsset: 12 }, list, input(list)).map((r) => r.id)).toEqual([4]);
    expect(nextRequests(list[2]!, list, input(list))).toEqual([]);
    const changed = completeWork({
      ...input(list),
      receptacles: [
        { id: 101, outerRequests: [1] },
        { id: 102, outerRequests: [2] },
      ],
    });
    expect(changed.map((r) => [r.id, r.state, r.asset, r.targetAsset])).toEqual([
      [1, 'passed', 11, 101],
      [2, 'passed', 12, 102],
      [3, 'pending', 101, null],
      [4, 'pending', 102, null],
    ]);
  });
});
