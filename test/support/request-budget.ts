import { afterAll, beforeAll } from 'vitest';
import { resetConfig } from '#lib/config.ts';

/**
 * Runs the enclosing describe block (or file) with a request budget of `ms` (LTS_REQUEST_BUDGET_MS), and
 * the run's own after it: a burst of writers into one record commits one after another, so their tests
 * give them a budget no loaded machine outlasts.
 */
export function withRequestBudget(ms: number): void {
  const runBudget = process.env.LTS_REQUEST_BUDGET_MS;
  beforeAll(() => {
    process.env.LTS_REQUEST_BUDGET_MS = String(ms);
    resetConfig();
  });
  afterAll(() => {
    process.env.LTS_REQUEST_BUDGET_MS = runBudget;
    resetConfig();
  });
}
