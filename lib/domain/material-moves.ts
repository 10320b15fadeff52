import type { Contents } from '#lib/domain/labware.ts';
import { outcome, type Outcome, type Problem } from '#lib/domain/problems.ts';
import { receiveTransfer, type TransferSource } from '#lib/domain/receptacles.ts';

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
