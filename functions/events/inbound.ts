import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#lib/config.ts';
import { processMessage } from '#lib/events/inbound.ts';
import { baseUrl } from '#lib/http/base-url.ts';
import type { MessageContext } from '#lib/jsonapi/message.ts';
import { log } from '#lib/log.ts';
import { registry } from '#lib/resources/index.ts';

/**
 * The inbound queue's consumer: each SQS message body is a message `{method, path, body, idempotency_key}`
 * run as the identity `LTS_INBOUND_IDENTITY` (write scope), links starting with `LTS_BASE_URL`. Answered
 * messages (2xx, 4xx) are acknowledged with their outcome published; a 5xx, and a body that is not JSON
 * (poison), are reported in `batchItemFailures`, so SQS delivers them again and, after the queue's
 * maxReceiveCount, moves them to its dead-letter queue.
 */
export function createInboundConsumer(context: () => Omit<MessageContext, 'requestId'>) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      let message: unknown;
      try {
        message = JSON.parse(record.body);
      } catch (error) {
        log('error', 'an inbound message is not JSON; it goes to the dead-letter queue after its retries', {
          messageId: record.messageId,
          receiveCount: record.attributes?.ApproximateReceiveCount,
          error: (error as Error).message,
        });
        failures.push({ itemIdentifier: record.messageId });
        continue;
      }
      const { disposition, response } = await processMessage(message, record.messageId, context());
      log(disposition === 'retry' ? 'warn' : 'info', 'inbound message', { messageId: record.messageId, status: response.status, disposition });
      if (disposition === 'retry') failures.push({ itemIdentifier: record.messageId });
    }
    return { batchItemFailures: failures };
  };
}

/** Read from the environment on first use; LTS_BASE_URL is required (links in responses and events). */
function queueContext(): Omit<MessageContext, 'requestId'> {
  const { LTS_BASE_URL, LTS_INBOUND_IDENTITY } = config();
  if (!LTS_BASE_URL) throw new Error('LTS_BASE_URL is not set: inbound messages need the API URL their links start with');
  return { registry, identity: { name: LTS_INBOUND_IDENTITY, scope: 'write' }, baseUrl: baseUrl(LTS_BASE_URL, {}) };
}

export const handler = createInboundConsumer(queueContext);
