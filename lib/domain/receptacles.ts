import { MAX_ALIQUOTS_PER_RECEPTACLE } from '#lib/domain/budgets.ts';
import {
  receptacleAt,
  receptacleState,
  withReceptacle,
  type Aliquot,
  type AliquotContent,
  type Contents,
  type Receptacle,
  type TransferRequest,
} from '#lib/domain/labware.ts';
import { ok, outcome, quoted, refuse, type Outcome, type Problem } from '#lib/domain/problems.ts';

/**
 * The rules of what goes into a receptacle (contract §2 "Tag clash"): two aliquots of different samples
 * with the same (tag, tag2) pair cannot be told apart after sequencing, so they may not share a
 * receptacle; "no tag" counts as a value. The same sample with the same tags is the same aliquot.
 */

/** A receptacle of a labware as a rule addresses it: its slot, and the name problems call it by (e.g. `wells 5001`). */
export interface ReceptacleAt {
  slot: number;
  name: string;
}

/** The (tag, tag2) pair that tells pooled samples apart. */
export const tagPair = (a: Pick<Aliquot, 'tag' | 'tag2'>): string => `${a.tag?.oligo ?? '-'}/${a.tag2?.oligo ?? '-'}`;

const clashProblem = (at: ReceptacleAt, heldSample: number, aliquot: AliquotContent, input: string): Problem => ({
  code: 'tag_clash',
  input: [input],
  detail: `tag clash: ${at.name} already holds sample ${heldSample} with the same tags (${quoted(tagPair(aliquot))}) as sample ${aliquot.sample}`,
});

const poolProblem = (at: ReceptacleAt, count: number, input: string): Problem => ({
  code: 'over_budget',
  input: [input],
  detail: `${at.name} would hold ${count} aliquots; a receptacle holds at most ${MAX_ALIQUOTS_PER_RECEPTACLE} (the largest pool)`,
});

/** Numbers new aliquots from the labware's count and puts them into a receptacle. */
function append<L extends Contents>(labware: L, slot: number, receptacle: Receptacle, added: AliquotContent[]): L {
  const numbered = added.map((a, i) => ({ n: labware.aliquotCount + i + 1, ...a }));
  return {
    ...withReceptacle(labware, slot, { ...receptacle, aliquots: [...receptacle.aliquots, ...numbered] }),
    aliquotCount: labware.aliquotCount + added.length,
  };
}

/**
 * Puts an aliquot into a receptacle; the new aliquot is numbered `aliquotCount` of the result. Refused
 * when the receptacle already holds the sample with the same tags, or another sample with them (a tag
 * clash), or when it would pass the pool budget.
 */
export function addAliquot<L extends Contents>(labware: L, at: ReceptacleAt, aliquot: AliquotContent): Outcome<L> {
  const receptacle = receptacleAt(labware, at.slot);
  const held = receptacle.aliquots.find((a) => tagPair(a) === tagPair(aliquot));
  if (held?.sample === aliquot.sample) {
    return refuse([{ code: 'duplicate_aliquot', input: ['sample'], detail: `${at.name} already holds sample ${aliquot.sample} with the same tags` }]);
  }
  if (held) return refuse([clashProblem(at, held.sample, aliquot, 'sample')]);
  const count = receptacle.aliquots.length + 1;
  if (count > MAX_ALIQUOTS_PER_RECEPTACLE) return refuse([poolProblem(at, count, 'receptacle')]);
  return ok(append(labware, at.slot, receptacle, [aliquot]));
}

/**
 * Copies the aliquots of a source receptacle into a receptacle of a labware, as a transfer does: a sample
 * the target already holds with the same tags is merged (the same aliquot, not a second one); another
 * sample with tags the target already holds is a tag clash. A copy carries `outerRequest` as its request
 * when given, else the source aliquot's own (contract §6). Problems concern the input named `source`.
 */
export function copyAliquots<L extends Contents>(source: Receptacle, labware: L, at: ReceptacleAt, outerRequest?: number): Outcome<L> {
  const target = receptacleAt(labware, at.slot);
  const sampleByTags = new Map(target.aliquots.map((a) => [tagPair(a), a.sample]));
  const problems: Problem[] = [];
  const added: AliquotContent[] = [];
  for (const { n: _n, ...aliquot } of source.aliquots) {
    const held = sampleByTags.get(tagPair(aliquot));
    if (held === aliquot.sample) continue;
    if (held !== undefined) {
      problems.push(clashProblem(at, held, aliquot, 'source'));
      continue;
    }
    sampleByTags.set(tagPair(aliquot), aliquot.sample);
    const request = outerRequest ?? aliquot.request;
    added.push(request === undefined ? aliquot : { ...aliquot, request });
  }
  const count = target.aliquots.length + added.length;
  if (problems.length === 0 && count > MAX_ALIQUOTS_PER_RECEPTACLE) problems.push(poolProblem(at, count, 'source'));
  return outcome(problems, () => append(labware, at.slot, target, added));
}

/** What one transfer request moves: its source receptacle (`id`, and its contents), the pool and outer request it carries, the volume. */
export interface TransferSource {
  id: number;
  receptacle: Receptacle;
  /** True when the source is a tube's receptacle, not a well: the transfer request's `source_asset` is then of that type. */
  tube?: boolean;
  /** The submission the material goes on for (contract §2 pools), or none. */
  pool?: number | null;
  /** The request of that submission the material is bound for (contract §6), or none. */
  outerRequest?: number | null;
  volume?: number | null;
}

/** States of a source receptacle whose material no longer moves (reference-behaviour.md §7.1). */
const STOPPED_STATES: ReadonlySet<string> = new Set(['failed', 'cancelled']);

/** Whether material still moves out of a receptacle: not when its (derived) state is failed or cancelled. */
export const movesMaterial = (receptacle: Receptacle): boolean => !STOPPED_STATES.has(receptacleState(receptacle));

/**
 * Material moved from a source receptacle into a receptacle of a labware: its aliquots copied
 * (copyAliquots, carrying the outer request) and a pending transfer request recorded on the target,
 * numbered by the labware's count and carrying the source's pool (a submission) so the target belongs to
 * it too. Out of a failed or cancelled receptacle the transfer request is recorded but no aliquot moves
 * (reference-behaviour.md §7.1). Only the target changes: the source is read, never written.
 */
export function receiveTransfer<L extends Contents>(source: TransferSource, labware: L, at: ReceptacleAt): Outcome<L> {
  const copied = movesMaterial(source.receptacle) ? copyAliquots(source.receptacle, labware, at, source.outerRequest ?? undefined) : ok(labware);
  if (!copied.ok) return copied;
  const target = receptacleAt(copied.value, at.slot);
  const n = (copied.value.transferRequestCount ?? 0) + 1;
  const request: TransferRequest = {
    n,
    source: source.id,
    ...(source.tube ? { sourceTube: true } : {}),
    state: 'pending',
    ...(source.pool ? { submission: source.pool } : {}),
    ...(source.outerRequest ? { outerRequest: source.outerRequest } : {}),
    ...(source.volume !== undefined && source.volume !== null ? { volume: source.volume } : {}),
  };
  return ok({
    ...withReceptacle(copied.value, at.slot, { ...target, transfers: [...(target.transfers ?? []), request] }),
    transferRequestCount: n,
  });
}

/**
 * The pool of a receptacle (contract §2): the submission of the open requests out of it (the first, when
 * several: `openRequestSubmissions` in request id order), else the submission its material came in for (the
 * latest transfer request into it that carries one), else none.
 */
export function poolOf(receptacle: Receptacle, openRequestSubmissions: readonly number[]): number | null {
  const carried = (receptacle.transfers ?? []).findLast((t) => t.submission !== undefined)?.submission;
  return openRequestSubmissions[0] ?? carried ?? null;
}
