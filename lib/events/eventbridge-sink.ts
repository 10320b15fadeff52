import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { EventSink } from '#lib/events/outbox.ts';
import { withRetry, type RetryPolicy } from '#lib/events/retry.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';

/** EventBridge's limits: entries per PutEvents request, and bytes per request (and so per entry). */
export const PUT_EVENTS_ENTRIES = 10;
export const PUT_EVENTS_BYTES = 256 * 1024;

/** The events' source on the bus (contract §4). */
export const EVENT_SOURCE = 'lts';

/** Entries EventBridge refused (FailedEntryCount) are sent again, alone, this often before the record fails. */
const FAILED_ENTRY_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 2_000 };

/** An entry's size as EventBridge counts it: source, detail type and detail, in UTF-8 bytes. */
const entrySize = (entry: PutEventsRequestEntry): number =>
  Buffer.byteLength(entry.Source ?? '') + Buffer.byteLength(entry.DetailType ?? '') + Buffer.byteLength(entry.Detail ?? '');

/**
 * An event too large for EventBridge keeps its envelope, with `data` cut to a link-only stub
 * `{type, id, links: {self}}` and `data_omitted: true`: the consumer reads the resource from the API.
 */
export function linkOnly(event: EventEnvelope): EventEnvelope & { data_omitted: true } {
  const data = (event.data ?? {}) as { type?: string; id?: string; links?: { self?: string } };
  return { ...event, data: { type: data.type, id: data.id, links: { self: data.links?.self } }, data_omitted: true };
}

/** The PutEvents entry of an event, its data replaced by a stub when the whole would pass EventBridge's limit. */
export function entryOf(event: EventEnvelope, busName: string): PutEventsRequestEntry {
  const entry = (detail: unknown) => ({ EventBusName: busName, Source: EVENT_SOURCE, DetailType: event.type, Detail: JSON.stringify(detail) });
  const full = entry(event);
  if (entrySize(full) <= PUT_EVENTS_BYTES) return full;
  const stub = entry(linkOnly(event));
  if (entrySize(stub) > PUT_EVENTS_BYTES) throw new Error(`event ${event.id} is over EventBridge's 256 KB even without its data`);
  return stub;
}

/** Entries in PutEvents requests of at most 10 entries and 256 KB each, in order. */
export function batchEntries(entries: PutEventsRequestEntry[]): PutEventsRequestEntry[][] {
  const batches: PutEventsRequestEntry[][] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = entrySize(entry);
    const last = batches.at(-1);
    if (!last || last.length === PUT_EVENTS_ENTRIES || bytes + size > PUT_EVENTS_BYTES) {
      batches.push([entry]);
      bytes = size;
    } else {
      last.push(entry);
      bytes += size;
    }
  }
  return batches;
}

/**
 * Publishes to an EventBridge bus (source `lts`, detail-type = the event's type, detail = the envelope).
 * Entries the bus refuses are sent again with backoff; if some are still refused the delivery throws,
 * naming their error codes, so the stream record is reported and retried, never dropped.
 */
export function eventBridgeSink(busName: string, client: Pick<EventBridgeClient, 'send'> = new EventBridgeClient({})): EventSink {
  const put = async (entries: PutEventsRequestEntry[]): Promise<void> => {
    let pending = entries;
    await withRetry(FAILED_ENTRY_RETRY, async () => {
      const { FailedEntryCount = 0, Entries = [] } = await client.send(new PutEventsCommand({ Entries: pending }));
      if (FailedEntryCount === 0) return;
      // Results come in the order of the entries sent; a failed one has an ErrorCode.
      const failed = pending.filter((_, i) => Entries[i]?.ErrorCode);
      const codes = [...new Set(Entries.flatMap((e) => (e.ErrorCode ? [e.ErrorCode] : [])))];
      pending = failed.length > 0 ? failed : pending;
      throw new Error(`EventBridge refused ${FailedEntryCount} of ${Entries.length} entries (${codes.join(', ')})`);
    });
  };
  return {
    async deliver(events) {
      for (const batch of batchEntries(events.map((event) => entryOf(event, busName)))) await put(batch);
    },
  };
}
