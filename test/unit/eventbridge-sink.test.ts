import type { PutEventsCommand, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { batchEntries, eventBridgeSink, PUT_EVENTS_BYTES } from '#lib/events/eventbridge-sink.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';

/** The EventBridge sink against a stand-in client (EventBridge itself is not available to tests). */

const event = (n: number, data: unknown = { type: 'samples', id: String(n) }): EventEnvelope => ({
  id: `event-${n}`,
  type: 'samples.created',
  occurred_at: '2026-11-24T05:00:00.000Z',
  resource: { type: 'samples', id: String(n), uuid: null, version: 1 },
  data,
  actor: null,
});
const entry = (bytes: number): PutEventsRequestEntry => ({ Source: 'lts', DetailType: 'x', Detail: 'd'.repeat(bytes - 4) });

describe('batchEntries', () => {
  it('puts at most 10 entries in a request', () => {
    expect(batchEntries(Array.from({ length: 23 }, () => entry(100))).map((b) => b.length)).toEqual([10, 10, 3]);
  });
  it('starts a new request before 256 KB would be passed, keeping the order', () => {
    const entries = [entry(100_000), entry(100_000), entry(100_000), entry(10)];
    const batches = batchEntries(entries);
    expect(batches.map((b) => b.length)).toEqual([2, 2]);
    expect(batches.flat()).toEqual(entries);
  });
});

/** A client whose answers are given in turn; it records the entries of each call. */
function scriptedClient(answers: ((entries: PutEventsRequestEntry[]) => { FailedEntryCount: number; Entries: { ErrorCode?: string }[] })[]) {
  const calls: PutEventsRequestEntry[][] = [];
  return {
    calls,
    send: async (command: PutEventsCommand) => {
      const entries = command.input.Entries ?? [];
      calls.push(entries);
      return (answers[calls.length - 1] ?? answers.at(-1)!)(entries);
    },
  };
}
const accept = (entries: PutEventsRequestEntry[]) => ({ FailedEntryCount: 0, Entries: entries.map(() => ({})) });
/** Refuses event-2 whenever it is sent. */
const refuseSecond = (entries: PutEventsRequestEntry[]) => {
  const results = entries.map((e) => (JSON.parse(e.Detail!).id === 'event-2' ? { ErrorCode: 'ThrottlingException' } : {}));
  return { FailedEntryCount: results.filter((r) => r.ErrorCode).length, Entries: results };
};

describe('eventBridgeSink', () => {
  it('sends again only the entries EventBridge refused', async () => {
    const client = scriptedClient([refuseSecond, accept]);
    await eventBridgeSink('bus', client as never).deliver([event(1), event(2), event(3)]);
    expect(client.calls.map((c) => c.map((e) => JSON.parse(e.Detail!).id))).toEqual([['event-1', 'event-2', 'event-3'], ['event-2']]);
  });

  it('throws, naming the error code, when entries are still refused after its retries', async () => {
    const client = scriptedClient([refuseSecond]);
    await expect(eventBridgeSink('bus', client as never).deliver([event(1), event(2)])).rejects.toThrow(/ThrottlingException/);
    expect(client.calls.length).toBeGreaterThan(1);
  });

  it('sends an event over 256 KB with its data cut to a link-only stub', async () => {
    const client = scriptedClient([accept]);
    const big = event(7, {
      type: 'samples',
      id: '7',
      attributes: { notes: 'x'.repeat(PUT_EVENTS_BYTES) },
      links: { self: 'https://lts.test/api/v2/samples/7' },
    });
    await eventBridgeSink('bus', client as never).deliver([big]);
    expect(JSON.parse(client.calls[0]![0]!.Detail!)).toEqual({
      ...big,
      data: { type: 'samples', id: '7', links: { self: 'https://lts.test/api/v2/samples/7' } },
      data_omitted: true,
    });
  });
});
