import { describe, expect, it } from 'vitest';
import { platesInSubmission, type PooledRequest } from '#lib/domain/submission-pools.ts';

const request = (id: number, state: PooledRequest['state'], requestType: number, assetLabware: number): PooledRequest => ({
  id,
  state,
  requestType,
  assetLabware,
});

describe('plates_in_submission (the reference’s SubmissionPool)', () => {
  it("counts the labware its outer request's type comes out of: the outer request is its first active request by id", () => {
    const requests = [
      request(5, 'pending', 1, 10),
      request(3, 'cancelled', 2, 20), // not active: not the outer request, its type not counted
      request(6, 'started', 1, 11),
      request(7, 'failed', 1, 12), // of the outer request's type: its labware counts, whatever its state
      request(8, 'pending', 2, 13),
      request(9, 'passed', 1, 10),
    ];
    expect(platesInSubmission(requests)).toBe(3);
  });

  it('is 0 when no request is active (a submission whose work was all cancelled is ignored)', () => {
    expect(platesInSubmission([request(1, 'cancelled', 1, 10), request(2, 'failed', 1, 11)])).toBe(0);
    expect(platesInSubmission([])).toBe(0);
  });
});
