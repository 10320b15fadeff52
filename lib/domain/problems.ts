/**
 * What a lab rule finds wrong with what it was asked to do. Rules return problems instead of throwing, so
 * the caller decides how to report them: a resource maps each to a JSON:API error whose pointer is the
 * input the problem names (lib/resources/problems.ts).
 */
export interface Problem {
  code: ProblemCode;
  /** The input it concerns, as a path into what the rule was given: `['sample']`, `['tube_locations', 'a1', 'uuid']`. */
  input: readonly string[];
  /** What is wrong, naming the values; the caller prefixes the input's name. */
  detail: string;
}

/**
 * Kinds of problem. `over_budget` means an item budget of lib/domain/budgets.ts would be passed;
 * `other_submission` and `not_ordered` are a request's that disagrees with its order; `not_a_plate` and
 * `holds_no_qc_results` a QC result's whose labware cannot hold it where it was asked to go. The transfer
 * planner (lib/domain/transfers.ts) adds: `wrong_labware` (a tube where a plate is needed, or the reverse),
 * `blank` (a required input missing or empty), `abstract_type` and `needs_targets` (transfer types that
 * cannot be used here), `not_a_map`, `not_a_list` and `not_a_position` (a transfer map's shape and
 * names), `not_assignable` (a computed input the client sent), `no_destination_well` (more pools than the
 * destination has wells), `no_pool` (a source without the submission a pooled destination is found by) and
 * `transferred_twice` (a known destination filled from the same source again). Transfer request
 * collections (lib/resources/transfer-request-collections.ts) add `not_a_receptacle` (a uuid of labware that
 * is not a tube, or of another type) and `given_twice` (the same source into the same target twice).
 * The tag layouts (lib/domain/tag-layout.ts) add `dual_not_supported`, `unknown_tag`, `empty_tag_group` and
 * `not_a_count`. The state changers (lib/domain/state-changers.ts) add `not_allowed` (a move the transfer
 * request machine does not allow), `nothing_to_change` and `no_outer_request` (work of a submission whose
 * aliquots name no request). Bait library layouts (lib/domain/bait-layout.ts) add `no_bait_library` (a
 * pooled well whose requests name none, several, or an unknown one).
 */
export type ProblemCode =
  | 'tag_clash'
  | 'duplicate_aliquot'
  | 'over_budget'
  | 'unknown_state'
  | 'not_a_coordinate'
  | 'placed_twice'
  | 'coordinate_twice'
  | 'already_racked'
  | 'does_not_fit'
  | 'own_parent'
  | 'other_submission'
  | 'not_ordered'
  | 'not_a_plate'
  | 'holds_no_qc_results'
  | 'wrong_labware'
  | 'blank'
  | 'abstract_type'
  | 'needs_targets'
  | 'not_a_map'
  | 'not_a_list'
  | 'not_a_position'
  | 'not_assignable'
  | 'no_destination_well'
  | 'no_pool'
  | 'transferred_twice'
  | 'not_a_receptacle'
  | 'given_twice'
  | 'dual_not_supported'
  | 'unknown_tag'
  | 'empty_tag_group'
  | 'not_a_count'
  | 'not_allowed'
  | 'nothing_to_change'
  | 'no_outer_request'
  | 'no_bait_library';

/** A rule's answer: the new value, or every problem found (never some of each). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

export const refuse = <T>(problems: Problem[]): Outcome<T> => ({ ok: false, problems });

/** The value when there are no problems, else the problems. */
export const outcome = <T>(problems: Problem[], value: () => T): Outcome<T> => (problems.length > 0 ? refuse(problems) : ok(value()));

/** A text as a detail quotes it: JSON-quoted, cut to 80 characters (a client may send a key of any length). */
export function quoted(text: string): string {
  const json = JSON.stringify(text);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}
