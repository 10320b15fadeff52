import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { config } from '#lib/config.ts';
import { deadLetterOf, type DeadLetter } from '#lib/events/dead-letters.ts';
import { eventBridgeDeadLetters, eventBridgeSink } from '#lib/events/eventbridge-sink.ts';
import { publishRecords, type EventSink } from '#lib/events/outbox.ts';
import { log } from '#lib/log.ts';

/** Where the publisher sends what it sets aside: on AWS, the bus, whose rule routes it to the dead-letter queue. */
export type DeadLetterSender = (letter: DeadLetter) => Promise<void>;

/**
 * The outbox publisher on AWS: the table's stream (INSERTs of request items) to the EventBridge bus
 * `LTS_EVENT_BUS_NAME`. Records are published in order. A record that cannot be read, or an event the bus
 * refuses for good, is sent to the dead letters and the records after it go on; on any other failure the
 * record is reported with every record after it, so Lambda retries from there and the order is kept. It
 * never throws.
 */
export function createPublisher(publishing: () => { sink: EventSink; deadLetters: DeadLetterSender }) {
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const records = event.Records;
    const { sink, deadLetters } = publishing();
    const { failed } = await publishRecords(records, sink, {
      async setAside(letter) {
        const dead = deadLetterOf('eventbridge', letter);
        await deadLetters(dead);
        log('warn', 'an event record was set aside; the records after it go on', {
          deadLetters: 'PublisherDeadLetters queue',
          sequenceNumber: dead.sequence_number,
          eventId: dead.event?.id,
          reason: dead.reason,
        });
      },
    });
    if (!failed) return { batchItemFailures: [] };
    const rest = records.slice(failed.index);
    log('error', 'event publishing failed; the record and those after it go back to the stream', {
      sequenceNumber: rest[0]?.dynamodb?.SequenceNumber,
      reported: rest.length,
      error: String(failed.error),
    });
    return { batchItemFailures: rest.map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })) };
  };
}

let bus: { sink: EventSink; deadLetters: DeadLetterSender } | undefined;
/** One EventBridge client per Lambda container, made on first use (the bus name is read then). */
function busPublishing() {
  if (!bus) {
    const name = config().LTS_EVENT_BUS_NAME;
    if (!name) throw new Error('LTS_EVENT_BUS_NAME is not set');
    const client = new EventBridgeClient({});
    bus = { sink: eventBridgeSink(name, client), deadLetters: eventBridgeDeadLetters(name, client) };
  }
  return bus;
}

export const handler = createPublisher(busPublishing);
