import { randomBytes } from 'node:crypto';
import type { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPublisher } from '../../functions/events/publisher.ts';
import { eventBridgeSink, PUT_EVENTS_BYTES } from '#lib/events/eventbridge-sink.ts';
import { eventsOfRecord, publishRecords, type EventSink } from '#lib/events/outbox.ts';
import { eventsSchema } from '#lib/events/schema.ts';
import { registry } from '#lib/resources/index.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { call, doc } from '../support/api.ts';
import { uniqueName } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';
import { asLambdaRecord, streamRecords } from '../support/stream.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * The outbox publisher fed real records of DynamoDB Local's stream after real writes. EventBridge is
 * mocked (a client recording PutEvents calls): DynamoDB Local has no EventBridge.
 */

let store: { endpoint: string; tableName: string };
/** A sink that keeps what it is given, in order. */
const recording = (): EventSink & { events: EventEnvelope[] } => {
  const events: EventEnvelope[] = [];
  return { events, deliver: async (batch) => void events.push(...batch) };
};
/** An EventBridge client stand-in recording the entries of each PutEvents call and accepting them all. */
function fakeEventBridge() {
  const calls: NonNullable<PutEventsCommand['input']['Entries']>[] = [];
  return {
    calls,
    send: async (command: PutEventsCommand) => {
      calls.push(command.input.Entries ?? []);
      return { FailedEntryCount: 0, Entries: (command.input.Entries ?? []).map((_, i) => ({ EventId: `e${i}` })) };
    },
  };
}
const sampleDoc = (name: string) => doc('samples', { name });
let sampleId: string;
let bigEvent: EventEnvelope;

beforeAll(async () => {
  store = await freshStore();
  const created = await call('POST', '/api/v2/samples', { body: sampleDoc(uniqueName('pub')) });
  sampleId = created.body.data.id;
  for (const site of ['A', 'B', 'C']) {
    expect((await call('PATCH', `/api/v2/samples/${sampleId}`, { body: doc('samples', { site_sample_id: site }, undefined, sampleId) })).status).toBe(200);
  }
  // A write whose payload is too large for its request item: it is stored gzipped in chunk items.
  const uow = new UnitOfWork(registry, new Date().toISOString());
  const study = await uow.create('studies', { attrs: { name: uniqueName('big') }, rels: {} });
  uow.addEvent({
    type: 'studies.created',
    resource: { type: 'studies', id: String(study.id), uuid: study.uuid, version: 1 },
    data: {
      type: 'studies',
      id: String(study.id),
      attributes: { blob: randomBytes(300_000).toString('base64') },
      links: { self: `https://lts.test/api/v2/studies/${study.id}` },
    },
    actor: null,
  });
  await uow.commit();
  bigEvent = (await outboxEvents()).find((e) => e.resource.type === 'studies' && e.resource.id === String(study.id)) as EventEnvelope;
});

describe('the publisher core', () => {
  it('hands over every event of the outbox once, in commit order, a chunked payload’s too', async () => {
    const sink = recording();
    expect(await publishRecords(await streamRecords(store.endpoint, store.tableName), sink)).toEqual({});
    const outbox = await outboxEvents();
    expect(outbox.length).toBeGreaterThan(5);
    expect(sink.events.map((e) => e.id).sort()).toEqual(outbox.map((e) => e.id).sort());
    expect(new Set(sink.events.map((e) => e.id)).size).toBe(sink.events.length);
    const sample = sink.events.filter((e) => e.resource.type === 'samples' && e.resource.id === sampleId);
    expect(sample.map((e) => [e.type, e.resource.version, (e.data as any).attributes.site_sample_id])).toEqual([
      ['samples.created', 1, null],
      ['samples.updated', 2, 'A'],
      ['samples.updated', 3, 'B'],
      ['samples.updated', 4, 'C'],
    ]);
    expect(sink.events.find((e) => e.id === bigEvent.id)).toEqual(bigEvent);
  });

  it('hands over events that docs/events.schema.json describes', async () => {
    const validate = new Ajv2020({ strict: false, allErrors: true, formats: fullFormats }).compile(eventsSchema(registry));
    const events = (await outboxEvents()).filter((e) => e.id !== bigEvent.id);
    expect(events.length).toBeGreaterThan(3);
    for (const event of events) expect(validate(event) ? [] : validate.errors, event.type).toEqual([]);
    expect(validate({ ...events[0], resource: { ...events[0]!.resource, version: undefined } })).toBe(false);
  });

  it('publishes nothing for a write that was refused', async () => {
    const before = (await streamRecords(store.endpoint, store.tableName)).length;
    const refused = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('x'), control: 'no' }) });
    expect(refused.status).toBe(422);
    const after = (await streamRecords(store.endpoint, store.tableName)).slice(before);
    const events = await Promise.all(after.map(eventsOfRecord));
    expect(events.flat()).toEqual([]);
  });
});

describe('the stream consumer (functions/events/publisher.ts)', () => {
  it('sends each event to EventBridge as source lts, detail-type its type, at most 10 entries and 256 KB a call; an oversized one link-only', async () => {
    const records = (await streamRecords(store.endpoint, store.tableName)).map(asLambdaRecord);
    const bus = fakeEventBridge();
    const handler = createPublisher(() => eventBridgeSink('lts-bus', bus as never));
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
    const entries = bus.calls.flat();
    const outbox = await outboxEvents();
    expect(entries).toHaveLength(outbox.length);
    for (const call of bus.calls) {
      expect(call.length).toBeLessThanOrEqual(10);
      expect(call.reduce((n, e) => n + Buffer.byteLength(e.Source! + e.DetailType! + e.Detail!), 0)).toBeLessThanOrEqual(PUT_EVENTS_BYTES);
    }
    for (const entry of entries) {
      const detail = JSON.parse(entry.Detail!);
      expect(entry).toMatchObject({ EventBusName: 'lts-bus', Source: 'lts', DetailType: detail.type });
    }
    const big = JSON.parse(entries.find((e) => JSON.parse(e.Detail!).id === bigEvent.id)!.Detail!);
    expect(big).toEqual({ ...bigEvent, data: { type: 'studies', id: bigEvent.resource.id, links: (bigEvent.data as any).links }, data_omitted: true });
  });

  it('reports the record that failed and every one after it, and published those before it', async () => {
    const records = (await streamRecords(store.endpoint, store.tableName)).map(asLambdaRecord);
    const withEvents = (await Promise.all(records.map(async (r, i) => ((await eventsOfRecord(r)).length > 0 ? i : -1)))).filter((i) => i >= 0);
    const k = withEvents[2]!;
    const sink = recording();
    let deliveries = 0;
    const failing: EventSink = {
      async deliver(events) {
        if (++deliveries === 3) throw new Error('bus unavailable');
        await sink.deliver(events);
      },
    };
    const result = await createPublisher(() => failing)({ Records: records });
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.slice(k).map((r) => r.dynamodb!.SequenceNumber));
    const before = (await Promise.all(records.slice(0, k).map(eventsOfRecord))).flat();
    expect(sink.events.map((e) => e.id)).toEqual(before.map((e) => e.id));
  });

  it('ignores records that are not INSERTs of request items', async () => {
    const sink = recording();
    const [first] = await streamRecords(store.endpoint, store.tableName);
    const modify = { ...asLambdaRecord(first!), eventName: 'MODIFY' as const };
    const other = { eventName: 'INSERT' as const, dynamodb: { SequenceNumber: '1', NewImage: { __edb_e__: { S: 'record' } } } };
    expect(await createPublisher(() => sink)({ Records: [modify, other, { eventName: 'REMOVE' }] })).toEqual({ batchItemFailures: [] });
    expect(sink.events).toEqual([]);
  });
});
