import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { LocalService } from '#lib/local/service.ts';
import { freshHttpService, WRITE_KEY } from '../support/store.ts';

/**
 * devour-client, configured exactly as the README's `js devour` block says (the block itself is run,
 * pointed at a fresh service), reads a plate with its wells, aliquots and samples and writes records
 * without a warning: devour warns (through console.log) for every attribute or relationship of every
 * type it has no model for, and the models built from the OpenAPI document cover them all (checked with
 * the logger the README turns off turned on). The README's `js devour-use` block runs twice in a row
 * without an error, its refused write answered by the errors alone, never a dump holding the key.
 */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const setUp = README.match(/^```js devour\n([\s\S]*?)^```$/m)?.[1];
const use = README.match(/^```js devour-use\n([\s\S]*?)^```$/m)?.[1];

let service: LocalService;
const dir = mkdtempSync(join(tmpdir(), 'lts-devour-'));
const logged = () => ['log', 'info', 'warn', 'error'].flatMap((m) => vi.mocked(console[m as 'log']).mock.calls);

beforeAll(async () => {
  service = await freshHttpService();
  for (const method of ['log', 'info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
});
afterAll(async () => {
  vi.restoreAllMocks();
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The README's set-up, followed by `after`, as a module exporting its `api`, pointed at the test service;
 * with devour's logger on when `logger` (the README turns it off).
 */
async function readmeDevour({ logger = false, after = '' } = {}): Promise<any> {
  expect(setUp, 'README has a ```js devour block').toBeDefined();
  expect(setUp).toContain('logger: false');
  const source = setUp!
    .replace(`'devour-client'`, JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('devour-client')).href))
    .replace(`'http://localhost:3000/api/v2'`, JSON.stringify(`${service.url}/api/v2`))
    .replace(`'<key>'`, JSON.stringify(WRITE_KEY))
    .replace('logger: false', `logger: ${logger}`);
  const file = join(dir, `devour-${randomUUID()}.mjs`);
  writeFileSync(file, `${source}\n${after}\nexport { api };\n`);
  return ((await import(pathToFileURL(file).href)) as { api: any }).api;
}

it('reads a plate with include=wells.aliquots.sample and writes, with zero warnings', async () => {
  const api = await readmeDevour({ logger: true });
  const {
    data: [study],
  } = await api.findAll('studies', { filter: { name: 'Study A' } });
  const { data: sample } = await api.create('samples', { name: `devour-${process.pid}`, studies: [{ id: study.id, type: 'studies' }] });
  const {
    data: [purpose],
  } = await api.findAll('plate_purposes', { filter: { name: 'Stock Plate' } });
  const { data: created } = await api.create('plates', { purpose: { id: purpose.id, type: 'plate_purposes' } });
  const { data: empty } = await api.find('plates', created.id, { include: 'wells' });
  const b1 = empty.wells.find((well: any) => well.position.name === 'B1');
  await api.create('aliquots', { receptacle: { id: b1.id, type: 'wells' }, sample: { id: sample.id, type: 'samples' } });

  const {
    data: [plate],
  } = await api.findAll('plates', { filter: { barcode: created.labware_barcode.human_barcode }, include: 'wells.aliquots.sample' });
  expect(plate.wells).toHaveLength(96);
  const well = plate.wells.find((w: any) => w.position.name === 'B1');
  expect(well.aliquots.map((a: any) => a.sample.name)).toEqual([`devour-${process.pid}`]);
  expect(logged()).toEqual([]);
});

it('a model short of an attribute is warned about (the check above can fail)', async () => {
  const api = await readmeDevour({ logger: true });
  api.define('studies', { name: '' }, { collectionPath: 'studies' });
  await api.findAll('studies');
  expect(logged().map((args) => String(args[0]))).toEqual(expect.arrayContaining([expect.stringContaining('contains attribute "uuid"')]));
});

it("runs the README's use of devour twice in a row: a refused write is its errors by attribute, no dump, never the key", async () => {
  expect(use, 'README has a ```js devour-use block').toBeDefined();
  for (const run of [1, 2]) {
    for (const method of ['log', 'info', 'warn', 'error'] as const) vi.mocked(console[method]).mockClear();
    await readmeDevour({ after: use! });
    // What the block prints itself, and nothing else (devour logs through console.log too).
    const [wells, refusal, ...more] = logged().map((args) => args[0]);
    expect(more, `run ${run}`).toEqual([]);
    // DN1S, if an earlier test made it, with its filled wells; else none.
    if (wells !== undefined) expect(wells).toEqual(expect.arrayContaining([[expect.stringMatching(/^[A-H]\d+$/), expect.any(String)]]));
    expect(refusal).toEqual({ name: { title: 'Already taken', detail: expect.stringMatching(/^name - "s-\d+" is already in use$/) } });
    expect(JSON.stringify(logged())).not.toContain(WRITE_KEY);
  }
});
