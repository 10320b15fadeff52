import { PermanentError } from '#lib/events/retry.ts';
import { plainImage, type StreamImage } from '#lib/events/stream-image.ts';
import { isCapacityFault } from '#lib/store/errors.ts';
import { decodePayload, type EventEnvelope } from '#lib/store/request-payload.ts';

/**
 * The publisher core, shared by the AWS stream consumer (functions/events/publisher.ts) and the local
 * publisher (lib/local/outbox-stream.ts): from DynamoDB stream records to the outbox's events, handed
 * to a sink record by record, in stream order. A record that cannot be read, and an event a sink refuses
 * for good, are set aside (the dead letters) and the feed goes on; any other failure stops the batch at
 * that record, to be tried again from there (docs/events.md).
 */

/** A stream record as both the Lambda event and the DynamoDB Streams API give it (the fields read here). */
export interface OutboxStreamRecord {
  eventName?: string;
  dynamodb?: { SequenceNumber?: string; Keys?: StreamImage; NewImage?: StreamImage };
}

/** An event a sink refused for good (trying again cannot help), with why. */
export interface Refusal {
  event: EventEnvelope;
  reason: string;
}

/** Where events go: EventBridge, a file, a webhook. */
export interface EventSink {
  /**
   * Delivers the events in order. Resolves once each is delivered or refused for good (the refusals are
   * returned, to be set aside); throws when a delivery failed in a way that trying again may cure.
   */
  deliver(events: EventEnvelope[]): Promise<Refusal[]>;
}

/** A sink that keeps what it needs to de-duplicate across a restart next to the local follower's checkpoint. */
export interface CheckpointedSink extends EventSink {
  /** The records delivered so far are about to be checkpointed: what to save with the checkpoint. */
  settle?(): unknown;
  /** At start, with what `settle` returned at the last saved checkpoint (undefined when there is none). */
  resume?(saved: unknown): void;
}

/** What is set aside: a record that cannot be read (no event), or one event of it that a sink refused. */
export interface SetAside<R extends OutboxStreamRecord = OutboxStreamRecord> {
  record: R;
  reason: string;
  event?: EventEnvelope;
}

/** A record whose content cannot be turned into events (a stream image or payload no reader understands). */
export class UnreadableRecord extends PermanentError {}

/** ElectroDB's entity marker of the outbox items (lib/store/entities.ts `request`). */
const REQUEST_ENTITY = 'request';

/**
 * The store's entities, imported when a payload's chunk items are first read: the publisher reads every
 * event's request item, but chunk items only for the rare payload past the inline budget, so it loads
 * ElectroDB (a third of its bundle's load: docs/decisions.md, "Cold starts") only when one comes.
 */
const entitiesOnFirstChunks = async () => (await import('#lib/store/entities.ts')).store().entities;

/** True when an error (or one it wraps) is an AWS call's failure: the table, not the record, is at fault. */
function failedCall(error: unknown, depth = 0): boolean {
  if (depth > 8 || typeof error !== 'object' || error === null) return false;
  return '$metadata' in error || isCapacityFault(error) || failedCall((error as { cause?: unknown }).cause, depth + 1);
}

/**
 * The events of one stream record: those of a committed write's request item (an INSERT: each write puts
 * one request item, never changes it), read with its chunks when it is large; nothing for any other record.
 * Throws UnreadableRecord when its content cannot be read; a failed read of its chunks is thrown as it is.
 */
export async function eventsOfRecord(record: OutboxStreamRecord): Promise<EventEnvelope[]> {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || image?.__edb_e__?.S !== REQUEST_ENTITY) return [];
  try {
    return (await decodePayload(plainImage(image) as { key: string }, entitiesOnFirstChunks)).events;
  } catch (error) {
    if (failedCall(error)) throw error;
    throw new UnreadableRecord(`the record cannot be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** How far a batch got: the index of the first record that failed (with why), or none. */
export interface PublishResult {
  failed?: { index: number; error: unknown };
}

export interface PublishSteps<R extends OutboxStreamRecord> {
  /** Keeps what is set aside (the dead letters); throws when it cannot, and the record is tried again. */
  setAside(letter: SetAside<R>): Promise<void> | void;
  /** After each record's events are delivered or set aside (the local publisher checkpoints there). */
  delivered?(record: R): Promise<void> | void;
}

/**
 * Hands each record's events to the sink, in order. A record that cannot be read, and each event the sink
 * refuses for good, is set aside and the records after it go on. Any other failure stops the batch at its
 * record: the caller reports it and every later one, so a retry keeps the order.
 */
export async function publishRecords<R extends OutboxStreamRecord>(records: readonly R[], sink: EventSink, steps: PublishSteps<R>): Promise<PublishResult> {
  for (const [index, record] of records.entries()) {
    try {
      const events = await eventsOfRecord(record).catch(async (error: unknown) => {
        if (!(error instanceof UnreadableRecord)) throw error;
        await steps.setAside({ record, reason: error.message });
        return [];
      });
      const refused = events.length > 0 ? await sink.deliver(events) : [];
      for (const { event, reason } of refused) await steps.setAside({ record, reason, event });
      await steps.delivered?.(record);
    } catch (error) {
      return { failed: { index, error } };
    }
  }
  return {};
}
