/** How often and how patiently a delivery is tried again. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The pause before the second attempt; each later one doubles, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** An error that trying again will not cure: `withRetry` gives up at once. */
export class PermanentError extends Error {}

/** Runs `attempt` until it succeeds, the attempts are spent, or it throws a PermanentError; rethrows the last error. */
export async function withRetry<T>(policy: RetryPolicy, attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (error instanceof PermanentError || n >= policy.attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1))));
    }
  }
}
