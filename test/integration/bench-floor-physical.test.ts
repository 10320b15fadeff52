import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRecord } from '#lib/store/records.ts';
import { documentClient } from '../bench/floor/db.ts';
import { createPhysicalFloorServer, recordReads } from '../bench/floor/physical.ts';
import type { Reply } from '../bench/http-client.ts';
import type { Side } from '../bench/measure.ts';
import { PLATE_INCLUDE, plateForPresenterPath, walk } from '../bench/scenarios.ts';
import { call, doc, idOf, warmKeyCache } from '../support/api.ts';
import { purposeId } from '../support/fixtures.ts';
import { startFloor, type RunningFloor } from '../support/floor-server.ts';
import { submitWholePlates } from '../support/lab.ts';
import { LIMBER_ACCEPT_ENCODING, ongoingPlatesQuery } from '../support/limber.ts';
import { seedPlates, seedSamples } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';

/**
 * The bench's physical floor (test/bench/floor/physical.ts) is a floor only if it answers what the service
 * answers: each read scenario's request (a sample, a page of 100 and the walk by `links.next`, a plate with
 * 96 and with 384 wells included, Limber's plate page, Limber's ongoing plates walked) recorded from the
 * design floor, then answered by the physical floor from its read partitions alone — the same document as
 * the service's, page by page, in one Query a partition (one shard each here), with the capacity every side
 * reports (X-DynamoDB-Capacity) collected and the physical floor's reads below the service's.
 */
const SAMPLES = 150;
const OPTIONS = { library_type: 'Standard', read_length: 150, fragment_size_required_from: '300', fragment_size_required_to: '500' };

let physicalUrl: string;
let physical: Server;
let floor: RunningFloor;
let samples: StoredRecord[];
let plate96: StoredRecord;
let plate384: StoredRecord;

interface Page {
  body: any;
  calls: number;
  read: number;
  write: number;
}

const unitsOf = (header: string | null | undefined) => {
  const [, read, write] = /^read=([\d.]+), write=([\d.]+)$/.exec(header ?? '') ?? [];
  return { read: Number(read), write: Number(write) };
};

const viaService = async (path: string, headers: Record<string, string> = {}): Promise<Page> => {
  await warmKeyCache();
  const res = await call('GET', `/api/v2${path}`, { headers });
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return { body: res.body, calls: res.calls, ...unitsOf(res.headers['X-DynamoDB-Capacity']) };
};

const viaHttp =
  (base: () => string) =>
  async (path: string, headers: Record<string, string> = {}): Promise<Page> => {
    const res = await fetch(`${base()}/api/v2${path}`, { headers });
    const text = await res.text();
    expect(res.status, text.slice(0, 500)).toBe(200);
    return { body: JSON.parse(text), calls: Number(res.headers.get('X-DynamoDB-Calls')), ...unitsOf(res.headers.get('X-DynamoDB-Capacity')) };
  };
const viaPhysical = viaHttp(() => physicalUrl);
const viaFloor = viaHttp(() => floor.url);

/** A document as the bench compares it (test/bench/parity.ts): its base URL taken out, its resources in one order. */
function normalized(body: unknown, base: string): unknown {
  const order = (a: any, b: any) => (a.type === b.type ? Number(a.id) - Number(b.id) : a.type < b.type ? -1 : 1);
  const out = JSON.parse(JSON.stringify(body).split(base).join(''));
  if (Array.isArray(out.data)) out.data.sort(order);
  out.included?.sort(order);
  return out;
}

/** Every page of a listing from `path` by `links.next` (one page for a request that has none) on one side. */
async function pages(get: (path: string, headers?: Record<string, string>) => Promise<Page>, base: string, path: string, headers = {}): Promise<Page[]> {
  const found: Page[] = [];
  for (let next: string | undefined = path; next !== undefined; ) {
    const page = await get(next, headers);
    found.push(page);
    next = page.body.links?.next?.slice(`${base}/api/v2`.length);
  }
  return found;
}

const ongoingPath = `/plates?${ongoingPlatesQuery(['Stock Plate'], 1)}`;
const limber = { 'Accept-Encoding': LIMBER_ACCEPT_ENCODING };

/** The read scenarios' requests, as the bench sends them (test/bench/scenarios.ts). */
const requests = () => ({
  sample: `/samples/${samples[0]!.id}`,
  page: '/samples?page%5Bsize%5D=100',
  plate96: `/plates/${plate96.id}?include=${PLATE_INCLUDE}`,
  plate384: `/plates/${plate384.id}?include=${PLATE_INCLUDE}`,
  presenter: plateForPresenterPath(plate96.uuid),
});

beforeAll(async () => {
  const store = await freshStore();
  const [stock, stock384] = [Number(await purposeId('plate_purposes', 'Stock Plate')), Number(await purposeId('plate_purposes', 'Stock Plate 384'))];
  const study = Number(await idOf('studies', 'name', 'Study A'));
  samples = await seedSamples(SAMPLES, 'physical');
  const well = (slot: number) => [{ sample: samples[(slot - 1) % SAMPLES]!.id, study }];
  const submitted = await seedPlates(2, stock, 'PHYS-96-', 96, (_, slot) => well(slot));
  plate96 = submitted[0]!;
  plate384 = (await seedPlates(1, stock384, 'PHYS-384-', 384, (_, slot) => well(slot)))[0]!;
  await submitWholePlates(submitted, 96, 'Library Creation - Illumina', OPTIONS);

  const get = (path: string) => (side: Side) => side.client.send('GET', path);
  const dynamo = documentClient(store.endpoint);
  await recordReads(dynamo, store.tableName, [
    ...Object.values(requests()).map(get),
    (side: Side): Promise<Reply> => walk(side, requests().page),
    (side: Side): Promise<Reply> => walk(side, ongoingPath, limber),
  ]);
  dynamo.destroy();
  physical = createPhysicalFloorServer({ doc: documentClient(store.endpoint), table: store.tableName });
  physical.listen(0, '127.0.0.1');
  await once(physical, 'listening');
  physicalUrl = `http://127.0.0.1:${(physical.address() as AddressInfo).port}`;
  floor = await startFloor(store);
});
afterAll(async () => {
  physical.closeAllConnections();
  await new Promise<void>((resolve) => physical.close(() => resolve()));
  await floor.close();
});

describe('the bench physical floor', () => {
  it.each(['sample', 'page', 'plate96', 'plate384', 'presenter'] as const)(
    '%s: the same document as the service, in one Query, fewer read units',
    async (name) => {
      const path = requests()[name];
      const [service, phys] = [await viaService(path), await viaPhysical(path)];
      expect(normalized(phys.body, physicalUrl)).toEqual(normalized(service.body, 'https://lts.test'));
      expect(phys.calls).toBe(1);
      expect(phys.write).toBe(0);
      expect(phys.read).toBeGreaterThan(0);
      // One partition read once costs no more than the service's reads of the same items: less where the
      // service reads many items (each rounded up to 4 KB, strongly consistent) or a listing consistently.
      // The page of samples: the service too reads it in one eventually consistent Query ("Listing pages read
      // from a projected index"), so the two read the same bytes, within one unit (the floor's copies are nested).
      if (name === 'sample') expect(phys.read).toBe(service.read);
      else if (name === 'page') expect(Math.abs(phys.read - service.read)).toBeLessThanOrEqual(1);
      else expect(phys.read).toBeLessThan(service.read);
    },
  );

  it("the walks by links.next (samples by 100, Limber's ongoing plates gzip): the same pages as the service's", async () => {
    for (const [path, headers] of [
      [requests().page, {}],
      [ongoingPath, limber],
    ] as const) {
      const service = await pages(viaService, 'https://lts.test', path, headers);
      const phys = await pages(viaPhysical, physicalUrl, path, headers);
      expect(service.length).toBeGreaterThan(path === ongoingPath ? 0 : 1);
      expect(phys.map((p) => normalized(p.body, physicalUrl))).toEqual(service.map((p) => normalized(p.body, 'https://lts.test')));
      expect(phys.map((p) => p.calls)).toEqual(service.map(() => 1));
    }
  });

  it('a request it did not record is a 404, not an answer from elsewhere', async () => {
    const res = await fetch(`${physicalUrl}/api/v2/samples/${samples[1]!.id}`);
    expect(res.status).toBe(404);
  });

  it('the design floor reports its capacity too: read units for a read, write units for a create', async () => {
    for (const path of Object.values(requests())) expect((await viaFloor(path)).read).toBeGreaterThan(0);
    const created = await fetch(`${floor.url}/api/v2/samples`, {
      method: 'POST',
      body: JSON.stringify(doc('samples', { name: 'physical-floor-create' })),
    });
    expect(created.status).toBe(201);
    expect(unitsOf(created.headers.get('X-DynamoDB-Capacity')).write).toBeGreaterThan(0);
  });
});
