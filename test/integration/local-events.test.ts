import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookSink } from '#lib/events/webhook-sink.ts';
import { startLocalEvents } from '#lib/local/event-publishing.ts';
import { followOutbox } from '#lib/local/outbox-stream.ts';
import { call, doc } from '../support/api.ts';
import { uniqueName } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * Local publishing (`npm start`): DynamoDB Local's stream to the NDJSON file and a webhook (a node:http
 * server here), with checkpoints in the data dir.
 */

let store: { endpoint: string; tableName: string };
const dir = mkdtempSync(join(tmpdir(), 'lts-events-'));
beforeAll(async () => {
  store = await freshStore();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const createSamples = async (n: number) => {
  for (let i = 0; i < n; i++) expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('local') }) })).status).toBe(201);
};
const outboxIds = async () => (await outboxEvents()).map((e) => e.id).sort();

describe('the NDJSON file', () => {
  const eventsFile = join(dir, 'events.ndjson');
  const checkpoint = join(dir, 'events-file.checkpoint.json');
  const fileIds = () =>
    readFileSync(eventsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).id as string)
      .sort();
  const publish = () => startLocalEvents(store.endpoint, store.tableName, { checkpointDir: dir, eventsFile, pollMs: 50 });

  it('holds every event exactly once across restarts of the publisher, also one that crashed before its checkpoint', async () => {
    let events = await publish();
    await createSamples(3);
    await events.followers[0]!.caughtUp();
    await events.stop();
    expect(fileIds()).toEqual(await outboxIds());
    const earlier = join(dir, 'earlier.checkpoint.json');
    copyFileSync(checkpoint, earlier);

    // Writes while the publisher is stopped are published when it starts again.
    await createSamples(2);
    events = await publish();
    await events.followers[0]!.caughtUp();
    await events.stop();
    expect(fileIds()).toEqual(await outboxIds());

    // A crash after appending, before the checkpoint was saved (the older checkpoint is back), and in the
    // middle of a line: the lines past the checkpoint are not appended again, the cut one is replaced.
    copyFileSync(earlier, checkpoint);
    appendFileSync(eventsFile, '{"id":"cut sho');
    await createSamples(1);
    events = await publish();
    await events.followers[0]!.caughtUp();
    await events.stop();
    expect(fileIds()).toEqual(await outboxIds());
    expect(readFileSync(eventsFile, 'utf8').endsWith('}\n')).toBe(true);
  });
});

describe('the webhook', () => {
  /** A receiver that records each event it accepts; the first request after each start is answered 503. */
  const received: string[] = [];
  let server: Server | undefined;
  let port = 0;
  const startReceiver = async () => {
    let first = true;
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        if (first) {
          first = false;
          response.writeHead(503).end();
          return;
        }
        received.push(JSON.parse(body).id);
        response.writeHead(204).end();
      });
    });
    server.listen(port, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  };
  const stopReceiver = () => new Promise((resolve) => server!.close(resolve));

  it('loses nothing and duplicates nothing while the receiver is down for a while', async () => {
    await startReceiver();
    const checkpointFile = join(dir, 'events-webhook.checkpoint.json');
    const sink = webhookSink(`http://127.0.0.1:${port}/hook`, { attempts: 3, baseDelayMs: 20, maxDelayMs: 100 });
    const follower = await followOutbox({ ...store, sink, name: 'webhook', checkpointFile, pollMs: 50 });
    await createSamples(2);
    await follower.caughtUp();
    expect([...received].sort()).toEqual(await outboxIds());

    await stopReceiver();
    await createSamples(3);
    // Down for longer than one delivery's retries: the follower fails, pauses and tries again from its checkpoint.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await startReceiver();
    await follower.caughtUp();
    await follower.stop();
    await stopReceiver();
    expect(received.length).toBe(new Set(received).size);
    expect([...received].sort()).toEqual(await outboxIds());
    expect(existsSync(checkpointFile)).toBe(true);
  });
});
