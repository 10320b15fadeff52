import { writeFileSync } from 'node:fs';
import { COLD_TARGET, STACK_FLOOR, type ColdStarts } from './cold/measure-cold.ts';
import type { SideResult } from './measure.ts';
import type { Target } from './scenarios.ts';
import { ratio } from './stats.ts';

export interface ScenarioResult {
  name: string;
  target: Target;
  service: SideResult;
  floor: SideResult;
  /** Reads: the physical floor (./floor/physical.ts), measured in the same rounds, and service ÷ it. */
  physical?: { result: SideResult; p50Ratio: number; cpuRatio: number };
  /** Service ÷ floor. */
  p50Ratio: number;
  cpuRatio: number;
  throughputRatio: number;
  verdict: 'PASS' | 'FAIL';
  /** Why it failed, or a note (e.g. which ratio is over). */
  note: string;
  /** Whether the floors answered the same document as the service (reads), or what differed. */
  sameAnswer?: string;
}

const nonOk = (r: SideResult) => Object.values(r.failures).reduce((a, b) => a + b, 0);

/** The verdict of a scenario against the design floor (the targets); the physical floor's ratios beside it, for information. */
export function judge(name: string, target: Target, service: SideResult, floor: SideResult, sameAnswer?: string, physical?: SideResult): ScenarioResult {
  const p50Ratio = ratio(service.p50, floor.p50);
  const cpuRatio = ratio(service.cpuPerRequest, floor.cpuPerRequest);
  const throughputRatio = ratio(service.perSecond, floor.perSecond);
  const over: string[] = [];
  if (target.kind === 'latency') {
    if (!(p50Ratio <= target.max)) over.push(`p50 ${fmt(p50Ratio, 2)}× > ${target.max}×`);
    if (!(cpuRatio <= target.max)) over.push(`CPU ${fmt(cpuRatio, 2)}× > ${target.max}×`);
    if (nonOk(service) + nonOk(floor) > 0) over.push('non-2xx replies');
  } else if (!(throughputRatio >= target.min)) {
    over.push(`creates/s ${fmt(throughputRatio, 2)}× < ${target.min}×`);
  }
  return {
    name,
    target,
    service,
    floor,
    p50Ratio,
    cpuRatio,
    throughputRatio,
    ...(physical
      ? { physical: { result: physical, p50Ratio: ratio(service.p50, physical.p50), cpuRatio: ratio(service.cpuPerRequest, physical.cpuPerRequest) } }
      : {}),
    verdict: over.length === 0 ? 'PASS' : 'FAIL',
    note: over.join('; '),
    ...(sameAnswer !== undefined ? { sameAnswer } : {}),
  };
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const x = (n: number) => `${fmt(n, 2)}×`;
const calls = (r: SideResult) => (Number.isFinite(r.calls) ? String(r.calls) : '—');
const failures = (r: SideResult) =>
  String(nonOk(r)) +
  (nonOk(r) > 0
    ? ` (${Object.entries(r.failures)
        .map(([s, n]) => `${n}×${s}`)
        .join(', ')})`
    : '');

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function printReport(results: ScenarioResult[], context: string[]): void {
  const reads = results.filter((r) => r.target.kind === 'latency');
  const creates = results.filter((r) => r.target.kind === 'throughput');
  console.log(`\n${context.join('\n')}\n`);
  console.log(
    table(
      [
        'read (sequential)',
        'service p50 ms',
        'floor p50 ms',
        'p50 ratio',
        'service CPU ms/req',
        'floor CPU ms/req',
        'CPU ratio',
        'calls svc/floor',
        'target',
        'result',
      ],
      reads.map((r) => [
        r.name,
        fmt(r.service.p50),
        fmt(r.floor.p50),
        x(r.p50Ratio),
        fmt(r.service.cpuPerRequest, 2),
        fmt(r.floor.cpuPerRequest, 2),
        x(r.cpuRatio),
        `${calls(r.service)}/${calls(r.floor)}`,
        r.target.kind === 'latency' ? `≤ ${r.target.max}×` : '',
        r.verdict,
      ]),
    ),
  );
  const physical = reads.filter((r) => r.physical);
  if (physical.length > 0) {
    console.log('');
    console.log(
      table(
        ['read (sequential)', 'physical p50 ms', 'svc ÷ physical p50', 'physical CPU ms/req', 'svc ÷ physical CPU', 'calls svc/floor/physical'],
        physical.map(({ name, service, floor, physical: p }) => [
          name,
          fmt(p!.result.p50),
          x(p!.p50Ratio),
          fmt(p!.result.cpuPerRequest, 2),
          x(p!.cpuRatio),
          `${calls(service)}/${calls(floor)}/${calls(p!.result)}`,
        ]),
      ),
    );
  }
  console.log('');
  console.log(
    table(
      [
        'capacity units per request (median)',
        'service read',
        'floor read',
        'physical read',
        'svc ÷ floor read',
        'svc ÷ physical read',
        'service write',
        'floor write',
        'svc ÷ floor write',
      ],
      results.map((r) => [
        r.name,
        fmt(r.service.readUnits),
        fmt(r.floor.readUnits),
        r.physical ? fmt(r.physical.result.readUnits) : '',
        x(ratio(r.service.readUnits, r.floor.readUnits)),
        r.physical ? x(ratio(r.service.readUnits, r.physical.result.readUnits)) : '',
        fmt(r.service.writeUnits),
        fmt(r.floor.writeUnits),
        x(ratio(r.service.writeUnits, r.floor.writeUnits)),
      ]),
    ),
  );
  console.log('');
  console.log(
    table(
      [
        'create',
        'service creates/s',
        'floor creates/s',
        'ratio',
        'service p50 ms',
        'floor p50 ms',
        'CPU ratio',
        'non-2xx svc',
        'non-2xx floor',
        'calls svc/floor',
        'target',
        'result',
      ],
      creates.map((r) => [
        r.name,
        fmt(r.service.perSecond),
        fmt(r.floor.perSecond),
        x(r.throughputRatio),
        fmt(r.service.p50),
        fmt(r.floor.p50),
        x(r.cpuRatio),
        failures(r.service),
        failures(r.floor),
        `${calls(r.service)}/${calls(r.floor)}`,
        r.target.kind === 'throughput' ? `≥ ${r.target.min}×` : '',
        r.verdict,
      ]),
    ),
  );
  const notes = results.filter((r) => r.note || (r.sameAnswer && r.sameAnswer !== 'same'));
  if (notes.length > 0) {
    console.log('');
    for (const r of notes) {
      if (r.note) console.log(`${r.verdict} ${r.name}: ${r.note}`);
      if (r.sameAnswer && r.sameAnswer !== 'same') console.log(`NOTE ${r.name}: a floor's answer differs from the service's: ${r.sameAnswer}`);
    }
  }
  console.log(
    [
      '',
      'ratios are service ÷ floor (the design floor; for reads also ÷ the physical floor), measured in the same run on the same DynamoDB Local, batches interleaved;',
      'p50 over 2xx replies; CPU = user+system time of the server process per request; calls = median X-DynamoDB-Calls;',
      'capacity = median X-DynamoDB-Capacity units (as DynamoDB Local reports them, indexes included);',
      'creates/s counts 2xx replies per second of batch wall time. Targets are informational: the bench never fails on a ratio.',
    ].join('\n'),
  );
}

export function writeJson(path: string, content: Record<string, unknown>): void {
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`);
}

export function printColdStarts(cold: ColdStarts): void {
  console.log('');
  console.log(
    table(
      [
        'cold start (module load, SDK included)',
        'bundle KB',
        'load ms (median)',
        'CPU ms (median)',
        '÷ stack floor',
        'quartiles',
        'CPU ÷ stack floor',
        'target',
        'result',
      ],
      [
        [
          `${STACK_FLOOR} (the floor)`,
          fmt(cold.stackFloor.bytes / 1024),
          fmt(cold.stackFloor.loadMs),
          fmt(cold.stackFloor.cpuMs),
          '1.00×',
          '',
          '1.00×',
          '',
          '',
        ],
        ...cold.functions.map((f) => [
          f.name,
          fmt(f.bytes / 1024),
          fmt(f.loadMs),
          fmt(f.cpuMs),
          x(f.ratio),
          `${x(f.spread[0])}–${x(f.spread[1])}`,
          x(f.cpuRatio),
          `≤ ${COLD_TARGET.maxRatio}×, < 1 MB`,
          f.verdict,
        ]),
      ],
    ),
  );
  console.log(
    `median of ${cold.runs} loads each in fresh node processes (require of the bundle from its own folder, the SDK in it); each load ÷ the nearest load of the stack floor, loaded between every few functions, ABBA.`,
  );
}
