import type { Receptacle, TransferRequest } from '#lib/domain/labware.ts';
import { receptacleState } from '#lib/domain/labware.ts';
import { multiplexingRequestMachine, requestMachine, transferRequestMachine, type RequestState } from '#lib/domain/machines.ts';
import { ok, refuse, type Outcome, type Problem } from '#lib/domain/problems.ts';
import { isState, moveTo } from '#lib/domain/state-machine.ts';
import { moveTransferRequest, startsOuterRequests, TRANSFER_REQUEST_STATES } from '#lib/domain/transfer-requests.ts';

/**
 * State changers (reference-behaviour.md §7.3, contract §6): how a labware moves to a target state. Pure:
 * given the targeted receptacles, the target state and the requests involved, they answer the receptacles
 * with their transfer requests moved and the moves of the requests — or every problem, and nothing moves.
 * Which changer a labware has comes from its kind and its purpose (`stateChangerOf`); labware of a qcable,
 * while of the purpose its lot type makes, keeps the qcable machine (lib/domain/qcables.ts) and never comes here.
 */
export type StateChanger = 'standard_plate' | 'input_plate' | 'stock_tube' | 'initial_stock_tube' | 'mx_tube' | 'tube_rack';

/** Tube purposes' `purpose_type`s (the reference's class names) and the changer of each (contract §6). */
const TUBE_CHANGERS: Readonly<Record<string, StateChanger>> = {
  'IlluminaHtp::InitialStockTubePurpose': 'initial_stock_tube',
  'IlluminaHtp::StockTubePurpose': 'stock_tube',
  'Tube::Purpose': 'stock_tube',
  'IlluminaHtp::MxTubePurpose': 'mx_tube',
  'Tube::StandardMx': 'mx_tube',
};
export const TUBE_PURPOSE_TYPES = Object.keys(TUBE_CHANGERS);

/**
 * The changer of a labware: plates by their purpose's `input_plate`; tubes by their purpose's
 * `purpose_type`, and a tube purpose without one (or none) is `Tube::Purpose`, the reference's plain tube
 * purpose: a stock tube; racks the rack's.
 */
export function stateChangerOf(labwareType: string, purpose: { input_plate?: unknown; purpose_type?: unknown } | undefined): StateChanger {
  if (labwareType === 'tube_racks') return 'tube_rack';
  if (labwareType === 'plates') return purpose?.input_plate === true ? 'input_plate' : 'standard_plate';
  return TUBE_CHANGERS[String(purpose?.purpose_type ?? 'Tube::Purpose')] ?? 'stock_tube';
}

/** What a changer knows of a request: its state, its submission, the receptacle it targets, whether it is for multiplexing. */
export interface RequestFacts {
  id: number;
  state: RequestState;
  submission: number | null;
  /** The receptacle id its work ends in (`target_asset`), if set. */
  targetAsset: number | null;
  /** Of a request type for multiplexing (`for_multiplexing`): it moves by the multiplexing machine and ends in its submission's pool tube. */
  forMultiplexing: boolean;
}

/** A receptacle the change may touch: its id (for `target_asset`), its name in messages (`well A1`), its contents. */
export interface TargetedReceptacle {
  id: number;
  name: string;
  receptacle: Receptacle;
  /** Input plates: the requests out of it (its `requests_as_source`). */
  requestsAsSource?: readonly number[];
  /** A tube a by-submission transfer made for a submission (its pool tube): that submission. */
  poolOf?: number;
}

/**
 * Whether a request's work ends in a receptacle (the reference's `requests_as_target`): its target is the
 * receptacle; or, for a request for multiplexing without a target of its own, the receptacle is its
 * submission's pool tube — the reference's `Submission#multiplexed_labware`, the one tube every multiplexed
 * request of a submission ends in, which here a by-submission transfer makes (lib/domain/transfers.ts).
 */
export function endsIn(request: RequestFacts, receptacle: Pick<TargetedReceptacle, 'id' | 'poolOf'>): boolean {
  if (request.targetAsset !== null) return request.targetAsset === receptacle.id;
  return request.forMultiplexing && request.submission !== null && request.submission === receptacle.poolOf;
}

/** Requests still open (the reference's `opened` scope): those an MX tube's change moves. */
const OPENED: readonly RequestState[] = ['pending', 'blocked', 'started'];

export interface StateChangeInput {
  changer: StateChanger;
  /** What the messages call the labware (`plates 12`). */
  labware: string;
  targets: readonly TargetedReceptacle[];
  /** The labware's receptacles that are not targeted (a standard plate keeps a request alive in one of them). */
  others: readonly Receptacle[];
  targetState: string;
  customerAcceptsResponsibility: boolean;
  /** Every request the targeted receptacles name (their aliquots' outer requests, their transfer requests', input plates' requests out of them). */
  requests: ReadonlyMap<number, RequestFacts>;
}

/** A request's move: `to === from` when it is only marked as the customer's responsibility. */
export interface RequestMove {
  id: number;
  from: RequestState;
  to: RequestState;
  customerAcceptsResponsibility: boolean;
}

export interface StateChangeResult {
  /** The targets' receptacles after the change, in the order of `targets`. */
  receptacles: Receptacle[];
  /** Transfer requests moved (a repeated change to the state they are in moves none). */
  transferRequestsMoved: number;
  requestMoves: RequestMove[];
}

/** Where a changer moves the outer requests for a target state (the reference's map_target_state_to_associated_request_state); undefined: it leaves them. */
function outerRequestTarget(changer: StateChanger, target: string): RequestState | undefined {
  switch (changer) {
    case 'standard_plate':
    case 'input_plate':
    case 'stock_tube':
      return target === 'failed' ? 'failed' : undefined;
    case 'mx_tube':
      return target === 'failed' || target === 'passed' ? target : undefined;
    case 'initial_stock_tube':
      return target === 'failed' ? 'failed' : target === 'cancelled' || target === 'pending' ? undefined : 'started';
    case 'tube_rack':
      return undefined;
  }
}

const TERMINATED: readonly string[] = ['failed', 'cancelled'];

/** The transfer requests of a receptacle this changer moves for the target state. */
function movedBy(changer: StateChanger, target: string, transfers: readonly TransferRequest[]): TransferRequest[] {
  switch (changer) {
    case 'input_plate':
      return [];
    case 'stock_tube':
    case 'initial_stock_tube':
      return transfers.filter((t) => !TERMINATED.includes(t.state));
    case 'tube_rack':
      return target === 'passed' ? transfers.filter((t) => !TERMINATED.includes(t.state)) : [...transfers];
    default:
      return [...transfers];
  }
}

/** The outer requests a receptacle's aliquots carry (the work its material is bound for), each once. */
export const outerRequestsOf = (receptacle: Receptacle): number[] => [...new Set(receptacle.aliquots.flatMap((a) => (a.request ? [a.request] : [])))];

/**
 * The outer requests a starting transfer request starts (reference §7.1, the reference's `on_started`):
 * the requests of its submission among those its target's aliquots carry (and its own outer request).
 */
function startedBy(transfer: TransferRequest, receptacle: Receptacle, requests: ReadonlyMap<number, RequestFacts>): number[] {
  const candidates = new Set([...(transfer.outerRequest ? [transfer.outerRequest] : []), ...outerRequestsOf(receptacle)]);
  return [...candidates].filter((id) => {
    const request = requests.get(id);
    return request !== undefined && (transfer.submission === undefined || request.submission === transfer.submission);
  });
}

/** Collects request moves (a request may move on from where an earlier rule moved it: started, then passed) and marks. */
class RequestMoves {
  private readonly moves = new Map<number, RequestMove>();
  constructor(
    private readonly requests: ReadonlyMap<number, RequestFacts>,
    private readonly customerAcceptsResponsibility: boolean,
  ) {}

  private current(id: number): RequestMove | undefined {
    const request = this.requests.get(id);
    return request && (this.moves.get(id) ?? { id, from: request.state, to: request.state, customerAcceptsResponsibility: false });
  }

  /** Records the customer's responsibility on a request (the reference does so on every request a failure concerns, moved or not). */
  mark(id: number): void {
    const current = this.current(id);
    if (current && this.customerAcceptsResponsibility) this.moves.set(id, { ...current, customerAcceptsResponsibility: true });
  }

  /**
   * Moves a request to a state where its machine allows it (a client-requested event, as the reference's
   * `transition_to`), only from the states `onlyFrom` names when given; else leaves it.
   */
  move(id: number, to: RequestState, onlyFrom?: readonly RequestState[]): void {
    const current = this.current(id);
    if (!current || current.to === to || (onlyFrom && !onlyFrom.includes(current.to))) return;
    const step = moveTo(this.requests.get(id)!.forMultiplexing ? multiplexingRequestMachine : requestMachine, current.to, to);
    if (step.ok) this.moves.set(id, { ...current, to: step.state });
  }

  /** Fails (or otherwise moves) a request a failure concerns, marking it when asked. */
  moveMarked(id: number, to: RequestState, onlyFrom?: readonly RequestState[]): void {
    this.mark(id);
    this.move(id, to, onlyFrom);
  }

  get all(): RequestMove[] {
    return [...this.moves.values()].sort((a, b) => a.id - b.id);
  }
}

/**
 * A labware's state change (reference §7.3). Every targeted transfer request the changer moves goes to the
 * target state by the one event of its machine that leads there (one already there stays: a repeated
 * change moves nothing); a move the machine does not allow is a problem naming the receptacle, its state
 * and where it can go. Then the requests:
 * - a transfer request leaving `pending` by start, process_1 or pass starts its outer requests (§7.1);
 * - standard plates failing: the outer requests of the targeted wells fail, unless a request is also in a
 *   well not targeted and not failed; input plates failing: the requests out of the targeted wells fail;
 * - stock tubes failing: their outer requests fail; initial stock tubes: their outer requests start
 *   (failed: fail; cancelled, pending: left); MX tubes passing or failing: the open requests that end in
 *   the tube (`endsIn`: their target, or their submission's pool tube for multiplexed requests) pass or fail;
 * - a request moves only where its machine allows (a pending request does not fail: its work never
 *   started); each is marked `customer_accepts_responsibility` when asked, moved or not.
 * Nothing to move at all (no targeted receptacle with a transfer request; for input plates, no request
 * out of them) is a problem too.
 */
export function changeState(input: StateChangeInput): Outcome<StateChangeResult> {
  const { changer, targets, targetState, requests } = input;
  if (!isState(transferRequestMachine, targetState)) {
    return refuse([
      { code: 'unknown_state', input: ['target_state'], detail: `there is no state ${targetState}; use one of ${TRANSFER_REQUEST_STATES.join(', ')}` },
    ]);
  }
  const problems: Problem[] = [];
  const moves = new RequestMoves(requests, input.customerAcceptsResponsibility);
  let moved = 0;
  const receptacles = targets.map(({ name, receptacle }) => {
    const chosen = new Set(movedBy(changer, targetState, receptacle.transfers ?? []));
    const transfers = (receptacle.transfers ?? []).map((transfer) => {
      if (!chosen.has(transfer) || transfer.state === targetState) return transfer;
      const step = moveTransferRequest(transfer.state, targetState);
      if (!step.ok) {
        problems.push({ code: 'not_allowed', input: ['target_state'], detail: `${name} is ${receptacleState(receptacle)}: ${step.detail}` });
        return transfer;
      }
      moved += 1;
      if (startsOuterRequests(transfer.state, step.event)) for (const id of startedBy(transfer, receptacle, requests)) moves.move(id, 'started');
      return { ...transfer, state: step.state };
    });
    return receptacle.transfers ? { ...receptacle, transfers } : receptacle;
  });
  if (problems.length > 0) return refuse(problems);

  // A stock tube's or rack's failed and cancelled transfer requests stay as they are: with only those, nothing moves either.
  const hasTransfers = targets.some((t) => movedBy(changer, targetState, t.receptacle.transfers ?? []).length > 0);
  const hasRequestsOut = targets.some((t) => (t.requestsAsSource ?? []).length > 0);
  if (changer === 'input_plate' ? !hasRequestsOut : !hasTransfers) {
    const left = changer === 'stock_tube' || changer === 'initial_stock_tube' || (changer === 'tube_rack' && targetState === 'passed');
    const what = changer === 'input_plate' ? 'a request out of it' : `a transfer request into it${left ? ' that is not failed or cancelled' : ''}`;
    return refuse([
      { code: 'nothing_to_change', input: ['target_state'], detail: `no targeted receptacle of ${input.labware} has ${what}: the change would move nothing` },
    ]);
  }

  const outerTarget = outerRequestTarget(changer, targetState);
  if (outerTarget) {
    const problem = moveOuterRequests(input, outerTarget, moves);
    if (problem) return refuse([problem]);
  }
  return ok({ receptacles, transferRequestsMoved: moved, requestMoves: moves.all });
}

/** The outer requests' side of a change (see changeState); a problem when a plate's material has a submission but no request. */
function moveOuterRequests(input: StateChangeInput, to: RequestState, moves: RequestMoves): Problem | undefined {
  const { changer, targets, requests } = input;
  switch (changer) {
    case 'standard_plate': {
      const associated = [...new Set(targets.flatMap((t) => outerRequestsOf(t.receptacle)))];
      if (associated.length === 0 && targets.some((t) => (t.receptacle.transfers ?? []).some((tr) => tr.submission !== undefined))) {
        return {
          code: 'no_outer_request',
          input: ['target_state'],
          detail: `the targeted wells of ${input.labware} have work of a submission but no aliquot names its request`,
        };
      }
      // A request still alive in a well the change leaves alone stays (reference: request_in_other_wells).
      const alive = new Set(input.others.filter((r) => receptacleState(r) !== to).flatMap(outerRequestsOf));
      for (const id of associated) {
        if (alive.has(id)) moves.mark(id);
        else moves.moveMarked(id, to);
      }
      return undefined;
    }
    case 'input_plate':
      for (const id of new Set(targets.flatMap((t) => t.requestsAsSource ?? []))) moves.moveMarked(id, to);
      return undefined;
    case 'stock_tube':
      for (const id of targets.flatMap((t) => outerRequestsOf(t.receptacle))) moves.moveMarked(id, to);
      return undefined;
    case 'initial_stock_tube': {
      const outer = targets.flatMap((t) =>
        movedBy(changer, input.targetState, t.receptacle.transfers ?? []).flatMap((tr) => startedBy(tr, t.receptacle, requests)),
      );
      for (const id of new Set(outer)) moves.moveMarked(id, to, to === 'started' ? ['pending'] : undefined);
      return undefined;
    }
    case 'mx_tube':
      for (const target of targets) {
        for (const request of requests.values()) if (endsIn(request, target) && OPENED.includes(request.state)) moves.moveMarked(request.id, to);
      }
      return undefined;
    default:
      return undefined;
  }
}
