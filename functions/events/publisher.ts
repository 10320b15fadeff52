import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { config } from '#lib/config.ts';
import { eventBridgeSink } from '#lib/events/eventbridge-sink.ts';
import { publishRecords, type EventSink } from '#lib/events/outbox.ts';
import { log } from '#lib/log.ts';

/**
 * The outbox publisher on AWS: the table's stream (INSERTs of request items) to the EventBridge bus
 * `LTS_EVENT_BUS_NAME`. Records are published in order; the first that fails is reported with every
 * record after it, so Lambda retries from there and the order is kept. It never throws.
 */
export function createPublisher(sink: () => EventSink) {
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const records = event.Records;
    const { failed } = await publishRecords(records, sink());
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

let bus: EventSink | undefined;
/** One EventBridge client per Lambda container, made on first use (the bus name is read then). */
function busSink(): EventSink {
  if (!bus) {
    const name = config().LTS_EVENT_BUS_NAME;
    if (!name) throw new Error('LTS_EVENT_BUS_NAME is not set');
    bus = eventBridgeSink(name);
  }
  return bus;
}

export const handler = createPublisher(busSink);
