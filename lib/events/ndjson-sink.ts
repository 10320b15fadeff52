import { appendFileSync, existsSync, openSync, closeSync, readSync, statSync, truncateSync } from 'node:fs';
import type { CheckpointedSink } from '#lib/events/outbox.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';

/** The bytes of a file from `offset` to its end. */
function tail(file: string, offset: number): Buffer {
  const size = statSync(file).size;
  const buffer = Buffer.alloc(Math.max(0, size - offset));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer;
}

/**
 * Appends each event as one JSON line to `file` (locally: `LTS_EVENTS_FILE`). A record's events are one
 * append. The checkpoint saves the file's length; after a crash, the events appended past it (delivered,
 * not yet checkpointed) are read back and not appended again, so the file holds every event once.
 */
export function ndjsonSink(file: string): CheckpointedSink {
  /** Ids already in the file past the saved length: the stream delivers them again after a crash. */
  let written = new Set<string>();
  return {
    async deliver(events: EventEnvelope[]) {
      const lines = events.filter((event) => !written.delete(event.id)).map((event) => `${JSON.stringify(event)}\n`);
      if (lines.length > 0) appendFileSync(file, lines.join(''));
      // A file refuses nothing: a failed append (a full disk) throws, and is tried again.
      return [];
    },
    settle: () => (existsSync(file) ? statSync(file).size : 0),
    resume(saved) {
      if (!existsSync(file)) return;
      const text = tail(file, typeof saved === 'number' ? saved : 0).toString('utf8');
      // A line cut short by a crash was never a whole event: it goes, and its event is appended again.
      const complete = text.slice(0, text.lastIndexOf('\n') + 1);
      if (complete.length < text.length) truncateSync(file, statSync(file).size - Buffer.byteLength(text.slice(complete.length)));
      written = new Set(
        complete
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as EventEnvelope).id),
      );
    },
  };
}
