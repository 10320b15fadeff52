import type { Contents, Receptacle } from '#lib/domain/labware.ts';
import { outcome, type Outcome, type Problem } from '#lib/domain/problems.ts';
import { poolOf, receiveTransfer, type TransferSource } from '#lib/domain/receptacles.ts';
import { isOpenRequest } from '#lib/domain/requests.ts';

/**
 * The one planner of material moves (contract §6; docs/decisions.md, "Transfer requests and the one
 * planner"). Every operation that moves material — the ten transfer types (lib/domain/transfers.ts, a row
 * each yielding moves), transfer request collections, later the creators — says what goes where as a list
 * of moves: a source receptacle into a receptacle of a target labware, with the submission and outer
 * request it carries and its volume. `applyMoves` turns them into transfer requests and aliquot copies in
 * the targets' aggregates (lib/domain/receptacles.ts `receiveTransfer`), all or nothing: the resource reads
 * what the moves name, calls this, and writes each target once.
 */

/** One move: a source receptacle's material into the receptacle at `slot` of the target labware `target` (a key the caller chose). */
export interface MaterialMove<K> {
  source: TransferSource;
  target: K;
  slot: number;
  /** The input a problem of this move concerns (e.g. an entry of a list); by default the rules' own (`source`). */
  input?: readonly string[];
}

/** A request out of a source receptacle that is still open, with the submission it belongs to. */
export interface OpenRequest {
  id: number;
  submission: number;
}

/** A request as a pool's open request: open and of a submission; undefined otherwise. */
export function openRequestOf(request: { id: number; state: unknown; submission: number | null } | undefined): OpenRequest | undefined {
  return request?.submission && isOpenRequest(request.state) ? { id: request.id, submission: request.submission } : undefined;
}

/** Where a receptacle's material goes on (contract §2, §6): its pool (a submission) and the open request of that pool out of it, if any. */
export interface Destiny {
  pool: number | null;
  outerRequest: number | null;
}

/** Where one receptacle's material goes on, from the open requests out of it (in request id order). */
export function destinyOf(receptacle: Receptacle, open: readonly OpenRequest[]): Destiny {
  const pool = poolOf(
    receptacle,
    open.map((r) => r.submission),
  );
  return { pool, outerRequest: outerRequestOf(null, pool, open) };
}

/** A move an entry of a request names, as its problems name it: the receptacles' ids, and the entry's words for them. */
export interface NamedPair {
  source: number;
  target: number;
  /** Where the entry is in the request (`[field, index]`). */
  at: readonly string[];
  names: { source: string; target: string; targetField: string };
}

/** A source named into the same target by two entries is a mistake: a `given_twice` at each later entry's target, naming the entry before it. */
export function pairsNamedOnce(pairs: readonly NamedPair[]): Problem[] {
  const seen = new Map<string, number>();
  return pairs.flatMap(({ source, target, at, names }, i): Problem[] => {
    const pair = `${source}>${target}`;
    const earlier = seen.get(pair);
    seen.set(pair, i);
    return earlier === undefined
      ? []
      : [
          {
            code: 'given_twice',
            input: [...at, names.targetField],
            detail: `entry ${i} ${names.targetField}: ${names.target} already takes ${names.source} (entry ${earlier}); name each source and target pair once`,
          },
        ];
  });
}

/**
 * The outer request of a move (contract §6): the one the client named, else the open request out of the
 * source receptacle in the move's submission, else none (each copied aliquot then keeps its own request).
 */
export function outerRequestOf(
  named: number | null | undefined,
  submission: number | null | undefined,
  openRequestsOut: readonly OpenRequest[],
): number | null {
  if (named) return named;
  if (!submission) return null;
  return openRequestsOut.find((r) => r.submission === submission)?.id ?? null;
}

/**
 * Applies the moves, in order, to the targets' contents: each records one pending transfer request on its
 * target receptacle and copies the source's aliquots (none out of a failed or cancelled source, reference
 * §7.1). Answers the targets' new contents, or every problem (tag clashes, pools past their budget).
 * `label` names a target receptacle in problems (`wells 5001`).
 */
export function applyMoves<K, L extends Contents>(
  targets: ReadonlyMap<K, L>,
  moves: readonly MaterialMove<K>[],
  label: (target: K, slot: number) => string,
): Outcome<Map<K, L>> {
  const contents = new Map(targets);
  const problems: Problem[] = [];
  for (const move of moves) {
    const before = contents.get(move.target);
    if (!before) throw new RangeError(`a move names target ${String(move.target)}, which was not read`);
    const received = receiveTransfer(move.source, before, { slot: move.slot, name: label(move.target, move.slot) });
    if (received.ok) contents.set(move.target, received.value);
    else problems.push(...received.problems.map((p) => (move.input ? { ...p, input: move.input } : p)));
  }
  return outcome(problems, () => contents);
}
