import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LocalService } from '#lib/local/service.ts';
import { idOf } from '../support/api.ts';
import { purposeId, rel } from '../support/fixtures.ts';
import { http, type HttpResult } from '../support/http.ts';
import { freshHttpService } from '../support/store.ts';

/**
 * A bounded loopback load test: 20 HTTP clients at once, each running a fixed script of mixed reads and
 * writes (a fixed number of operations, not a fixed time, so the check at the end knows exactly what was
 * acknowledged). Every response must have the expected status; then every record created must be listed
 * exactly once (walking `links.next`), every PATCH's last acknowledged value must be the stored one, and
 * the counts must match.
 */

const CLIENTS = 20;
/** Rounds per client; each round is four requests, after six to set the client up and two to finish. */
const ROUNDS = 3;

let service: LocalService;
let stockPlate: string;
let stockTube: string;
let admin: string;

beforeAll(async () => {
  service = await freshHttpService();
  stockPlate = await purposeId('plate_purposes', 'Stock Plate');
  stockTube = await purposeId('tube_purposes', 'Stock Tube');
  admin = await idOf('users', 'login', 'admin');
});

afterAll(() => service?.stop());

const doc = (type: string, attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}, id?: string) => ({
  data: { type, ...(id ? { id } : {}), attributes, ...(Object.keys(relationships).length > 0 ? { relationships } : {}) },
});

/** Sends a request and fails unless it answers `status`; returns the parsed body. */
async function expectStatus(status: number, method: string, path: string, body?: unknown): Promise<any> {
  const res: HttpResult = await http(service.url, method, path, body === undefined ? {} : { body });
  expect(res.status, `${method} ${path} → ${res.status} ${res.text.slice(0, 300)}`).toBe(status);
  return res.body;
}
const post = async (type: string, body: unknown): Promise<string> => (await expectStatus(201, 'POST', `/api/v2/${type}`, body)).data.id;

/** What one client was told was stored: the records it created and the last value acknowledged for each PATCHed one. */
interface Acknowledged {
  samples: Map<string, string | null>;
  plate: string;
  tube: string;
  aliquots: string[];
  collection: { id: string; metadata: Record<string, string> };
}

/** One client's script. A small seeded generator picks which of its own records each round touches, so runs repeat. */
async function client(n: number): Promise<Acknowledged> {
  let seed = n + 1;
  const next = (below: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % below;
  };
  const sampleDoc = (i: number) => doc('samples', { name: `load-${n}-${i}` });
  const samples = new Map<string, string | null>();
  samples.set(await post('samples', sampleDoc(0)), null);
  const plate = await post('plates', doc('plates', {}, { purpose: rel('plate_purposes', stockPlate) }));
  const tube = await post('tubes', doc('tubes', {}, { purpose: rel('tube_purposes', stockTube) }));
  const wells = (await expectStatus(200, 'GET', `/api/v2/plates/${plate}/wells?page[size]=${ROUNDS + 1}`)).data.map((w: { id: string }) => w.id);
  let metadata: Record<string, string> = { client: String(n) };
  const collection = await post('custom_metadatum_collections', doc('custom_metadatum_collections', { user_id: admin, asset_id: plate, metadata }));
  const aliquots = [await post('aliquots', doc('aliquots', {}, { receptacle: rel('wells', wells[0]), sample: rel('samples', [...samples.keys()][0]!) }))];

  for (let round = 1; round <= ROUNDS; round++) {
    const sample = await post('samples', sampleDoc(round));
    samples.set(sample, null);
    const own = [...samples.keys()];
    const target = own[next(own.length)]!;
    const value = `v-${n}-${round}`;
    await expectStatus(200, 'PATCH', `/api/v2/samples/${target}`, doc('samples', { site_sample_id: value }, {}, target));
    samples.set(target, value);
    switch (round % 3) {
      case 0:
        aliquots.push(await post('aliquots', doc('aliquots', {}, { receptacle: rel('wells', wells[round]), sample: rel('samples', sample) })));
        break;
      case 1:
        metadata = { client: String(n), round: String(round) };
        await expectStatus(
          200,
          'PATCH',
          `/api/v2/custom_metadatum_collections/${collection}`,
          doc('custom_metadatum_collections', { metadata }, {}, collection),
        );
        break;
      default:
        await expectStatus(200, 'GET', `/api/v2/plates/${plate}?include=wells.aliquots.sample.sample_metadata`);
    }
    const read = await expectStatus(200, 'GET', `/api/v2/samples/${target}`);
    expect(read.data.attributes.site_sample_id).toBe(value);
    await expectStatus(200, 'GET', `/api/v2/samples?page[size]=10&page[number]=${1 + next(3)}&include=sample_metadata&sort=-id`);
  }
  await expectStatus(200, 'GET', `/api/v2/labware?page[size]=20&include=purpose`);
  return { samples, plate, tube, aliquots, collection: { id: collection, metadata } };
}

/** Every id of a collection, walking `links.next` from the first page; checks `meta.record_count` against it. */
async function walk(type: string): Promise<string[]> {
  const ids: string[] = [];
  let path: string | undefined = `/api/v2/${type}?page[size]=100`;
  let count: number | undefined;
  while (path) {
    const page = await expectStatus(200, 'GET', path);
    count ??= page.meta.record_count;
    ids.push(...page.data.map((r: { id: string }) => r.id));
    path = page.links.next?.slice(service.url.length);
  }
  expect(ids.length, `${type}: ids listed vs meta.record_count`).toBe(count);
  return ids;
}

/** Each id listed exactly once, and the listing holds `expected` plus what was there before. */
function expectListedOnce(type: string, listed: string[], expected: string[], before: string[]): void {
  expect(new Set(listed).size, `${type} listed twice`).toBe(listed.length);
  expect(new Set(listed), type).toEqual(new Set([...before, ...expected]));
}

it(`${CLIENTS} clients, ${6 + ROUNDS * 4 + 1} requests each, mixed reads and writes: no error, nothing lost or duplicated`, async () => {
  const TYPES = ['samples', 'plates', 'tubes', 'aliquots', 'custom_metadatum_collections'] as const;
  const before: Record<string, string[]> = Object.fromEntries(await Promise.all(TYPES.map(async (t) => [t, await walk(t)] as const)));

  const done = await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));

  const created = {
    samples: done.flatMap((c) => [...c.samples.keys()]),
    plates: done.map((c) => c.plate),
    tubes: done.map((c) => c.tube),
    aliquots: done.flatMap((c) => c.aliquots),
    custom_metadatum_collections: done.map((c) => c.collection.id),
  };
  for (const type of TYPES) {
    // Each creation acknowledged a distinct record.
    expect(new Set(created[type]).size, `${type} ids handed out twice`).toBe(created[type].length);
    expectListedOnce(type, await walk(type), created[type], before[type]!);
  }

  // Every PATCH's last acknowledged value is the stored one (a sample never PATCHed still has none).
  const stored = new Map<string, string | null>();
  for (let path: string | undefined = '/api/v2/samples?page[size]=100&fields[samples]=site_sample_id'; path; ) {
    const page = await expectStatus(200, 'GET', path);
    for (const r of page.data) stored.set(r.id, r.attributes.site_sample_id);
    path = page.links.next?.slice(service.url.length);
  }
  for (const c of done) {
    for (const [id, value] of c.samples) expect(stored.get(id), `sample ${id}`).toBe(value);
    const collection = await expectStatus(200, 'GET', `/api/v2/custom_metadatum_collections/${c.collection.id}`);
    expect(collection.data.attributes.metadata).toEqual(c.collection.metadata);
  }
});
