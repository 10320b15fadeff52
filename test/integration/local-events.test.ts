import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import type { DeadLetter } from '#lib/events/dead-letters.ts';
import { webhookSink } from '#lib/events/webhook-sink.ts';
import { DeadLetterFile } from '#lib/local/dead-letter-file.ts';
import { startLocalEvents } from '#lib/local/event-publishing.ts';
import { OutboxFollower } from '#lib/local/outbox-stream.ts';
import { shownPath } from '#lib/local/shown-paths.ts';
import { startLocalService } from '#lib/local/service.ts';
import { dynamo } from '#lib/store/client.ts';
import { call, doc } from '../support/api.ts';
import { create, createPlate, uniqueName } from '../support/fixtures.ts';
import { adminUuid, templateUuid } from '../support/lab.ts';
import { createRequest, createOrder, workIds } from '../support/requests.ts';
import { freshStreamedStore } from '../support/store.ts';
import { outboxEvents, scanTable } from '../support/table.ts';

/**
 * Local publishing (`npm start`): DynamoDB Local's stream to the NDJSON file and a webhook (a node:http
 * server here), with checkpoints in the data dir.
 */

let store: { endpoint: string; tableName: string };
const dir = mkdtempSync(join(tmpdir(), 'lts-events-'));
beforeAll(async () => {
  store = await freshStreamedStore();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const createSamples = async (n: number) => {
  for (let i = 0; i < n; i++) expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('local') }) })).status).toBe(201);
};
const outboxIds = async () => (await outboxEvents()).map((e) => e.id).sort();
const readLines = <T>(file: string): T[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as T)
    : [];

/** A webhook receiver on 127.0.0.1: records what it accepts; `answer` may refuse an event with a status. */
async function receiver(answer: (event: { id: string; type: string; data: any }) => number = () => 204) {
  const received: { id: string; type: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const event = JSON.parse(body);
      const status = answer(event);
      if (status < 300) received.push(event);
      response.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

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
    await events.followers.get('file')!.caughtUp();
    await events.stop();
    expect(fileIds()).toEqual(await outboxIds());
    const earlier = join(dir, 'earlier.checkpoint.json');
    copyFileSync(checkpoint, earlier);

    // Writes while the publisher is stopped are published when it starts again.
    await createSamples(2);
    events = await publish();
    await events.followers.get('file')!.caughtUp();
    await events.stop();
    expect(fileIds()).toEqual(await outboxIds());

    // A crash after appending, before the checkpoint was saved (the older checkpoint is back), and in the
    // middle of a line: the lines past the checkpoint are not appended again, the cut one is replaced.
    copyFileSync(earlier, checkpoint);
    appendFileSync(eventsFile, '{"id":"cut sho');
    await createSamples(1);
    events = await publish();
    await events.followers.get('file')!.caughtUp();
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
    const follower = await OutboxFollower.start({
      ...store,
      sink,
      name: 'webhook',
      checkpointFile,
      deadLetters: new DeadLetterFile(join(dir, 'down.dead-letters.ndjson')),
      pollMs: 50,
    });
    await createSamples(2);
    await follower.caughtUp();
    expect([...received].sort()).toEqual(await outboxIds());

    await stopReceiver();
    await createSamples(3);
    // Down for longer than one delivery's retries: the follower fails, pauses and tries again from its
    // checkpoint, and says so in its health (since when, how often), never setting the events aside.
    await vi.waitUntil(() => (follower.health().retrying?.failures ?? 0) >= 2, { timeout: 60_000, interval: 50 });
    expect(follower.health()).toEqual({
      dead_letters: 0,
      retrying: { since: expect.any(String), failures: expect.any(Number), error: expect.stringMatching(/fetch failed|ECONNREFUSED/) },
    });
    await startReceiver();
    await follower.caughtUp();
    expect(follower.health()).toEqual({ dead_letters: 0 });
    await follower.stop();
    await stopReceiver();
    expect(received.length).toBe(new Set(received).size);
    expect([...received].sort()).toEqual(await outboxIds());
    expect(existsSync(checkpointFile)).toBe(true);
  });
});

describe('what the feed cannot deliver', () => {
  it('publishes the writes whose records hold empty maps: a request (options {}), a collection PATCHed to metadata {}, a transfer from an empty plate', async () => {
    const eventsFile = join(dir, 'empty-maps.ndjson');
    const events = await startLocalEvents(store.endpoint, store.tableName, { eventsFile, pollMs: 50 });
    const { study, sequencing } = await workIds();
    const { submission, order } = await createOrder(study, [sequencing]);
    const request = await createRequest({
      asset: { type: 'wells', id: String(Number((await createPlate()).id) * 1000 + 1) },
      requestType: sequencing,
      submission,
      order,
    });
    const collection = await create('custom_metadatum_collections', {
      user_id: await call('GET', '/api/v2/users?filter[login]=admin').then((r) => r.body.data[0].id),
      asset_id: (await createPlate()).id,
      metadata: { robot: 'bed-1' },
    });
    const cleared = await call('PATCH', `/api/v2/custom_metadatum_collections/${collection.id}`, {
      body: doc('custom_metadatum_collections', { metadata: {} }, undefined, collection.id),
    });
    expect(cleared.status).toBe(200);
    const [source, destination] = [await createPlate(), await createPlate()];
    const transfer = await call('POST', '/api/v2/transfers', {
      body: doc('transfers', {
        transfer_template_uuid: await templateUuid('Transfer columns 1-12'),
        source_uuid: source.attributes.uuid,
        destination_uuid: destination.attributes.uuid,
        user_uuid: await adminUuid(),
      }),
    });
    expect(transfer.status).toBe(201);
    await events.followers.get('file')!.caughtUp();
    await events.stop();
    const published = readLines<{ id: string; type: string; resource: { id: string } }>(eventsFile);
    expect(published.map((e) => e.id).sort()).toEqual(await outboxIds());
    expect(published).toContainEqual(expect.objectContaining({ type: 'requests.created', resource: expect.objectContaining({ id: request.id }) }));
    expect(published).toContainEqual(
      expect.objectContaining({ type: 'custom_metadatum_collections.updated', resource: expect.objectContaining({ id: collection.id }) }),
    );
    expect(published).toContainEqual(expect.objectContaining({ type: 'transfers.created', resource: expect.objectContaining({ id: transfer.body.data.id }) }));
    expect(readLines(join(dir, 'empty-maps.dead-letters.ndjson'))).toEqual([]);
  }, 120_000);

  it('sets aside a record it cannot read and an event the webhook refuses, with one warning naming the file, counts them in /health, and goes on', async () => {
    const eventsFile = join(dir, 'poison', 'events.ndjson');
    const deadLettersFile = join(dir, 'poison', 'events.dead-letters.ndjson');
    mkdirSync(join(dir, 'poison'));
    const refusedName = uniqueName('refused');
    const hook = await receiver((event) => (event.type === 'samples.created' && event.data.attributes.name === refusedName ? 422 : 204));
    const service = await startLocalService({
      dynamo: { endpoint: store.endpoint, stop: async () => {} },
      tableName: store.tableName,
      events: { eventsFile, webhookUrl: hook.url, pollMs: 50 },
    });
    const logged = vi.spyOn(console, 'log');
    process.env.LOG_LEVEL = 'warn';
    resetConfig();
    try {
      // A request item whose payload is not gzip: a record no reader understands, between good ones.
      await createSamples(1);
      const [model] = await scanTable('request');
      const { events: _, ...rest } = model!;
      const poison = { ...rest, pk: `${model!.pk}-poison`, sk: `${model!.sk}-poison`, key: `${model!.key}-poison`, payload: Buffer.from('not gzip') };
      await dynamo().send(new PutCommand({ TableName: store.tableName, Item: poison }));
      expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: refusedName }) })).status).toBe(201);
      await createSamples(1);
      for (const follower of service.events!.followers.values()) await follower.caughtUp();
      // Out of the table again, so that the outbox can be read.
      await dynamo().send(new DeleteCommand({ TableName: store.tableName, Key: { pk: poison.pk, sk: poison.sk } }));

      // The file has every event; the webhook every one but the refused.
      const outbox = await outboxEvents();
      expect(
        readLines<{ id: string }>(eventsFile)
          .map((e) => e.id)
          .sort(),
      ).toEqual(outbox.map((e) => e.id).sort());
      const refused = outbox.find((e) => e.type === 'samples.created' && (e.data as any).attributes.name === refusedName)!;
      expect(hook.received.map((e) => e.id).sort()).toEqual(
        outbox
          .filter((e) => e.id !== refused.id)
          .map((e) => e.id)
          .sort(),
      );

      const letters = readLines<DeadLetter>(deadLettersFile);
      const unreadable = {
        sequence_number: expect.any(String),
        keys: { pk: poison.pk, sk: poison.sk },
        reason: expect.stringMatching(/^the record cannot be read: /),
      };
      expect(letters).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            sink: 'file',
            ...unreadable,
            image: expect.objectContaining({ payload: { B: Buffer.from('not gzip').toString('base64') } }),
          }),
          expect.objectContaining({ sink: 'webhook', ...unreadable }),
          expect.objectContaining({ sink: 'webhook', event: refused, reason: 'the webhook refused the event: webhook answered 422' }),
        ]),
      );
      expect(letters).toHaveLength(3);
      const warnings = logged.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('"level":"warn"'));
      expect(warnings.filter((line) => line.includes(`set aside in ${deadLettersFile}`))).toHaveLength(3);

      const health = await fetch(`${service.url}/health`).then((r) => r.json());
      expect(health).toEqual({
        // The file by its name: /health shows no absolute path (the folder is outside the working directory).
        meta: { status: 'ok', events: { dead_letters_file: 'events.dead-letters.ndjson', sinks: { file: { dead_letters: 1 }, webhook: { dead_letters: 2 } } } },
      });
    } finally {
      logged.mockRestore();
      process.env.LOG_LEVEL = 'silent';
      resetConfig();
      await service.stop();
      await hook.close();
    }
  }, 120_000);
});

describe('GET /health of the local service', () => {
  it('shows no absolute file path: the dead-letter file and a failing sink’s error name their files, relative to the working directory or by name', async () => {
    // A feed file in a folder that does not exist: every append fails with the file system's error, which names the file.
    const missing = join(dir, 'missing', 'events.ndjson');
    const service = await startLocalService({
      dynamo: { endpoint: store.endpoint, stop: async () => {} },
      tableName: store.tableName,
      events: { eventsFile: missing, pollMs: 50 },
    });
    try {
      await createSamples(1);
      await vi.waitUntil(() => service.events!.followers.get('file')!.health().retrying !== undefined, { timeout: 60_000, interval: 50 });
      const text = await fetch(`${service.url}/health`).then((r) => r.text());
      const health = JSON.parse(text);
      expect(health.meta.events.dead_letters_file).toBe('events.dead-letters.ndjson');
      expect(health.meta.events.sinks.file.retrying.error).toMatch(/ENOENT.*'events\.ndjson'/);
      // No path from the root anywhere: not the folder, not a home or working directory.
      expect(text).not.toContain(dir);
      expect(text).not.toContain(process.cwd());
      expect(text).not.toMatch(/["'\s(]\/[\w.-]+\//);
    } finally {
      await service.stop();
    }
    // A file inside the working directory (the default data dir, .lts) is shown by its path from there, as an operator types it.
    expect(shownPath(join(process.cwd(), '.lts', 'events.dead-letters.ndjson'))).toBe(join('.lts', 'events.dead-letters.ndjson'));
    expect(shownPath(join(tmpdir(), 'lts', 'events.dead-letters.ndjson'))).toBe('events.dead-letters.ndjson');
  });
});
