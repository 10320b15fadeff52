import { log } from '#lib/log.ts';
import { recoverTransactions, SWEEP_INTERVAL_MS } from '#lib/store/recovery.ts';

/** A running sweeper: stop() waits for a pass under way. */
export interface Sweeper {
  stop(): Promise<void>;
}

/**
 * The local service's recovery of abandoned large writes (lib/store/recovery.ts): a pass every
 * `intervalMs`, one at a time, never keeping the process alive. On AWS a scheduled function does the same
 * (functions/events/sweeper.ts).
 */
export function startSweeper(intervalMs: number = SWEEP_INTERVAL_MS): Sweeper {
  let pass: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    pass = pass.then(async () => {
      try {
        await recoverTransactions(Date.now());
      } catch (error) {
        log('warn', 'the sweep of abandoned large writes failed; the next one tries again', { error: String(error) });
      }
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await pass;
    },
  };
}
