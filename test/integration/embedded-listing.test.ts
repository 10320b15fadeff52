import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { addAliquot, createPlate, createRack, createSample, createTube, inBatches } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * Collections of records that live inside labware items (contract §1.5, §3): racked_tubes (in racks), wells
 * (in plates), aliquots (in plates and tubes) and receptacles (wells and tube receptacles). They are listed
 * by walking their parents, so this checks what a client sees: `meta.record_count` equal to what exists,
 * `links.next` visiting every record exactly once in id order (across parents with no children, and page
 * boundaries inside a parent, runs of more empty parents than one read of parents covers), `sort=-id` reversing it, and `page[number]` without a cursor landing on the
 * same page as the cursor walk.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test';
const PAGE = 7;

/** What exists, by listing: `type:id` in id order. */
const expected: Record<'racked_tubes' | 'wells' | 'aliquots' | 'receptacles', string[]> = { racked_tubes: [], wells: [], aliquots: [], receptacles: [] };

beforeAll(async () => {
  const studyA = await idOf('studies', 'name', 'Study A');
  const tubesOf = (n: number) => inBatches(n, 1, () => createTube());
  const rack = (size: 48 | 96, placements: [string, any][]) =>
    createRack(`Tube Rack ${size}`, { size, tube_locations: Object.fromEntries(placements.map(([c, t]) => [c, { uuid: t.attributes.uuid }])) });
  const samples = [await createSample(), await createSample()];
  const aliquot = async (receptacleType: string, receptacleId: number, i: number) =>
    addAliquot({ type: receptacleType, id: String(receptacleId) }, samples[i % 2].id, { study: studyA });

  // Labware created interleaved, so that parents with and without children alternate in id order.
  const p1 = await createPlate();
  const firstTubes = await tubesOf(6);
  const r1 = await rack(96, [
    ['A1', firstTubes[0]],
    ['B3', firstTubes[1]],
    ['H12', firstTubes[2]],
    ['C1', firstTubes[3]],
    ['A2', firstTubes[4]],
    ['D7', firstTubes[5]],
  ]);
  const emptyRack = await rack(48, []);
  const p2 = await createPlate();
  const moreTubes = await tubesOf(5);
  const r2 = await rack(48, [
    ['F8', moreTubes[0]],
    ['A1', moreTubes[1]],
    ['C2', moreTubes[2]],
    ['B1', moreTubes[3]],
    ['E5', moreTubes[4]],
  ]);
  // More parents without children than the listing reads in one batch of parents (25).
  const gapTubes = await tubesOf(26);
  const emptyRacks = [];
  for (let i = 0; i < 26; i++) emptyRacks.push(await rack(i % 2 ? 96 : 48, []));
  const looseTubes = await tubesOf(3);
  const lastTubes = await tubesOf(4);
  const r3 = await rack(96, [
    ['A12', lastTubes[0]],
    ['A1', lastTubes[1]],
    ['H1', lastTubes[2]],
    ['G6', lastTubes[3]],
  ]);
  // Resizing a rack changes neither its racked tubes nor their ids.
  expect((await call('PATCH', `/api/v2/tube_racks/${r2.id}`, { body: doc('tube_racks', { size: 96 }, undefined, r2.id) })).status).toBe(200);

  const aliquots: any[] = [];
  for (let slot = 1; slot <= 10; slot++) aliquots.push(await aliquot('wells', Number(p1.id) * 1000 + slot * 3, slot));
  for (const slot of [96, 1]) aliquots.push(await aliquot('wells', Number(p2.id) * 1000 + slot, slot));
  aliquots.push(await aliquot('receptacles', Number(firstTubes[1].id) * 1000 + 1, 0));
  aliquots.push(await aliquot('receptacles', Number(looseTubes[2].id) * 1000 + 1, 1));
  aliquots.push(await aliquot('receptacles', Number(looseTubes[0].id) * 1000 + 1, 0));

  const byId = (a: string, b: string) => Number(a.split(':')[1]) - Number(b.split(':')[1]);
  const racked = async (rackId: string) =>
    (await call('GET', `/api/v2/tube_racks/${rackId}/relationships/racked_tubes`)).body.data.map((l: any) => `${l.type}:${l.id}`);
  expected.racked_tubes = [...(await racked(r1.id)), ...(await racked(emptyRack.id)), ...(await racked(r2.id)), ...(await racked(r3.id))].sort(byId);
  expected.wells = [p1, p2].flatMap((p) => Array.from({ length: 96 }, (_, i) => `wells:${Number(p.id) * 1000 + i + 1}`));
  expected.aliquots = aliquots.map((a) => `aliquots:${a.id}`).sort(byId);
  const allTubes = [...firstTubes, ...moreTubes, ...gapTubes, ...looseTubes, ...lastTubes];
  expected.receptacles = [...expected.wells, ...allTubes.map((t) => `receptacles:${Number(t.id) * 1000 + 1}`)].sort(byId);

  expect(expected.racked_tubes).toHaveLength(15);
  expect(expected.wells).toHaveLength(192);
  expect(expected.aliquots).toHaveLength(15);
  expect(expected.receptacles).toHaveLength(192 + 44);
  expect(emptyRacks).toHaveLength(26);
});

interface Walk {
  pages: any[];
  keys: string[];
}

/** Follows `links.next` from the first page to the end. */
async function walk(type: string, query = ''): Promise<Walk> {
  const pages: any[] = [];
  let path: string | undefined = `/api/v2/${type}?page[size]=${PAGE}${query}`;
  while (path) {
    const res = await call('GET', path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body);
    expect(pages.length).toBeLessThanOrEqual(100);
    const next: string | undefined = res.body.links.next;
    if (next) expect(next.startsWith(`${BASE}/api/v2/${type}?`)).toBe(true);
    path = next?.slice(BASE.length);
  }
  return { pages, keys: pages.flatMap((p) => p.data.map((r: any) => `${r.type}:${r.id}`)) };
}

const pageNumber = (link: string) => Number(new URL(link).searchParams.get('page[number]'));

describe.each(['racked_tubes', 'wells', 'aliquots', 'receptacles'] as const)('GET /api/v2/%s', (type) => {
  it('meta.record_count is the number of records that exist', async () => {
    const res = await call('GET', `/api/v2/${type}`);
    expect(res.status).toBe(200);
    expect(res.body.meta.record_count).toBe(expected[type].length);
    expect(res.body.data.map((r: any) => `${r.type}:${r.id}`)).toEqual(expected[type].slice(0, 100));
    expect(pageNumber(res.body.links.last)).toBe(Math.ceil(expected[type].length / 100));
  });

  it(`links.next with page[size]=${PAGE} visits every record exactly once, in id order`, async () => {
    const { pages, keys } = await walk(type);
    expect(keys).toEqual(expected[type]);
    expect(new Set(keys).size).toBe(keys.length);
    const count = expected[type].length;
    expect(pages).toHaveLength(Math.ceil(count / PAGE));
    pages.forEach((page, i) => {
      expect(page.meta.record_count).toBe(count);
      expect(page.data.length).toBe(i < pages.length - 1 ? PAGE : count - PAGE * (pages.length - 1));
      expect(pageNumber(page.links.last)).toBe(pages.length);
      expect(pageNumber(page.links.first)).toBe(1);
      if (i > 0) expect(pageNumber(page.links.prev)).toBe(i);
      if (i < pages.length - 1) expect(pageNumber(page.links.next)).toBe(i + 2);
      else expect(page.links.next).toBeUndefined();
    });
    if (type === 'receptacles') {
      // Wells render as wells, tube receptacles as receptacles.
      expect(keys.filter((k) => k.startsWith('wells:'))).toHaveLength(192);
      expect(keys.filter((k) => k.startsWith('receptacles:'))).toHaveLength(44);
    }
  });

  it('sort=-id walks the same records in reverse', async () => {
    const { pages, keys } = await walk(type, '&sort=-id');
    expect(keys).toEqual([...expected[type]].reverse());
    expect(pages).toHaveLength(Math.ceil(expected[type].length / PAGE));
    for (const page of pages) expect(page.meta.record_count).toBe(expected[type].length);
  });

  it('page[number]=3 without a cursor is the page reached by following next twice', async () => {
    const first = await call('GET', `/api/v2/${type}?page[size]=${PAGE}`);
    const second = await call('GET', first.body.links.next.slice(BASE.length));
    expect(second.status).toBe(200);
    const third = await call('GET', second.body.links.next.slice(BASE.length));
    expect(third.status).toBe(200);
    const direct = await call('GET', `/api/v2/${type}?page[size]=${PAGE}&page[number]=3`);
    expect(direct.status).toBe(200);
    expect(direct.body.data).toEqual(third.body.data);
    expect(direct.body.data.map((r: any) => `${r.type}:${r.id}`)).toEqual(expected[type].slice(2 * PAGE, 3 * PAGE));
    expect(direct.body.meta).toEqual(third.body.meta);
    // The same holds in reverse order.
    const reversed = await call('GET', `/api/v2/${type}?page[size]=${PAGE}&page[number]=2&sort=-id`);
    expect(reversed.body.data.map((r: any) => `${r.type}:${r.id}`)).toEqual([...expected[type]].reverse().slice(PAGE, 2 * PAGE));
  });

  it('a page past the last is empty', async () => {
    const last = Math.ceil(expected[type].length / PAGE);
    const res = await call('GET', `/api/v2/${type}?page[size]=${PAGE}&page[number]=${last + 1}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.record_count).toBe(expected[type].length);
    expect(res.body.links.next).toBeUndefined();
  });
});
