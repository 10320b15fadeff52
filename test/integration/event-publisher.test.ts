import { randomBytes } from 'node:crypto';
import type { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPublisher } from '../../functions/events/publisher.ts';
import { DEAD_LETTER_DETAIL_TYPE, DEAD_LETTER_SOURCE, type DeadLetter } from '#lib/events/dead-letters.ts';
import { eventBridgeDeadLetters, eventBridgeSink, PUT_EVENTS_BYTES } from '#lib/events/eventbridge-sink.ts';
import { eventsOfRecord, publishRecords, type EventSink, type SetAside } from '#lib/events/outbox.ts';
import { eventsSchema } from '#lib/events/schema.ts';
import { registry } from '#lib/resources/index.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { call, doc } from '../support/api.ts';
import { uniqueName } from '../support/fixtures.ts';
import { freshStreamedStore } from '../support/store.ts';
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
  return {
    events,
    deliver: async (batch) => {
      events.push(...batch);
      return [];
    },
  };
};
type Entry = NonNullable<PutEventsCommand['input']['Entries']>[number];
/**
 * An EventBridge client stand-in recording the entries of each PutEvents call; it accepts them all but
 * those `refuse` answers an error code for.
 */
function fakeEventBridge(refuse: (entry: Entry) => string | undefined = () => undefined) {
  const calls: Entry[][] = [];
  return {
    calls,
    send: async (command: PutEventsCommand) => {
      const entries = command.input.Entries ?? [];
      calls.push(entries);
      const results = entries.map((entry, i) => (refuse(entry) ? { ErrorCode: refuse(entry), ErrorMessage: 'refused here' } : { EventId: `e${i}` }));
      return { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results };
    },
  };
}
/** The publisher as deployed, its bus a fake: events and dead letters on one bus, as the stack routes them. */
const busPublisher = (bus: ReturnType<typeof fakeEventBridge>) =>
  createPublisher(() => ({ sink: eventBridgeSink('lts-bus', bus as never), deadLetters: eventBridgeDeadLetters('lts-bus', bus as never) }));
/** The dead letters among the entries a fake bus accepted. */
const deadLettersOn = (bus: ReturnType<typeof fakeEventBridge>): DeadLetter[] =>
  bus.calls
    .flat()
    .filter((e) => e.Source === DEAD_LETTER_SOURCE)
    .map((e) => {
      expect(e.DetailType).toBe(DEAD_LETTER_DETAIL_TYPE);
      return JSON.parse(e.Detail!);
    });
/** The domain events among the entries a fake bus was sent. */
const eventsOn = (bus: ReturnType<typeof fakeEventBridge>): EventEnvelope[] =>
  bus.calls
    .flat()
    .filter((e) => e.Source === 'lts')
    .map((e) => JSON.parse(e.Detail!));
/** Keeps what is set aside. */
const keeping = () => {
  const letters: SetAside[] = [];
  return { letters, setAside: (letter: SetAside) => void letters.push(letter) };
};
const sampleDoc = (name: string) => doc('samples', { name });
let sampleId: string;
let bigEvent: EventEnvelope;

beforeAll(async () => {
  store = await freshStreamedStore();
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
    const kept = keeping();
    expect(await publishRecords(await streamRecords(store.endpoint, store.tableName), sink, kept)).toEqual({});
    expect(kept.letters).toEqual([]);
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
    expect(await busPublisher(bus)({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(deadLettersOn(bus)).toEqual([]);
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
        return sink.deliver(events);
      },
    };
    const result = await createPublisher(() => ({ sink: failing, deadLetters: async () => {} }))({ Records: records });
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.slice(k).map((r) => r.dynamodb!.SequenceNumber));
    const before = (await Promise.all(records.slice(0, k).map(eventsOfRecord))).flat();
    expect(sink.events.map((e) => e.id)).toEqual(before.map((e) => e.id));
  });

  it('ignores records that are not INSERTs of request items', async () => {
    const sink = recording();
    const [first] = await streamRecords(store.endpoint, store.tableName);
    const modify = { ...asLambdaRecord(first!), eventName: 'MODIFY' as const };
    const other = { eventName: 'INSERT' as const, dynamodb: { SequenceNumber: '1', NewImage: { __edb_e__: { S: 'record' } } } };
    const kept = keeping();
    expect(
      await createPublisher(() => ({ sink, deadLetters: async (l) => kept.setAside(l as never) }))({ Records: [modify, other, { eventName: 'REMOVE' }] }),
    ).toEqual({
      batchItemFailures: [],
    });
    expect(kept.letters).toEqual([]);
    expect(sink.events).toEqual([]);
  });
});

describe('what the stream consumer sets aside (the dead letters)', () => {
  /** The real records in Lambda's form, the events each carries, and the index of the `n`th that carries any. */
  const lambdaRecords = async () => {
    const records = (await streamRecords(store.endpoint, store.tableName)).map(asLambdaRecord);
    const events = await Promise.all(records.map(eventsOfRecord));
    const nth = (n: number) => events.map((e, i) => (e.length > 0 ? i : -1)).filter((i) => i >= 0)[n]!;
    return { records, events, nth };
  };

  it('sends a record it cannot read to the dead letters, with its sequence number, key, reason and image, and publishes every record after it', async () => {
    const { records, events, nth } = await lambdaRecords();
    const k = nth(1);
    const poison = structuredClone(records[k]!);
    // A payload that is not gzip, in a record as the stream delivers it: the request item cannot be read.
    const image = poison.dynamodb!.NewImage as Record<string, unknown>;
    delete image.events;
    image.payload = { B: Buffer.from('not gzip').toString('base64') };
    const bus = fakeEventBridge();
    const result = await busPublisher(bus)({ Records: [...records.slice(0, k), poison, ...records.slice(k + 1)] });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(eventsOn(bus).map((e) => e.id)).toEqual(events.filter((_, i) => i !== k).flatMap((e) => e.map((x) => x.id)));
    const [letter, ...others] = deadLettersOn(bus);
    expect(others).toEqual([]);
    expect(letter).toMatchObject({
      sink: 'eventbridge',
      sequence_number: poison.dynamodb!.SequenceNumber,
      keys: { pk: poison.dynamodb!.Keys!.pk!.S, sk: poison.dynamodb!.Keys!.sk!.S },
      reason: expect.stringMatching(/^the record cannot be read: .*header/),
      image: { payload: { B: Buffer.from('not gzip').toString('base64') } },
    });
    expect(letter!.event).toBeUndefined();
  });

  it('sets aside an event the bus refuses for good (MalformedDetail) and publishes the rest; throttling is still tried again', async () => {
    const { records, events, nth } = await lambdaRecords();
    const refusedEvent = events[nth(2)]![0]!;
    const bus = fakeEventBridge((entry) => (entry.Source === 'lts' && JSON.parse(entry.Detail!).id === refusedEvent.id ? 'MalformedDetail' : undefined));
    expect(await busPublisher(bus)({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(
      eventsOn(bus)
        .filter((e) => e.id !== refusedEvent.id)
        .map((e) => e.id),
    ).toEqual(
      events
        .flat()
        .filter((e) => e.id !== refusedEvent.id)
        .map((e) => e.id),
    );
    expect(deadLettersOn(bus)).toEqual([
      expect.objectContaining({
        sink: 'eventbridge',
        sequence_number: records[nth(2)]!.dynamodb!.SequenceNumber,
        event: refusedEvent,
        reason: expect.stringContaining('MalformedDetail'),
      }),
    ]);

    // Throttled entries are not dead letters: the record fails and goes back to the stream.
    const throttling = fakeEventBridge((entry) =>
      entry.Source === 'lts' && JSON.parse(entry.Detail!).id === refusedEvent.id ? 'ThrottlingException' : undefined,
    );
    const result = await busPublisher(throttling)({ Records: records });
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.slice(nth(2)).map((r) => r.dynamodb!.SequenceNumber));
    expect(deadLettersOn(throttling)).toEqual([]);
  }, 60_000);

  it('reports the record when its dead letter cannot be sent either, so nothing is lost', async () => {
    const { records, nth } = await lambdaRecords();
    const k = nth(0);
    const poison = structuredClone(records[k]!);
    (poison.dynamodb!.NewImage as Record<string, unknown>).events = { X: 'no such form' };
    const bus = fakeEventBridge((entry) => (entry.Source === DEAD_LETTER_SOURCE ? 'InternalFailure' : undefined));
    const result = await busPublisher(bus)({ Records: [...records.slice(0, k), poison, ...records.slice(k + 1)] });
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.slice(k).map((r) => r.dynamodb!.SequenceNumber));
  }, 60_000);
});
