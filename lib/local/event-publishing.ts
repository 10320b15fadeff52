import { join } from 'node:path';
import { ndjsonSink } from '#lib/events/ndjson-sink.ts';
import { webhookSink } from '#lib/events/webhook-sink.ts';
import { followOutbox, type Follower } from '#lib/local/outbox-stream.ts';

export interface LocalEventsOptions {
  /** Where the NDJSON file's and the webhook's checkpoints are kept; none with an in-memory table. */
  checkpointDir?: string;
  /** The NDJSON file every event is appended to (`LTS_EVENTS_FILE`). */
  eventsFile: string;
  /** Each event is POSTed here too, when set (`LTS_WEBHOOK_URL`). */
  webhookUrl?: string;
  pollMs?: number;
}

/** The local publishers: one follower of the table's stream per sink, each with its own checkpoint. */
export interface LocalEvents {
  followers: Follower[];
  /** Stops every follower after its pass under way. */
  stop(): Promise<void>;
}

/** Starts publishing the table's outbox to the NDJSON file and, when configured, the webhook (contract §4). */
export async function startLocalEvents(endpoint: string, tableName: string, options: LocalEventsOptions): Promise<LocalEvents> {
  const { checkpointDir, eventsFile, webhookUrl, pollMs } = options;
  const follow = (name: string, sink: Parameters<typeof followOutbox>[0]['sink']) =>
    followOutbox({
      endpoint,
      tableName,
      sink,
      name,
      ...(checkpointDir ? { checkpointFile: join(checkpointDir, `events-${name}.checkpoint.json`) } : {}),
      ...(pollMs ? { pollMs } : {}),
    });
  const followers = [await follow('file', ndjsonSink(eventsFile))];
  if (webhookUrl) followers.push(await follow('webhook', webhookSink(webhookUrl)));
  return {
    followers,
    async stop() {
      await Promise.all(followers.map((f) => f.stop()));
    },
  };
}
