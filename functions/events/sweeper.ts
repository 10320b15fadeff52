import { log } from '#lib/log.ts';
import { recoverTransactions, SWEEP_SCHEDULE_MS } from '#lib/store/recovery.ts';

/**
 * The sweeper on AWS: recovery of large writes abandoned by a crash (lib/store/recovery.ts), invoked every
 * minute. A pass ends the writes past their expiry; while an open write expires before the next
 * invocation, it waits for that and passes again, so an abandoned write is ended as it expires or at the
 * next invocation, whichever is later: at most 60 s after it started. Nothing open (the common case): one
 * Query, and done. The clock and the pause are the test's to give.
 */
export function createSweeper(options: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {}) {
  const { now = Date.now, sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) } = options;
  return async (): Promise<{ ended: number }> => {
    const until = now() + SWEEP_SCHEDULE_MS;
    let ended = 0;
    for (;;) {
      const sweep = await recoverTransactions(now());
      ended += sweep.ended;
      if (sweep.nextExpiry === undefined || sweep.nextExpiry >= until) break;
      await sleep(Math.max(0, sweep.nextExpiry - now()));
    }
    if (ended > 0) log('info', 'sweep', { ended });
    return { ended };
  };
}

export const handler = createSweeper();
