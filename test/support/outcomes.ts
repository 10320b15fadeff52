import type { Outcome } from '#lib/domain/problems.ts';

/** The value of an accepted outcome of a pure lab rule; a refusal fails the test with its problems. */
export function value<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.problems)}`);
  return outcome.value;
}

/** The problems of a refused outcome; an acceptance fails the test with what was accepted. */
export function problems<T>(outcome: Outcome<T>) {
  if (outcome.ok) throw new Error(`accepted: ${JSON.stringify(outcome.value)}`);
  return outcome.problems;
}
