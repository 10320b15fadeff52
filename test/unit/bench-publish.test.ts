import { expect, it } from 'vitest';
import type { ColdStarts } from '../bench/cold/measure-cold.ts';
import { coldStartBars, coldStartTable, markdownTable, ratioChart } from '../bench/publish.ts';
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
  minimal: { bytes: 2048, loadMs: 100 },
  stackFloor: { bytes: 204_800, loadMs: 125 },
  functions: [
    { name: 'samples', bytes: 409_600, loadMs: 120, ratio: 1.2, stackRatio: 0.96, verdict: 'PASS' },
    { name: 'plates', bytes: 512_000, loadMs: 150, ratio: 1.5, stackRatio: 1.2, verdict: 'FAIL' },
    { name: 'wells', bytes: 409_600, loadMs: 110, ratio: 1.1, stackRatio: 0.88, verdict: 'PASS' },
    { name: 'publisher', bytes: 102_400, loadMs: 105, ratio: 1.05, stackRatio: 0.84, verdict: 'PASS' },
  ],
};

it("tabulates every function's cold start against the minimal handler and the stack floor", () => {
  const lines = coldStartTable(cold).split('\n');
  expect(lines).toHaveLength(4 + cold.functions.length);
  expect(lines[2]).toBe('| minimal-handler (the floor) | 2.0 KB | 100.0 ms | 1.00× | | | |');
  expect(lines[3]).toBe('| stack-floor (document client + ElectroDB model) | 200.0 KB | 125.0 ms | 1.25× | 1.00× | | |');
  expect(lines[5]).toBe('| plates | 500.0 KB | 150.0 ms | 1.50× | 1.20× | ≤ 1.3×, < 1 MB | FAIL |');
});

it('charts the slowest and the median route function and each event function', () => {
  expect(coldStartBars(cold).map((b) => [b.label, b.ratio, b.pass])).toEqual([
    ['cold start: slowest route function (plates)', 1.5, false],
    ['cold start: median route function', 1.2, true],
    ['cold start: publisher function', 1.05, true],
  ]);
  expect(ratioChart(results, cold).match(/<rect /g)).toHaveLength(results.length + 3);
});
