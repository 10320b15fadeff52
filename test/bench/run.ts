/**
 * `npm run bench`: times typical requests against the whole local service (DynamoDB Local + HTTP on
 * loopback), in memory. Prints per scenario the median and 95th percentile latency and the DynamoDB
 * calls per request. Numbers depend on the machine; compare runs on the same one.
 */
import { createApiKey } from '#lib/store/api-keys.ts';
import { startLocalService } from '#lib/local/service.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 30);
const KEY = 'bench-key-0123456789abcdef';

const service = await startLocalService();
await createApiKey('bench', 'write', KEY);
const api = `${service.url}/api/v2`;
const headers = { 'X-Sequencescape-Client-Id': KEY, 'Content-Type': 'application/vnd.api+json', Accept: 'application/vnd.api+json' };

async function request(method: string, path: string, body?: unknown) {
  const response = await fetch(`${api}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  const document = (await response.json()) as { data: any };
  if (response.status >= 400) throw new Error(`${method} ${path} → ${response.status}: ${JSON.stringify(document)}`);
  return { document, calls: Number(response.headers.get('x-dynamodb-calls')) };
}

const first = async (path: string) => (await request('GET', path)).document.data[0].id as string;
const study = await first('/studies?filter[name]=Study A');
const purpose384 = await first('/plate_purposes?filter[name]=Stock Plate 384');
const purpose96 = await first('/plate_purposes?filter[name]=Stock Plate');

let counter = 0;
const newSample = () =>
  request('POST', '/samples', { data: { type: 'samples', attributes: { name: `bench-${Date.now()}-${counter++}` }, relationships: { studies: { data: [{ type: 'studies', id: study }] } } } });
const newPlate = (purpose: string) => request('POST', '/plates', { data: { type: 'plates', relationships: { purpose: { data: { type: 'plate_purposes', id: purpose } } } } });

// Seed: 100 samples, and a 96-well plate with one sample in every well.
const samples = [];
for (let i = 0; i < 100; i++) samples.push((await newSample()).document.data.id as string);
const plate = (await newPlate(purpose96)).document.data;
const wells = (await request('GET', `/plates/${plate.id}/wells`)).document.data as { id: string }[];
for (const [i, well] of wells.entries()) {
  await request('POST', '/aliquots', { data: { type: 'aliquots', relationships: { receptacle: { data: { type: 'wells', id: well.id } }, sample: { data: { type: 'samples', id: samples[i] } } } } });
}
const barcode = plate.attributes.labware_barcode.machine_barcode as string;

const scenarios: [string, () => Promise<{ calls: number }>][] = [
  ['GET /samples?include=studies (100)', () => request('GET', '/samples?include=studies')],
  ['GET /samples?filter[name]=…', () => request('GET', `/samples?filter[name]=${encodeURIComponent('bench-')}`)],
  ['POST /samples', newSample],
  ['POST /plates (384 wells)', () => newPlate(purpose384)],
  ['GET /labware?filter[barcode]=<EAN-13>', () => request('GET', `/labware?filter[barcode]=${barcode}`)],
  ['GET plate ?include=wells.aliquots.sample.sample_metadata (96 filled)', () => request('GET', `/plates/${plate.id}?include=wells.aliquots.sample.sample_metadata`)],
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
console.log(`${ITERATIONS} iterations each\n`);
console.log(['scenario'.padEnd(70), 'p50 ms', 'p95 ms', 'calls'].join('\t'));
for (const [name, run] of scenarios) {
  const times: number[] = [];
  let calls = 0;
  for (let i = 0; i < ITERATIONS; i++) {
    const start = performance.now();
    calls = (await run()).calls;
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log([name.padEnd(70), percentile(times, 50).toFixed(1), percentile(times, 95).toFixed(1), String(calls)].join('\t'));
}
await service.stop();
