import { log } from '#lib/log.ts';
import { recoverTransactions, SWEEP_INTERVAL_MS } from '#lib/store/recovery.ts';

/** A running sweeper: stop() waits for a pass under way. */
export interface Sweeper {
  stop(): Promise<void>;
}

/**
 * The local service's recovery of abandoned large writes (lib/store/recovery.ts): a pass as the next open
 * write expires, at the latest every `intervalMs`, one at a time, never keeping the process alive. On AWS
 * a scheduled function does the same (functions/events/sweeper.ts).
 */
export function startSweeper(intervalMs: number = SWEEP_INTERVAL_MS): Sweeper {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const schedule = (at: number) => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        pass = sweep();
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
  };
  const sweep = async () => {
    let next = Date.now() + intervalMs;
    try {
      const { nextExpiry } = await recoverTransactions(Date.now());
      if (nextExpiry !== undefined) next = Math.min(next, nextExpiry);
    } catch (error) {
      log('warn', 'the sweep of abandoned large writes failed; the next one tries again', { error: String(error) });
    }
    schedule(next);
  };
  schedule(Date.now() + intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
