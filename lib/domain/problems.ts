/**
 * What a lab rule finds wrong with what it was asked to do. Rules return problems instead of throwing, so
 * the caller decides how to report them: a resource maps each to a JSON:API error whose pointer is the
 * input the problem names (lib/jsonapi/problems.ts).
 */
export interface Problem {
  code: ProblemCode;
  /** The input it concerns, as a path into what the rule was given: `['sample']`, `['tube_locations', 'a1', 'uuid']`. */
  input: readonly string[];
  /** What is wrong, naming the values; the caller prefixes the input's name. */
  detail: string;
}

/** Kinds of problem, each named where the rules that find it live. */
export type ProblemCode =
  // Receptacles (lib/domain/receptacles.ts, tag-layout.ts): two aliquots a receptacle cannot tell apart.
  | 'tag_clash'
  | 'duplicate_aliquot'
  // An item budget of lib/domain/budgets.ts would be passed.
  | 'over_budget'
  // A state no machine has (lib/domain/requests.ts, state-changers.ts).
  | 'unknown_state'
  // Racks and positions (lib/domain/racks.ts, qc-results.ts); `wrong_labware` is also a tube of another purpose than its
  // rack names.
  | 'not_a_coordinate'
  | 'placed_twice'
  | 'coordinate_twice'
  | 'already_racked'
  | 'does_not_fit'
  // Lineage (lib/domain/lineage.ts).
  | 'own_parent'
  // A request that disagrees with its order (lib/domain/requests.ts).
  | 'other_submission'
  | 'not_ordered'
  // A QC result whose labware cannot hold it where it was asked to go (lib/domain/qc-results.ts).
  | 'not_a_plate'
  | 'holds_no_qc_results'
  // The transfer planner (lib/domain/transfers.ts): a tube where a plate is needed or the reverse (also a rack whose
  // volume is to change: lib/domain/volumes.ts); a required
  // input missing or empty (also a submission's: lib/domain/submissions.ts); transfer types that cannot be used here; a transfer map's shape and names; a
  // computed input the client sent; more pools than the destination has wells; a source without the
  // submission a pooled destination is found by; a known destination filled from the same source again.
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
  // One thing given twice in one request: a barcode (lib/domain/barcode.ts), a source into the same target
  // (lib/domain/material-moves.ts, pairsNamedOnce).
  | 'given_twice'
  // Tag layouts (lib/domain/tag-layout.ts).
  | 'dual_not_supported'
  | 'unknown_tag'
  | 'empty_tag_group'
  | 'not_a_count'
  // The state changers (lib/domain/state-changers.ts): a move the transfer request machine does not allow (also
  // a submission's: lib/domain/submissions.ts);
  // nothing to change; work of a submission whose aliquots name no request.
  | 'not_allowed'
  | 'nothing_to_change'
  | 'no_outer_request'
  // Bait library layouts (lib/domain/bait-layout.ts): a pooled well whose requests name none, several, or an unknown one.
  | 'no_bait_library'
  // Lots (lib/domain/qcables.ts): a template of another class than the lot type's, or of a class not served.
  | 'wrong_template'
  // A qcable creator given both a count and barcodes, or neither (lib/domain/qcables.ts).
  | 'count_or_barcodes'
  // Heron reception (lib/domain/heron.ts): a content field that is no field of a sample or its metadata; a content's uuid that is none.
  | 'unknown_field'
  | 'not_a_uuid';

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
