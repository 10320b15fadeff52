/**
 * How long the test run waits before it calls something hung. These are hang detectors, never speed
 * checks: on a 2-core machine that other work loads to ten times its cores, a heavy file's set-up takes
 * minutes, and no test may fail for that (docs/decisions.md, "Suite time").
 */

/** A test or a hook running this long is hung (vitest's testTimeout and hookTimeout; no test sets its own). */
export const HANG_MS = 600_000;

/**
 * A wait inside a test for something to happen (a line of output, an element of a page): it fails with
 * what it was waiting for, well before the test's own limit would fail it without saying.
 */
export const WAIT_MS = HANG_MS / 2;
