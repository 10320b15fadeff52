import type { Outcome, Problem } from '#lib/domain/problems.ts';
import { errors, JsonApiError, pointer } from '#lib/jsonapi/errors.ts';
import type { WriteInput } from '#lib/jsonapi/resource.ts';

/** Where a problem's input is in the request: the pointer, and the field name its detail starts with. */
export type Locate = (input: readonly string[]) => { pointer: string; field: string };

/** Inputs that are attributes or relationships of the request's primary data, the field being the first step of the path. */
export const attributeAt: Locate = (path) => ({ pointer: pointer('data', 'attributes', ...path), field: path[0]! });
export const relationshipAt: Locate = (path) => ({ pointer: pointer('data', 'relationships', ...path), field: path[0]! });

/** One JSON:API error per problem a lab rule found: a 422, `too_large` past an item budget, else `invalid_value`. */
export function problemErrors(problems: readonly Problem[], locate: Locate): JsonApiError[] {
  return problems.map((problem) => {
    const { pointer, field } = locate(problem.input);
    const detail = `${field} - ${problem.detail}`;
    return problem.code === 'over_budget' ? errors.tooLarge(pointer, detail) : errors.invalidValue(pointer, detail);
  });
}

/** Nothing when a check found no problem; else its problems thrown as one JSON:API error response (a budget's `withinRequest`, a rule's checks). */
export function throwProblems(problems: readonly Problem[], locate: Locate): void {
  if (problems.length > 0) throw JsonApiError.all(problemErrors(problems, locate));
}

/** The value of a rule's outcome, or its problems thrown as one JSON:API error response. */
export function accepted<T>(result: Outcome<T>, locate: Locate): T {
  if (!result.ok) throw JsonApiError.all(problemErrors(result.problems, locate));
  return result.value;
}

/**
 * Where a write named a relationship: its `*_uuid(s)` attribute if the client sent that (Limber does),
 * else the relationship; a problem with what it names points there.
 */
export const sentAt = (input: Pick<WriteInput, 'sent'>, relationship: string, attribute: string): { pointer: string; field: string } =>
  input.sent.has(attribute)
    ? { pointer: pointer('data', 'attributes', attribute), field: attribute }
    : { pointer: pointer('data', 'relationships', relationship), field: relationship };

/**
 * A required relationship the reference names only by its `*_uuid` attribute (an asset audit's
 * `asset_uuid`): on create, a 422 at that attribute when neither it nor the relationship names a record.
 */
export const requiredUuidOf = (input: Pick<WriteInput, 'relationships'>, relationship: string, attribute: string): JsonApiError[] =>
  input.relationships[relationship] ? [] : [errors.missingRequired(pointer('data', 'attributes', attribute), attribute)];
