import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventEntries } from '../../infra/bundling.ts';
import { COLD_TARGET, STACK_FLOOR, type ColdStart, type ColdStarts } from './cold/measure-cold.ts';
import type { ScenarioResult } from './report.ts';
import { median } from './stats.ts';

/**
 * The published benchmark: each run writes its results to `bench/` (committed) as JSON, as a Markdown
 * table (the README's Performance section copies it) and as an SVG chart of the ratios, so a reader sees
 * the latest figures without running anything, and a change shows in the diff. Cold starts get a table of
 * their own (every function) and a few bars on the chart (the slowest and the median route function, and
 * each event function).
 */

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

/** The ratio a scenario is judged by: p50 latency for reads and lab writes (lower is better), creates per second for creates (higher is better). */
const headline = (r: ScenarioResult) => (r.target.kind === 'latency' ? r.p50Ratio : r.throughputRatio);

export function markdownTable(results: ScenarioResult[]): string {
  const rows = results.map((r) => {
    const measure = r.target.kind === 'latency' ? 'p50 latency' : 'creates/s';
    const target = r.target.kind === 'latency' ? `≤ ${r.target.max}×` : `≥ ${r.target.min}×`;
    return `| ${r.name} | ${measure} | ${fmt(headline(r))}× | ${fmt(r.cpuRatio)}× | ${r.service.calls}/${r.floor.calls} | ${target} | ${r.verdict} |`;
  });
  return [
    '| scenario | ratio of | service ÷ floor | CPU ÷ floor | DynamoDB calls (service/floor) | target | result |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}

/** Every function's bundle size and module-load time (SDK included) against the stack floor's. */
export function coldStartTable(cold: ColdStarts): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return [
    '| function | bundle | load (median) | CPU of the load (median) | load ÷ stack floor (quartiles) | CPU ÷ stack floor | target | result |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    `| ${STACK_FLOOR} (document client + ElectroDB model) | ${kb(cold.stackFloor.bytes)} | ${fmt(cold.stackFloor.loadMs, 1)} ms | ${fmt(cold.stackFloor.cpuMs, 1)} ms | 1.00× | 1.00× | | |`,
    ...cold.functions.map(
      (f) =>
        `| ${f.name} | ${kb(f.bytes)} | ${fmt(f.loadMs, 1)} ms | ${fmt(f.cpuMs, 1)} ms | ${fmt(f.ratio)}× (${fmt(f.spread[0])}–${fmt(f.spread[1])}) | ${fmt(f.cpuRatio)}× | ≤ ${COLD_TARGET.maxRatio}×, < 1 MB | ${f.verdict} |`,
    ),
  ].join('\n');
}

/** One bar of the chart. */
interface Bar {
  label: string;
  ratio: number;
  unit: string;
  pass: boolean;
}

const scenarioBar = (r: ScenarioResult): Bar => ({
  label: r.name,
  ratio: headline(r),
  unit: r.target.kind === 'latency' ? 'p50' : 'creates/s',
  pass: r.verdict === 'PASS',
});

/** The cold-start bars: the slowest and the median route function, then each event function. */
export function coldStartBars(cold: ColdStarts): Bar[] {
  const isEvent = (f: ColdStart) => f.name in eventEntries;
  const routes = cold.functions.filter((f) => !isEvent(f)).sort((a, b) => a.ratio - b.ratio);
  const bar = (label: string, ratio: number, pass: boolean): Bar => ({ label: `cold start: ${label}`, ratio, unit: 'load', pass });
  const passes = (f: ColdStart) => f.verdict === 'PASS';
  const bars: Bar[] = [];
  if (routes.length > 0) {
    const slowest = routes.at(-1)!;
    const middle = median(routes.map((f) => f.ratio));
    bars.push(
      bar(`slowest route function (${slowest.name})`, slowest.ratio, passes(slowest)),
      bar('median route function', middle, middle <= COLD_TARGET.maxRatio),
    );
  }
  return [...bars, ...cold.functions.filter(isEvent).map((f) => bar(`${f.name} function`, f.ratio, passes(f)))];
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A horizontal bar per scenario of its headline ratio (and the cold-start bars), on a scale with a line at 1× (the floor). */
export function ratioChart(results: ScenarioResult[], cold?: ColdStarts): string {
  const rows = [...results.map(scenarioBar), ...(cold ? coldStartBars(cold) : [])];
  const rowHeight = 26;
  const labelWidth = 360;
  const barWidth = 420;
  const max = Math.max(2.5, ...rows.map((r) => r.ratio).filter(Number.isFinite));
  const scale = (ratio: number) => (Math.min(ratio, max) / max) * barWidth;
  const height = rowHeight * rows.length + 50;
  const bars = rows.map((r, i) => {
    const y = 30 + i * rowHeight;
    const colour = r.pass ? '#2e7d32' : '#c62828';
    const width = Number.isFinite(r.ratio) ? scale(r.ratio) : 0;
    return [
      `<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escapeXml(r.label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 3}" width="${width.toFixed(1)}" height="${rowHeight - 8}" fill="${colour}"/>`,
      `<text x="${(labelWidth + width + 6).toFixed(1)}" y="${y + 15}">${fmt(r.ratio)}× ${r.unit}</text>`,
    ].join('');
  });
  const one = labelWidth + scale(1);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + barWidth + 140}" height="${height}" font-family="sans-serif" font-size="12">`,
    '<title>Service ÷ floor ratio of each benchmark scenario</title>',
    `<text x="${labelWidth}" y="18" font-weight="bold">service ÷ floor (same run, same DynamoDB Local)</text>`,
    ...bars,
    `<line x1="${one.toFixed(1)}" y1="26" x2="${one.toFixed(1)}" y2="${height - 14}" stroke="#555" stroke-dasharray="4 3"/>`,
    `<text x="${one.toFixed(1)}" y="${height - 2}" text-anchor="middle">1× (the floor)</text>`,
    '</svg>',
  ].join('\n');
}

/** BENCH_ONLY=cold: the cold starts (and `coldMeta`) replace the published ones; the scenarios' results and meta stay as the last whole run left them. */
export function publishColdStarts(dir: string, cold: ColdStarts, coldMeta: Record<string, unknown>): void {
  const {
    results,
    coldStarts: _replaced,
    ...meta
  } = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { results: ScenarioResult[]; coldStarts: unknown };
  publish(dir, results, cold, { ...meta, ...coldMeta });
}

/** Writes `results.json`, `results.md` and `ratios.svg` into `dir`. */
export function publish(dir: string, results: ScenarioResult[], cold: ColdStarts, meta: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify({ ...meta, results, coldStarts: cold }, null, 2)}\n`);
  const context = Object.entries(meta)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(' · ');
  writeFileSync(join(dir, 'results.md'), `${markdownTable(results)}\n\n${coldStartTable(cold)}\n\n${context}\n`);
  writeFileSync(join(dir, 'ratios.svg'), `${ratioChart(results, cold)}\n`);
}
