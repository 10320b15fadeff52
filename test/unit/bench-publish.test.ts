import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { ColdStarts } from '../bench/cold/measure-cold.ts';
import { coldStartBars, coldStartTable, markdownTable, publish, publishColdStarts, ratioChart } from '../bench/publish.ts';
import type { ScenarioResult } from '../bench/report.ts';

/** The published benchmark's table and chart, from fixed results. */

const side = (p50: number, perSecond: number, calls: number) => ({
  role: 'service' as const,
  requests: 10,
  ok: 10,
  failures: {},
  p50,
  p95: p50,
  cpuPerRequest: 1,
  perSecond,
  calls,
  meanCalls: calls,
  readUnits: calls,
  writeUnits: 0,
});
const results: ScenarioResult[] = [
  {
    name: 'GET /samples/{id}',
    target: { kind: 'latency', max: 1.5 },
    service: side(3, 0, 1),
    floor: side(2, 0, 1),
    p50Ratio: 1.5,
    cpuRatio: 1.2,
    throughputRatio: 0,
    verdict: 'PASS',
    note: '',
  },
  {
    name: 'POST /samples × 1 client',
    target: { kind: 'throughput', min: 0.5 },
    service: side(30, 20, 4),
    floor: side(60, 10, 3),
    p50Ratio: 0.5,
    cpuRatio: 1.3,
    throughputRatio: 2,
    verdict: 'PASS',
    note: '',
  },
  {
    name: 'POST <odd> & name',
    target: { kind: 'latency', max: 2 },
    service: side(90, 0, 5),
    floor: side(30, 0, 3),
    p50Ratio: 3,
    cpuRatio: 2.5,
    throughputRatio: 0,
    verdict: 'FAIL',
    note: 'p50',
  },
];

it('tabulates each scenario by the ratio it is judged by', () => {
  const lines = markdownTable(results).split('\n');
  expect(lines).toHaveLength(2 + results.length);
  expect(lines[2]).toBe('| GET /samples/{id} | p50 latency | 1.50× | 1.20× | 1/1 | ≤ 1.5× | PASS |');
  expect(lines[3]).toBe('| POST /samples × 1 client | creates/s | 2.00× | 1.30× | 4/3 | ≥ 0.5× | PASS |');
});

it('draws one bar per scenario, coloured by its result, with the floor marked and names escaped', () => {
  const svg = ratioChart(results);
  expect(svg.match(/<rect /g)).toHaveLength(3);
  expect(svg.match(/fill="#c62828"/g)).toHaveLength(1);
  expect(svg).toContain('1× (the floor)');
  expect(svg).toContain('POST &lt;odd&gt; &amp; name');
  expect(svg).not.toContain('<odd>');
});

const cold: ColdStarts = {
  runs: 9,
  stackFloor: { bytes: 204_800, loadMs: 100, cpuMs: 80 },
  functions: [
    { name: 'samples', bytes: 409_600, loadMs: 105, cpuMs: 84, ratio: 1.05, spread: [1, 1.1], cpuRatio: 1.04, verdict: 'PASS' },
    { name: 'plates', bytes: 512_000, loadMs: 150, cpuMs: 120, ratio: 1.5, spread: [1.25, 1.625], cpuRatio: 1.45, verdict: 'FAIL' },
    { name: 'wells', bytes: 409_600, loadMs: 110, cpuMs: 88, ratio: 1.1, spread: [1.05, 1.2], cpuRatio: 1.1, verdict: 'PASS' },
    { name: 'publisher', bytes: 102_400, loadMs: 95, cpuMs: 76, ratio: 0.95, spread: [0.9, 1], cpuRatio: 0.95, verdict: 'PASS' },
  ],
};

it("tabulates every function's cold start against the stack floor, with the quartiles of its ratios", () => {
  const lines = coldStartTable(cold).split('\n');
  expect(lines).toHaveLength(3 + cold.functions.length);
  expect(lines[2]).toBe('| stack-floor (document client + ElectroDB model) | 200.0 KB | 100.0 ms | 80.0 ms | 1.00× | 1.00× | | |');
  expect(lines[4]).toBe('| plates | 500.0 KB | 150.0 ms | 120.0 ms | 1.50× (1.25–1.63) | 1.45× | ≤ 1.3×, < 1 MB | FAIL |');
});

it('charts the slowest and the median route function and each event function', () => {
  expect(coldStartBars(cold).map((b) => [b.label, b.ratio, b.pass])).toEqual([
    ['cold start: slowest route function (plates)', 1.5, false],
    ['cold start: median route function', 1.1, true],
    ['cold start: publisher function', 0.95, true],
  ]);
  expect(ratioChart(results, cold).match(/<rect /g)).toHaveLength(results.length + 3);
});

it('publishes a cold-start-only run over the last whole run: its scenarios stay, its cold starts are replaced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lts-publish-'));
  try {
    publish(dir, results, cold, { runAt: 'whole run', coldRuns: 9 });
    const faster = { ...cold, runs: 5, functions: cold.functions.map((f) => ({ ...f, ratio: f.ratio - 0.1 })) };
    publishColdStarts(dir, faster, { coldRunAt: 'cold run', coldRuns: 5 });
    const published = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    expect(published.results).toEqual(results);
    expect(published.coldStarts).toEqual(faster);
    expect([published.runAt, published.coldRunAt, published.coldRuns]).toEqual(['whole run', 'cold run', 5]);
    const markdown = readFileSync(join(dir, 'results.md'), 'utf8');
    expect(markdown).toContain(markdownTable(results));
    expect(markdown).toContain(coldStartTable(faster));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
