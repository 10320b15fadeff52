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
 * `holds_no_qc_results` a QC result's whose labware cannot hold it where it was asked to go.
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
  | 'holds_no_qc_results';

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
