import { join } from 'node:path';
import type { CheckpointedSink } from '#lib/events/outbox.ts';
import { ndjsonSink } from '#lib/events/ndjson-sink.ts';
import { webhookSink } from '#lib/events/webhook-sink.ts';
import { DeadLetterFile, deadLetterFileOf } from '#lib/local/dead-letter-file.ts';
import { OutboxFollower, type FollowerHealth } from '#lib/local/outbox-stream.ts';
import { shownPath } from '#lib/local/shown-paths.ts';

export interface LocalEventsOptions {
  /** Where the NDJSON file's and the webhook's checkpoints are kept; none with an in-memory table. */
  checkpointDir?: string;
  /** The NDJSON file every event is appended to (`LTS_EVENTS_FILE`); its dead letters go beside it. */
  eventsFile: string;
  /** Each event is POSTed here too, when set (`LTS_WEBHOOK_URL`). */
  webhookUrl?: string;
  pollMs?: number;
}

/** How the local feed is doing, for `GET /health`. */
export interface LocalEventsHealth {
  /** Where the dead letters are, as the page shows files (lib/local/shown-paths.ts). */
  dead_letters_file: string;
  sinks: Record<string, FollowerHealth>;
}

/** The local publishers: one follower of the table's stream per sink, each with its own checkpoint. */
export interface LocalEvents {
  /** By sink: `file`, and `webhook` when configured. */
  followers: Map<string, OutboxFollower>;
  deadLetters: DeadLetterFile;
  health(): LocalEventsHealth;
  /** Stops every follower after its pass under way. */
  stop(): Promise<void>;
}

/** Starts publishing the table's outbox to the NDJSON file and, when configured, the webhook (contract §4). */
export async function startLocalEvents(endpoint: string, tableName: string, options: LocalEventsOptions): Promise<LocalEvents> {
  const { checkpointDir, eventsFile, webhookUrl, pollMs } = options;
  const deadLetters = new DeadLetterFile(deadLetterFileOf(eventsFile));
  const follow = (name: string, sink: CheckpointedSink) =>
    OutboxFollower.start({
      endpoint,
      tableName,
      sink,
      name,
      deadLetters,
      ...(checkpointDir ? { checkpointFile: join(checkpointDir, `events-${name}.checkpoint.json`) } : {}),
      ...(pollMs ? { pollMs } : {}),
    });
  const followers = new Map([['file', await follow('file', ndjsonSink(eventsFile))]]);
  if (webhookUrl) followers.set('webhook', await follow('webhook', webhookSink(webhookUrl)));
  return {
    followers,
    deadLetters,
    health: () => ({
      dead_letters_file: shownPath(deadLetters.path),
      sinks: Object.fromEntries([...followers].map(([name, follower]) => [name, follower.health()])),
    }),
    async stop() {
      await Promise.all([...followers.values()].map((f) => f.stop()));
    },
  };
}
