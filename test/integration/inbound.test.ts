import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createInboundConsumer } from '../../functions/events/inbound.ts';
import { submitMessages } from '#lib/admin/submit.ts';
import { registry } from '#lib/resources/index.ts';
import { call, doc } from '../support/api.ts';
import { uniqueName } from '../support/fixtures.ts';
import { storeWithFaults } from '../support/faults.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * The inbound queue's consumer (functions/events/inbound.ts) against DynamoDB Local. SQS is mocked: the
 * events are built as Lambda delivers them, since DynamoDB Local has no SQS. Throttling comes from the
 * fault injector (DynamoDB Local never throttles).
 */

const context = { registry, identity: { name: 'inbound-queue', scope: 'write' as const }, baseUrl: 'https://lts.test' };
const consume = createInboundConsumer(() => context);
const faults = storeWithFaults();

let deliveries = 0;
/** An SQS record as Lambda hands it over; the same messageId is a redelivery. */
const sqsRecord = (body: unknown, messageId = `m-${++deliveries}`): SQSRecord =>
  ({ messageId, body: typeof body === 'string' ? body : JSON.stringify(body), attributes: { ApproximateReceiveCount: '1' } }) as SQSRecord;
const sqs = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

const samplesNamed = async (name: string): Promise<any[]> => (await call('GET', `/api/v2/samples?filter[name]=${name}`)).body.data;
const outcomes = async (messageId: string) => (await outboxEvents()).filter((e) => e.resource.type === 'messages' && e.resource.id === messageId);

describe('the inbound queue consumer', () => {
  it('applies a redelivered POST once (its messageId is its idempotency key) and publishes one outcome', async () => {
    const name = uniqueName('in');
    const record = sqsRecord({ method: 'POST', path: '/api/v2/samples', body: doc('samples', { name }) });
    expect(await consume(sqs(record))).toEqual({ batchItemFailures: [] });
    expect(await consume(sqs(record))).toEqual({ batchItemFailures: [] });
    const [sample, ...more] = await samplesNamed(name);
    expect(more).toEqual([]);
    const events = await outcomes(record.messageId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'messages.processed',
      actor: { api_key: 'inbound-queue', user: null },
      data: {
        method: 'POST',
        path: '/api/v2/samples',
        idempotency_key: record.messageId,
        status: 201,
        location: `https://lts.test/api/v2/samples/${sample.id}`,
        resources: [{ type: 'samples', id: sample.id }],
        errors: [],
      },
    });
    expect((await outboxEvents()).filter((e) => e.type === 'samples.created' && e.resource.id === sample.id)).toHaveLength(1);
  });

  it('does not apply a redelivered PATCH again over a later change', async () => {
    const sample = (await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('in') }) })).body.data;
    const patch = (site: string) => ({
      method: 'PATCH',
      path: `/api/v2/samples/${sample.id}`,
      body: doc('samples', { site_sample_id: site }, undefined, sample.id),
    });
    const record = sqsRecord(patch('from-queue'));
    expect(await consume(sqs(record))).toEqual({ batchItemFailures: [] });
    expect((await call('PATCH', `/api/v2/samples/${sample.id}`, { body: patch('later').body })).status).toBe(200);
    expect(await consume(sqs(record))).toEqual({ batchItemFailures: [] });
    expect((await call('GET', `/api/v2/samples/${sample.id}`)).body.data.attributes.site_sample_id).toBe('later');
    expect(await outcomes(record.messageId)).toHaveLength(1);
  });

  it('acknowledges a refused message (4xx) and publishes it as messages.refused with its errors', async () => {
    const record = sqsRecord({
      method: 'POST',
      path: '/api/v2/samples',
      body: doc('samples', { name: uniqueName('in'), control: 'no' }),
      idempotency_key: 'k-422',
    });
    expect(await consume(sqs(record))).toEqual({ batchItemFailures: [] });
    const [event, ...more] = await outcomes(record.messageId);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ type: 'messages.refused', data: { status: 422, idempotency_key: 'k-422', location: null, resources: [] } });
    expect((event!.data as any).errors[0]).toMatchObject({ status: '422', source: { pointer: '/data/attributes/control' } });
  });

  it('reports a body that is not JSON (poison), so SQS moves it to the dead-letter queue after its retries; the rest of the batch goes on', async () => {
    const name = uniqueName('in');
    const poison = sqsRecord('{"method": "POST", ');
    const good = sqsRecord({ method: 'POST', path: '/api/v2/samples', body: doc('samples', { name }) });
    expect(await consume(sqs(poison, good))).toEqual({ batchItemFailures: [{ itemIdentifier: poison.messageId }] });
    expect(await samplesNamed(name)).toHaveLength(1);
    expect(await outcomes(poison.messageId)).toEqual([]);
  });

  it('reports a message answered 503 (throttled) for redelivery, with no outcome; redelivered, it is applied once', async () => {
    const name = uniqueName('in');
    const record = sqsRecord({ method: 'POST', path: '/api/v2/samples', body: doc('samples', { name }) });
    faults.arm('TransactWriteItems', 'ThrottlingException');
    try {
      expect(await consume(sqs(record))).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
    } finally {
      faults.disarm();
    }
    expect(await samplesNamed(name)).toEqual([]);
    expect(await outcomes(record.messageId)).toEqual([]);
    expect(await consume(sqs(record))).toEqual({ batchItemFailures: [] });
    expect(await samplesNamed(name)).toHaveLength(1);
    expect(await outcomes(record.messageId)).toHaveLength(1);
  });
});

describe('admin submit', () => {
  it('runs a message through the same processing, its outcome published', async () => {
    const name = uniqueName('in');
    const [result] = await submitMessages(JSON.stringify({ method: 'POST', path: '/api/v2/samples', body: doc('samples', { name }) }), {
      ...context,
      identity: { name: 'admin', scope: 'write' },
    });
    expect(result!.response.status).toBe(201);
    const events = (await outboxEvents()).filter((e) => e.type === 'messages.processed' && e.actor && (e.actor as any).api_key === 'admin');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ status: 201, resources: [{ type: 'samples' }] });
  });
});
