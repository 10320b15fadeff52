import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { DeadLetter } from '#lib/events/dead-letters.ts';
import { log } from '#lib/log.ts';

/** The dead-letter file beside a feed file: `events.ndjson` → `events.dead-letters.ndjson`. */
export const deadLetterFileOf = (eventsFile: string): string =>
  join(dirname(eventsFile), `${basename(eventsFile).replace(/\.ndjson$/, '')}.dead-letters.ndjson`);

/**
 * The local publishers' dead letters: one JSON line each, appended (docs/events.md "Dead letters"). Its
 * letters are counted by sink from the file as it is at start (an operator removes the lines handled),
 * for `GET /health`.
 */
export class DeadLetterFile {
  private readonly counts = new Map<string, number>();

  constructor(readonly path: string) {
    if (!existsSync(path)) return;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const sink = line && sinkOf(line);
      if (sink) this.counts.set(sink, this.count(sink) + 1);
    }
  }

  /** Letters of `sink` in the file. */
  count(sink: string): number {
    return this.counts.get(sink) ?? 0;
  }

  append(letter: DeadLetter): void {
    appendFileSync(this.path, `${JSON.stringify(letter)}\n`);
    this.counts.set(letter.sink, this.count(letter.sink) + 1);
    log('warn', `an event record was set aside in ${this.path}; the feed goes on`, {
      sink: letter.sink,
      sequenceNumber: letter.sequence_number,
      eventId: letter.event?.id,
      reason: letter.reason,
    });
  }
}

/** The sink a line names (a line cut short by a crash counts for none). */
function sinkOf(line: string): string | undefined {
  try {
    return (JSON.parse(line) as DeadLetter).sink;
  } catch {
    return undefined;
  }
}
