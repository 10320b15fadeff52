import type { OutboxStreamRecord, SetAside } from '#lib/events/outbox.ts';
import { jsonForm, plainImage } from '#lib/events/stream-image.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';

/** The source and detail type of the publisher's dead letters on the bus (a rule sends them to its dead-letter queue). */
export const DEAD_LETTER_SOURCE = 'lts.publisher';
export const DEAD_LETTER_DETAIL_TYPE = 'dead_letter';

/**
 * A dead letter: what the feed set aside so that it could go on (docs/events.md "Dead letters"). Locally
 * one line of the dead-letter file; on AWS the body of a message in the publisher's dead-letter queue.
 */
export interface DeadLetter {
  set_aside_at: string;
  /** The sink that could not take it: `file`, `webhook` or `eventbridge`. */
  sink: string;
  /** The stream record's sequence number (in its shard). */
  sequence_number: string | null;
  /** The key of the write's request item in the table (pk, sk): where its payload can be read again. */
  keys: Record<string, unknown> | null;
  reason: string;
  /** The event refused; absent when the record could not be read. */
  event?: EventEnvelope;
  /** The unreadable record's new image, binary as base64 (absent when it was too large to keep). */
  image?: unknown;
}

const keysOf = (record: OutboxStreamRecord): Record<string, unknown> | null => {
  try {
    return record.dynamodb?.Keys ? plainImage(record.dynamodb.Keys) : null;
  } catch {
    return jsonForm(record.dynamodb?.Keys) as Record<string, unknown>;
  }
};

/** The dead letter of a record or event set aside by `sink`. */
export function deadLetterOf(sink: string, { record, reason, event }: SetAside): DeadLetter {
  return {
    set_aside_at: new Date().toISOString(),
    sink,
    sequence_number: record.dynamodb?.SequenceNumber ?? null,
    keys: keysOf(record),
    reason,
    ...(event ? { event } : { image: jsonForm(record.dynamodb?.NewImage) }),
  };
}
