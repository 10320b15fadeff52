import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest, longest first (seconds in whole runs of a fresh clone on the 2-core
 * machine, docs/decisions.md, "Suite time"). Two workers take files from the front of one queue; a heavy
 * file started last keeps one worker busy for minutes while the other has nothing left to do.
 */
export const SLOWEST_FIRST = [
  'test/integration/state-change-concurrency.test.ts',
  'test/integration/listing-scale.test.ts',
  'test/integration/limber-ongoing-plates.test.ts',
  'test/integration/lab-concurrency.test.ts',
  'test/integration/transfer-request-collections.test.ts',
  'test/integration/write-conflicts.test.ts',
  'test/integration/call-budget.test.ts',
  'test/integration/faults.test.ts',
  'test/integration/local-start.test.ts',
  'test/integration/concurrency.test.ts',
  'test/integration/qc-work-concurrency.test.ts',
  'test/integration/load.test.ts',
  'test/artifact/functions.test.ts',
  'test/integration/lineage.test.ts',
  'test/integration/feed-lab-day.test.ts',
  'test/integration/labware-budgets.test.ts',
  'test/integration/plate-map.test.ts',
  'test/integration/embedded-listing.test.ts',
];

/**
 * Runs the files of SLOWEST_FIRST first, in its order, then the others as vitest orders them (by their
 * durations in this machine's previous runs, or, in a fresh clone, which has none, largest file first).
 */
export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = SLOWEST_FIRST.indexOf(relative(file.project.config.root, file.moduleId).replaceAll('\\', '/'));
      return at === -1 ? SLOWEST_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the files of equal rank keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
