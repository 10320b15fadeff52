import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { DEAD_LETTER_DETAIL_TYPE, DEAD_LETTER_SOURCE, type DeadLetter } from '#lib/events/dead-letters.ts';
import type { EventSink, Refusal } from '#lib/events/outbox.ts';
import { PermanentError, withRetry, type RetryPolicy } from '#lib/events/retry.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';

/** EventBridge's limits: entries per PutEvents request, and bytes per request (and so per entry). */
export const PUT_EVENTS_ENTRIES = 10;
export const PUT_EVENTS_BYTES = 256 * 1024;

/** The events' source on the bus (contract §4). */
export const EVENT_SOURCE = 'lts';

/**
 * Entry error codes that name a fault of the event itself: sending it again cannot help, so it is set
 * aside. Every other code holds the feed and is tried again: throttling and internal failures pass, and
 * the authorisation codes (AccessDenied, NotAuthorizedFor…) of a misconfigured deployment would refuse
 * every event, which is for an operator to fix (the publisher's alarms), not for the dead letters to fill with.
 */
const EVENT_FAULTS = new Set(['InvalidArgument', 'MalformedDetail', 'RedactionFailure']);

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
  if (entrySize(stub) > PUT_EVENTS_BYTES) throw new PermanentError(`event ${event.id} is over EventBridge's 256 KB even without its data`);
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
 * naming their error codes, so the stream record is reported and retried, never dropped. An event the
 * bus can never take (too large even link-only, or refused for a fault of its own) is returned refused.
 */
export function eventBridgeSink(busName: string, client: Pick<EventBridgeClient, 'send'> = new EventBridgeClient({})): EventSink {
  const put = async (entries: PutEventsRequestEntry[], eventOf: Map<PutEventsRequestEntry, EventEnvelope>): Promise<Refusal[]> => {
    const refused: Refusal[] = [];
    let pending = entries;
    await withRetry(FAILED_ENTRY_RETRY, async () => {
      const { FailedEntryCount = 0, Entries = [] } = await client.send(new PutEventsCommand({ Entries: pending }));
      if (FailedEntryCount === 0) return;
      // Results come in the order of the entries sent; a failed one has an ErrorCode.
      const failed = pending.flatMap((entry, i) => (Entries[i]?.ErrorCode ? [{ entry, code: Entries[i].ErrorCode, message: Entries[i].ErrorMessage }] : []));
      for (const { entry, code, message } of failed.filter((f) => EVENT_FAULTS.has(f.code))) {
        refused.push({ event: eventOf.get(entry)!, reason: `EventBridge refused the event: ${code}${message ? ` (${message})` : ''}` });
      }
      const again = failed.filter((f) => !EVENT_FAULTS.has(f.code));
      if (failed.length > 0 && again.length === 0) return;
      if (again.length > 0) pending = again.map((f) => f.entry);
      const codes = [...new Set(again.map((f) => f.code))];
      throw new Error(`EventBridge refused ${FailedEntryCount} of ${Entries.length} entries (${codes.join(', ')})`);
    });
    return refused;
  };
  return {
    async deliver(events) {
      const refused: Refusal[] = [];
      const eventOf = new Map<PutEventsRequestEntry, EventEnvelope>();
      for (const event of events) {
        try {
          eventOf.set(entryOf(event, busName), event);
        } catch (error) {
          if (!(error instanceof PermanentError)) throw error;
          refused.push({ event, reason: error.message });
        }
      }
      for (const batch of batchEntries([...eventOf.keys()])) refused.push(...(await put(batch, eventOf)));
      return refused;
    },
  };
}

/**
 * Sends each dead letter to the bus as source `lts.publisher`, detail-type `dead_letter`; a rule routes
 * them to the publisher's dead-letter queue (infra/events.ts, docs/events.md). What would pass the bus's
 * 256 KB is left out: the unreadable record's image first, then the event's data (the request item's key
 * stays, to read it from the table). Throws when the bus does not take it, so the record is tried again.
 */
export function eventBridgeDeadLetters(busName: string, client: Pick<EventBridgeClient, 'send'>): (letter: DeadLetter) => Promise<void> {
  const entry = (letter: DeadLetter): PutEventsRequestEntry => ({
    EventBusName: busName,
    Source: DEAD_LETTER_SOURCE,
    DetailType: DEAD_LETTER_DETAIL_TYPE,
    Detail: JSON.stringify(letter),
  });
  return async (letter) => {
    const { image: _, ...withoutImage } = letter;
    const fitting = [letter, withoutImage, { ...withoutImage, ...(letter.event ? { event: linkOnly(letter.event) } : {}) }]
      .map(entry)
      .find((e) => entrySize(e) <= PUT_EVENTS_BYTES);
    if (!fitting) throw new Error(`the dead letter of record ${letter.sequence_number} is over EventBridge's 256 KB`);
    await withRetry(FAILED_ENTRY_RETRY, async () => {
      const { FailedEntryCount = 0, Entries = [] } = await client.send(new PutEventsCommand({ Entries: [fitting] }));
      if (FailedEntryCount > 0) throw new Error(`EventBridge refused the dead letter (${Entries[0]?.ErrorCode})`);
    });
  };
}
