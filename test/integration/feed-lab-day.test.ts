import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useDynamo } from '#lib/local/service.ts';
import { call, callService, doc, recordWrites } from '../support/api.ts';
import { expectVersionOrder, readFeed } from '../support/feed.ts';
import { createPlate, createSample, uniqueName } from '../support/fixtures.ts';
import { adminUuid, filledPlate, poolPlate, postTransfer, templateUuid } from '../support/lab.ts';
import { ADMIN_KEY, WRITE_KEY } from '../support/store.ts';
import { type Envelope, outboxEvents, requestItems } from '../support/table.ts';
import { routeWrites, send, WRITES, writeOf } from '../support/writes.ts';

/**
 * The event feed of `npm start` over a whole lab day, run as users run it: lib/local/start.ts as a child
 * process with its own DynamoDB Local and data dir, events to `LTS_EVENTS_FILE` and POSTed to a webhook
 * receiver on 127.0.0.1 (`LTS_WEBHOOK_URL`), every request over HTTP. The feed must hold exactly the
 * events of the accepted writes, in each resource's version order; then again across a `kill -9` of the
 * service in the middle of a load and a restart: the file loses and repeats nothing; the webhook loses
 * nothing (it may repeat: at-least-once, docs/events.md). Waits are for the feed to catch up, polled
 * within generous bounds, never for a length of time.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Bounds on waits for a start and for the feed to catch up: only a hang reaches them. */
const LIMIT_MS = 180_000;
/** A test's bound: some hundred requests and a start of the service, on a 2-core machine shared with others. */
const TEST_LIMIT_MS = 600_000;

const dir = mkdtempSync(join(tmpdir(), 'lts-feed-'));
const eventsFile = join(dir, 'events.ndjson');

/** The webhook receiver: every event POSTed to it, in arrival order (repeats included). */
const received: Envelope[] = [];
let receiver: Server;
let hookUrl: string;

interface Running {
  child: ChildProcess;
  url: string;
  /** DynamoDB Local's Java process (it exits by itself when the service's process is gone). */
  dynamoPid: number;
  dynamoEndpoint: string;
  output(): string;
}
let service: Running;

/** `npm start` as a user runs it (without npm and tsx's own process in between), on the test's data dir. */
async function startService(): Promise<Running> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'PORT' && !name.startsWith('LTS_')));
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
    cwd: ROOT,
    env: {
      ...inherited,
      LOG_LEVEL: 'warn',
      PORT: '0',
      LTS_DATA_DIR: dir,
      LTS_DEV_API_KEY: WRITE_KEY,
      LTS_DEV_ADMIN_API_KEY: ADMIN_KEY,
      LTS_EVENTS_FILE: eventsFile,
      LTS_WEBHOOK_URL: hookUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await vi.waitUntil(() => /listening on/.test(output) || child.exitCode !== null, { timeout: LIMIT_MS, interval: 100 });
  const url = output.match(/listening on (\S+)/)?.[1];
  if (!url) throw new Error(`the service did not start: ${output}`);
  const [, endpoint, pid] = output.match(/DynamoDB Local at (\S+) \(pid (\d+)\)/)!;
  return { child, url, dynamoPid: Number(pid), dynamoEndpoint: endpoint!, output: () => output };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

/** The events in the file, in order. */
const fileEvents = (): Envelope[] => readFeed(eventsFile);

/** The table's outbox (every committed write's events), read from the service's DynamoDB Local. */
async function outbox(): Promise<Envelope[]> {
  useDynamo(service.dynamoEndpoint, 'lts');
  return outboxEvents();
}

const ids = (events: Envelope[]) => events.map((e) => e.id).sort();

/** Waits until the file and the webhook hold every event of the outbox, and returns the outbox. */
async function caughtUp(): Promise<Envelope[]> {
  const expected = ids(await outbox());
  await vi.waitUntil(
    () => ids(fileEvents()).join() === expected.join() && ids([...new Map(received.map((e) => [e.id, e])).values()]).join() === expected.join(),
    {
      timeout: LIMIT_MS,
      interval: 250,
    },
  );
  return outbox();
}

/** The first arrival of each event at the webhook, in arrival order. */
const firstArrivals = (): Envelope[] => [...new Map(received.map((e) => [e.id, e])).values()];

/**
 * Once the feed has caught up: the file holds every event of the outbox once, the webhook every one at
 * least once, each resource's events (the webhook's first arrivals) in version order.
 */
async function expectWholeFeed(): Promise<{ all: Envelope[]; file: Envelope[] }> {
  const all = await caughtUp();
  const file = fileEvents();
  expect(ids(file)).toEqual(ids(all));
  expect(new Set(file.map((e) => e.id)).size).toBe(file.length);
  expectVersionOrder(file);
  expect(ids(firstArrivals())).toEqual(ids(all));
  expectVersionOrder(firstArrivals());
  return { all, file };
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push(JSON.parse(body));
      response.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await new Promise((resolve) => receiver.once('listening', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  service = await startService();
  callService(service.url);
}, LIMIT_MS);

afterAll(async () => {
  callService(undefined);
  if (service && service.child.exitCode === null && service.child.signalCode === null) {
    const exited = new Promise((resolve) => service.child.once('close', resolve));
    service.child.kill('SIGTERM');
    await exited;
  }
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
}, LIMIT_MS);

/**
 * The record a write's answer names: its resource object's, or, for a Heron reception (which answers the
 * reference's shape as a `heron` object, lib/resources/heron.ts), the labware its `links.self` names.
 */
function recordAnswered(data: { type: string; id: string; links?: { self?: string } }): { type: string; id: string } {
  if (data.type !== 'heron') return data;
  const [, type, id] = /\/api\/v2\/([^/]+)\/([^/?]+)$/.exec(data.links?.self ?? '') ?? [];
  return { type: type!, id: id! };
}

describe("npm start's event feed", () => {
  it(
    'holds exactly the events of a lab day: every write type, empty maps, pooling, refusals, in version order',
    async () => {
      const before = await outbox();
      const itemsBefore = (await requestItems()).length;
      const writes = recordWrites();

      // One of every write the service serves (writes.ts: a test fails when a write route has no case).
      const covered = new Set<string>();
      for (const [key, write] of Object.entries(WRITES)) {
        const res = await send(await write.make());
        expect(res.status, `${key}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
        covered.add(writeOf(key));
      }
      expect([...covered].sort()).toEqual([...new Set(routeWrites())].sort());

      // Empty maps: a custom metadatum collection PATCHed to `metadata: {}`, a transfer out of an empty plate.
      const user = await call('GET', '/api/v2/users?filter[login]=admin').then((r) => r.body.data[0].id);
      const collection = await call('POST', '/api/v2/custom_metadatum_collections', {
        body: doc('custom_metadatum_collections', { user_id: user, asset_id: (await createPlate()).id, metadata: { robot: 'bed-1' } }),
      });
      const cleared = await call('PATCH', `/api/v2/custom_metadatum_collections/${collection.body.data.id}`, {
        body: doc('custom_metadatum_collections', { metadata: {} }, undefined, collection.body.data.id),
      });
      expect(cleared.status).toBe(200);
      const [empty, destination] = [await createPlate(), await createPlate()];
      const fromEmpty = await postTransfer({
        template: await templateUuid('Transfer columns 1-12'),
        source: empty.attributes.uuid,
        destination: destination.attributes.uuid,
        user: await adminUuid(),
      });
      expect(fromEmpty.status).toBe(201);

      // Pooling by submission: two submissions' requests out of a plate's wells, into MX tubes and into a plate.
      const { plate: stock } = await filledPlate(2);
      await poolPlate(stock.id, [['A1'], ['B1']]);
      const intoTubes = await postTransfer({
        template: await templateUuid('Transfer wells to MX library tubes by submission'),
        source: stock.attributes.uuid,
        user: await adminUuid(),
      });
      expect(intoTubes.status, JSON.stringify(intoTubes.body)).toBe(201);
      const pooledPlate = await createPlate();
      const intoPlate = await postTransfer({
        template: await templateUuid('Pool wells based on submission'),
        source: stock.attributes.uuid,
        destination: pooledPlate.attributes.uuid,
        user: await adminUuid(),
      });
      expect(intoPlate.status, JSON.stringify(intoPlate.body)).toBe(201);

      // Refused writes: none may leave an event.
      const refusedName = uniqueName('refused');
      expect((await call('POST', '/api/v2/samples', { body: doc('samples', { name: refusedName, control: 'no' }) })).status).toBe(422);
      const sample = await createSample();
      expect((await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { name: null }, undefined, sample.id) })).status).toBe(422);
      expect(
        (await postTransfer({ template: await templateUuid('Transfer columns 1-12'), source: empty.attributes.uuid, destination: 'no-such-uuid' })).status,
      ).toBe(404);

      const { all, file } = await expectWholeFeed();
      const day = all.filter((e) => !before.some((b) => b.id === e.id));

      // Event by event: each accepted write's own records are in the feed as created or changed by it …
      const accepted = writes.filter((w) => w.result.status < 300);
      const refused = writes.filter((w) => w.result.status >= 400);
      expect(refused).toHaveLength(3);
      for (const { method, path, result } of accepted) {
        for (const data of [].concat(result.body?.data ?? [])) {
          const { type, id } = recordAnswered(data);
          const types = file.filter((e) => e.resource.type === type && e.resource.id === id).map((e) => e.type);
          expect(types, `${method} ${path} → ${type}/${id}`).toContainEqual(
            result.status === 201 ? `${type}.created` : expect.stringMatching(new RegExp(`^${type}\\.(updated|state_changed|stock_registered)$`)),
          );
        }
      }
      // … every accepted write left events (a request item each), and no refused one did.
      expect((await requestItems()).length).toBe(itemsBefore + accepted.length);
      expect(day.filter((e) => JSON.stringify(e.data).includes(refusedName))).toEqual([]);
      expect(day.filter((e) => e.resource.type === 'samples' && e.resource.id === sample.id).map((e) => e.type)).toEqual(['samples.created']);

      // What the day was made of.
      const types = new Set(day.map((e) => e.type));
      for (const type of [
        'requests.created',
        'requests.state_changed',
        'tag_layouts.created',
        'qc_assays.created',
        'tube_from_plate_creations.created',
        'plate_conversions.created',
        'custom_metadatum_collections.updated',
        'poly_metadata.created',
        'state_changes.created',
      ]) {
        expect(types, type).toContain(type);
      }
      const transferTypes = new Set(day.filter((e) => e.type === 'transfers.created').map((e) => (e.data as any).attributes.transfer_type));
      expect([...transferTypes].sort()).toEqual(
        expect.arrayContaining([
          'Transfer::BetweenPlates',
          'Transfer::BetweenPlatesBySubmission',
          'Transfer::FromPlateToTube',
          'Transfer::FromPlateToTubeBySubmission',
        ]),
      );
      const emptied = day.find((e) => e.type === 'custom_metadatum_collections.updated' && e.resource.id === collection.body.data.id);
      expect((emptied!.data as any).attributes.metadata).toEqual({});
      expect(day.find((e) => e.type === 'transfers.created' && e.resource.id === fromEmpty.body.data.id)).toBeDefined();

      const health = (await fetch(`${service.url}/health`).then((r) => r.json())) as any;
      expect(health.meta.events.sinks).toEqual({ file: { dead_letters: 0 }, webhook: { dead_letters: 0 } });
    },
    TEST_LIMIT_MS,
  );

  it(
    'file: nothing lost or repeated across a kill -9 mid-load and a restart; webhook: nothing lost',
    async () => {
      const writes = recordWrites();
      /** Writes while the service may die under them: a sample, then a change to it, over and over. */
      const load = async (count: number, onAccepted?: (n: number) => void) => {
        let accepted = 0;
        for (let i = 0; i < count; i++) {
          try {
            const created = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('load') }) });
            if (created.status !== 201) continue;
            onAccepted?.(++accepted);
            const id = created.body.data.id;
            await call('PATCH', `/api/v2/samples/${id}`, { body: doc('samples', { site_sample_id: `site-${i}` }, undefined, id) });
            onAccepted?.(++accepted);
          } catch {
            return; // the service is gone: what was in flight may or may not have been committed
          }
        }
      };

      const first = service;
      const killed = new Promise((resolve) => first.child.once('close', resolve));
      await load(200, (n) => {
        // Mid-load, with events still on their way: the process dies at once, no shutdown.
        if (n === 30) first.child.kill('SIGKILL');
      });
      await killed;
      expect(first.child.signalCode).toBe('SIGKILL');
      await vi.waitUntil(() => !alive(first.dynamoPid), { timeout: LIMIT_MS, interval: 100 });

      service = await startService();
      callService(service.url);
      await load(10);

      const { all, file } = await expectWholeFeed();
      // A repeat at the webhook is the same event again.
      for (const event of received) expect(event).toEqual(all.find((e) => e.id === event.id));
      // Every write the service answered 2xx to is in the feed.
      for (const { result } of writes.filter((w) => w.result.status < 300)) {
        expect(file.some((e) => e.resource.type === result.body.data.type && e.resource.id === result.body.data.id)).toBe(true);
      }
      expect(service.output()).not.toMatch(/set aside/);
    },
    TEST_LIMIT_MS,
  );
});
