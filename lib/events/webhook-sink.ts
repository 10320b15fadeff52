import type { EventSink, Refusal } from '#lib/events/outbox.ts';
import { PermanentError, withRetry, type RetryPolicy } from '#lib/events/retry.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';

/** Per event: 5 attempts, 0.25 s to 4 s apart (about 8 s), then the record fails and the follower retries it later. */
export const WEBHOOK_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 250, maxDelayMs: 4_000 };
/** One POST may take this long before it counts as a network failure. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Statuses worth trying again: the receiver is overloaded, failing or timed out. */
const retryable = (status: number): boolean => status >= 500 || status === 429 || status === 408;

/**
 * POSTs each event, alone, as JSON to `url` (locally: `LTS_WEBHOOK_URL`), in order. Network errors, 5xx,
 * 408 and 429 are tried again with exponential backoff; when the attempts are spent the delivery throws,
 * so nothing after it is sent before it. Any other 4xx is the receiver refusing that event for good: it
 * is returned refused (the follower sets it aside) and the next is sent. Events of a record already
 * answered are not sent again when the record is retried.
 */
export function webhookSink(url: string, policy: RetryPolicy = WEBHOOK_RETRY): EventSink {
  /** Ids of the record in progress the receiver has answered (taken or refused). */
  const sent = new Set<string>();
  /** The refusals of the record in progress, kept across its retries. */
  let refused: Refusal[] = [];
  const post = (event: EventEnvelope) =>
    withRetry(policy, async () => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-lts-event-id': event.id },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      if (response.ok) return;
      if (retryable(response.status)) throw new Error(`webhook answered ${response.status}`);
      throw new PermanentError(`webhook answered ${response.status}`);
    });
  return {
    async deliver(events) {
      for (const event of events) {
        if (sent.has(event.id)) continue;
        try {
          await post(event);
        } catch (error) {
          if (!(error instanceof PermanentError)) throw error;
          refused.push({ event, reason: `the webhook refused the event: ${error.message}` });
        }
        sent.add(event.id);
      }
      sent.clear();
      const answer = refused;
      refused = [];
      return answer;
    },
  };
}
