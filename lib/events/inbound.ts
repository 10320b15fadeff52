import { createHash } from 'node:crypto';
import type { ApiResponse } from '#lib/jsonapi/request.ts';
import { serveMessage, type MessageContext } from '#lib/jsonapi/message.ts';
import { log } from '#lib/log.ts';
import { IdempotencyRace } from '#lib/store/errors.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';

/**
 * Inbound messages (contract §4): a write `{method, path, body, idempotency_key}` from the queue's
 * consumer (functions/events/inbound.ts) or the admin command line's `submit`, which both come here.
 */

/** What became of a message: answered (acknowledge it) or failed for a reason that may pass (deliver it again). */
export interface InboundResult {
  disposition: 'acknowledged' | 'retry';
  response: ApiResponse;
}

/** The two outcome event types: a message the service carried out (2xx), and one it refused (4xx). */
export const OUTCOME_EVENTS = { processed: 'messages.processed', refused: 'messages.refused' } as const;

/** The `data` of an outcome event. */
export interface MessageOutcome {
  method: unknown;
  path: unknown;
  /** The key the write ran under: the message's own, or its delivery id. */
  idempotency_key: unknown;
  status: number;
  /** The created record's URL (a 201). */
  location: string | null;
  /** The records the write answered with (type, id, self link), as in the response's primary data. */
  resources: { type: string; id: string; links?: { self?: string } }[];
  /** The JSON:API errors of a refused message. */
  errors: unknown[];
}

type Resource = MessageOutcome['resources'][number];

function outcomeOf(message: Record<string, unknown>, response: ApiResponse): MessageOutcome {
  const document = JSON.parse(response.body ?? '{}') as { data?: Resource | Resource[] | null; errors?: unknown[] };
  const resources = ([] as Resource[])
    .concat(document.data ?? [])
    .map(({ type, id, links }) => ({ type, id, ...(links?.self ? { links: { self: links.self } } : {}) }));
  return {
    method: message.method ?? null,
    path: message.path ?? null,
    idempotency_key: message.idempotency_key ?? null,
    status: response.status,
    location: response.headers.Location ?? null,
    resources,
    errors: document.errors ?? [],
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Records the outcome event through the outbox, in a request item of its own named after the delivery: a
 * redelivered message finds it there (the write raises an IdempotencyRace) and records no second one.
 */
async function recordOutcome(context: MessageContext, deliveryId: string, outcome: MessageOutcome, response: ApiResponse): Promise<void> {
  const uow = new UnitOfWork(context.registry, new Date().toISOString());
  uow.addEvent({
    type: response.status < 400 ? OUTCOME_EVENTS.processed : OUTCOME_EVENTS.refused,
    resource: { type: 'messages', id: deliveryId, uuid: null, version: 1 },
    data: outcome,
    actor: { api_key: context.identity.name, user: null },
  });
  const key = `outcome\n${context.identity.name}\n${deliveryId}`;
  uow.rememberResponse(key, createHash('sha256').update(JSON.stringify(outcome)).digest('hex'), response);
  try {
    await uow.commit();
  } catch (error) {
    if (!(error instanceof IdempotencyRace)) throw error;
  }
}

/**
 * Runs one message through the message entry (the checks, atomicity and idempotency of HTTP) and
 * publishes its outcome (one outcome event per delivery id). A message without `idempotency_key` takes `deliveryId` (the SQS message id), so
 * a redelivery replays the first response rather than writing again (POST and PATCH alike).
 *
 * - 2xx and 4xx: answered; a 4xx is the sender's mistake and sending it again will not help. The
 *   outcome event (`messages.processed` / `messages.refused`) is recorded, then the message acknowledged.
 * - 5xx (capacity, timeouts, faults): `retry`, and no outcome yet; the queue delivers it again, and after
 *   its maxReceiveCount moves it to the dead-letter queue. A failure to record the outcome is a retry too.
 */
export async function processMessage(message: unknown, deliveryId: string, context: Omit<MessageContext, 'requestId'>): Promise<InboundResult> {
  const keyed = isObject(message) && message.idempotency_key === undefined ? { ...message, idempotency_key: deliveryId } : message;
  const response = await serveMessage(keyed, { ...context, requestId: `inbound-${deliveryId}` });
  if (response.status >= 500) return { disposition: 'retry', response };
  try {
    await recordOutcome(context, deliveryId, outcomeOf(isObject(keyed) ? keyed : {}, response), response);
  } catch (error) {
    log('warn', 'could not record a message outcome; the message will be delivered again', { deliveryId, error: String(error) });
    return { disposition: 'retry', response };
  }
  return { disposition: 'acknowledged', response };
}
