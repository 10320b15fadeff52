import { readPayload, type EventEnvelope } from '#lib/store/request-payload.ts';
import { plainImage, type StreamImage } from '#lib/events/stream-image.ts';

/**
 * The publisher core, shared by the AWS stream consumer (functions/events/publisher.ts) and the local
 * publisher (lib/local/event-publisher.ts): from DynamoDB stream records to the outbox's events, handed
 * to a sink record by record, in stream order.
 */

/** A stream record as both the Lambda event and the DynamoDB Streams API give it (the fields read here). */
export interface OutboxStreamRecord {
  eventName?: string;
  dynamodb?: { SequenceNumber?: string; NewImage?: StreamImage };
}

/** Where events go: EventBridge, a file, a webhook. `deliver` resolves once every event is delivered, else throws. */
export interface EventSink {
  deliver(events: EventEnvelope[]): Promise<void>;
}

/** A sink that keeps what it needs to de-duplicate across a restart next to the local follower's checkpoint. */
export interface CheckpointedSink extends EventSink {
  /** The records delivered so far are about to be checkpointed: what to save with the checkpoint. */
  settle?(): unknown;
  /** At start, with what `settle` returned at the last saved checkpoint (undefined when there is none). */
  resume?(saved: unknown): void;
}

/** ElectroDB's entity marker of the outbox items (lib/store/entities.ts `request`). */
const REQUEST_ENTITY = 'request';

/**
 * The events of one stream record: those of a committed write's request item (an INSERT: each write puts
 * one request item, never changes it), read with its chunks when it is large; nothing for any other record.
 */
export async function eventsOfRecord(record: OutboxStreamRecord): Promise<EventEnvelope[]> {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || image?.__edb_e__?.S !== REQUEST_ENTITY) return [];
  return (await readPayload(plainImage(image) as { key: string })).events;
}

/** How far a batch got: the index of the first record that failed (with why), or none. */
export interface PublishResult {
  failed?: { index: number; error: unknown };
}

/**
 * Hands each record's events to the sink, in order, and stops at the first record that cannot be read or
 * delivered: the caller reports it and every later one, so a retry keeps the order. `delivered` runs after
 * each record's events are delivered (the local publisher checkpoints there).
 */
export async function publishRecords<R extends OutboxStreamRecord>(
  records: readonly R[],
  sink: EventSink,
  delivered?: (record: R) => Promise<void> | void,
): Promise<PublishResult> {
  for (const [index, record] of records.entries()) {
    try {
      const events = await eventsOfRecord(record);
      if (events.length > 0) await sink.deliver(events);
      await delivered?.(record);
    } catch (error) {
      return { failed: { index, error } };
    }
  }
  return {};
}
