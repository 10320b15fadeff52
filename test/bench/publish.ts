import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioResult } from './report.ts';

/**
 * The published benchmark: each run writes its results to `bench/` (committed) as JSON, as a Markdown
 * table (the README's Performance section copies it) and as an SVG chart of the ratios, so a reader sees
 * the latest figures without running anything, and a change shows in the diff.
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

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A horizontal bar per scenario of its headline ratio, on a scale with a line at 1× (the floor). */
export function ratioChart(results: ScenarioResult[]): string {
  const rowHeight = 26;
  const labelWidth = 330;
  const barWidth = 420;
  const max = Math.max(2.5, ...results.map(headline).filter(Number.isFinite));
  const scale = (ratio: number) => (Math.min(ratio, max) / max) * barWidth;
  const height = rowHeight * results.length + 50;
  const bars = results.map((r, i) => {
    const y = 30 + i * rowHeight;
    const ratio = headline(r);
    const colour = r.verdict === 'PASS' ? '#2e7d32' : '#c62828';
    const width = Number.isFinite(ratio) ? scale(ratio) : 0;
    return [
      `<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escapeXml(r.name)}</text>`,
      `<rect x="${labelWidth}" y="${y + 3}" width="${width.toFixed(1)}" height="${rowHeight - 8}" fill="${colour}"/>`,
      `<text x="${(labelWidth + width + 6).toFixed(1)}" y="${y + 15}">${fmt(ratio)}× ${r.target.kind === 'latency' ? 'p50' : 'creates/s'}</text>`,
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

/** Writes `results.json`, `results.md` and `ratios.svg` into `dir`. */
export function publish(dir: string, results: ScenarioResult[], meta: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify({ ...meta, results }, null, 2)}\n`);
  const context = Object.entries(meta)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(' · ');
  writeFileSync(join(dir, 'results.md'), `${markdownTable(results)}\n\n${context}\n`);
  writeFileSync(join(dir, 'ratios.svg'), `${ratioChart(results)}\n`);
}
