import type { RequestState } from '#lib/domain/machines.ts';

/**
 * Submission pools (the reference's SubmissionPool: a submission seen from a plate): which plates a
 * submission's work comes out of, which Limber reads to tell a pool spread over several plates (it then
 * needs unique dual indexes: `plates_in_submission > 1`).
 */

/** The reference's active requests (Request::Statemachine::ACTIVE): not failed, not cancelled. */
const ACTIVE: readonly RequestState[] = ['passed', 'pending', 'blocked', 'started'];

/** A request of a submission as the count sees it: its type and the labware of the receptacle it works on. */
export interface PooledRequest {
  id: number;
  state: RequestState;
  requestType: number;
  assetLabware: number;
}

/**
 * The reference's `plates_in_submission`: the labware the submission's requests of its outer request's type
 * come out of, each once; the outer request is its first active request (by id). No active request: 0 (a
 * submission whose requests were all cancelled is ignored).
 */
export function platesInSubmission(requests: readonly PooledRequest[]): number {
  const outer = [...requests].sort((a, b) => a.id - b.id).find((r) => ACTIVE.includes(r.state));
  if (!outer) return 0;
  return new Set(requests.filter((r) => r.requestType === outer.requestType).map((r) => r.assetLabware)).size;
}
