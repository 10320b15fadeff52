import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { BUNDLE_LIMIT_BYTES, buildBundles } from '../../../infra/bundles.ts';
import { median, percentile } from '../stats.ts';

/**
 * Cold starts as Lambda pays them: each function's bundle, built with the stack's esbuild options (the
 * AWS SDK bundled in: infra/bundling.ts), loaded by a fresh `node` process from its own folder, against
 * the stack floor (./stack-floor-handler.ts) bundled the same way.
 *
 * What is timed is the module load inside the process — `require` of the bundle, from before to after,
 * which includes compiling and running the SDK — the part of a Lambda cold start the bundle decides (the
 * runtime's own start is the same for every function, and would only dilute the ratio). Nothing is found
 * outside the bundle: no NODE_PATH, no node_modules above its folder, as in /var/task.
 *
 * Order: each round loads the stack floor, then four functions, then the floor again, …; every other
 * round runs the list backwards (ABBA), so a busier moment of a shared machine falls on all. A function's
 * ratio is the median over the rounds of its load ÷ the nearest load of the floor in the same round, so a
 * drift of the machine's speed over the run cancels; the quartiles of those ratios show the noise.
 */
/** What a function's load may cost: the users accepted up to 1.3× the stack floor (contract §7.7), under 1 MB. */
export const COLD_TARGET = { maxRatio: 1.3, maxBytes: BUNDLE_LIMIT_BYTES } as const;
export const STACK_FLOOR = 'stack-floor';
const FUNCTIONS_BETWEEN_FLOORS = 4;

/** A load's wall time and the process's CPU time (user + system, all threads) over it, ms. */
interface Load {
  ms: number;
  cpuMs: number;
}

export interface ColdStart {
  name: string;
  bytes: number;
  /** Median module-load time, ms. */
  loadMs: number;
  /** Median CPU time of the load, ms. */
  cpuMs: number;
  /** The median of each load ÷ the nearest load of the stack floor in its round. */
  ratio: number;
  /** The quartiles of those ratios: the noise of the run. */
  spread: [number, number];
  /** The same median for CPU time. */
  cpuRatio: number;
  verdict: 'PASS' | 'FAIL';
}

export interface ColdStarts {
  runs: number;
  stackFloor: { bytes: number; loadMs: number; cpuMs: number };
  functions: ColdStart[];
}

const run = promisify(execFile);
const LOAD = [
  'const cpu = process.cpuUsage(), t = performance.now();',
  'require(process.argv[1]);',
  'const ms = performance.now() - t, { user, system } = process.cpuUsage(cpu);',
  'process.stdout.write(JSON.stringify({ ms, cpuMs: (user + system) / 1000 }));',
].join(' ');

async function load(file: string): Promise<Load> {
  const { stdout } = await run(process.execPath, ['-e', LOAD, file], {
    cwd: dirname(file),
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-2', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  return JSON.parse(stdout) as Load;
}

/** The load order of one round: the floor before every few functions, and once more at the end. */
export function roundOrder(names: readonly string[], round: number): string[] {
  const order: string[] = [];
  names.forEach((name, i) => {
    if (i % FUNCTIONS_BETWEEN_FLOORS === 0) order.push(STACK_FLOOR);
    order.push(name);
  });
  order.push(STACK_FLOOR);
  return round % 2 === 0 ? order : order.reverse();
}

/** The floor's load nearest to position `i` of a round. */
function nearestFloor(loads: readonly { name: string; load: Load }[], i: number): Load {
  let best: { distance: number; load: Load } | undefined;
  loads.forEach(({ name, load }, j) => {
    if (name === STACK_FLOOR && (!best || Math.abs(i - j) < best.distance)) best = { distance: Math.abs(i - j), load };
  });
  return best!.load;
}

export async function measureColdStarts(runs: number, log: (line: string) => void): Promise<ColdStarts> {
  const outdir = mkdtempSync(join(tmpdir(), 'lts-cold-'));
  try {
    const files = await buildBundles(outdir, { [STACK_FLOOR]: 'test/bench/cold/stack-floor-handler.ts' });
    const names = Object.keys(files).filter((name) => name !== STACK_FLOOR);
    const samples = new Map<string, Load[]>(Object.keys(files).map((name) => [name, []]));
    // Each function's load ÷ the floor's nearest load in the same round: paired, so a drift of the machine's speed over the run cancels.
    const paired = new Map<string, Load[]>(names.map((name) => [name, []]));
    const started = performance.now();
    for (let round = 0; round < runs; round++) {
      const loads: { name: string; load: Load }[] = [];
      for (const name of roundOrder(names, round)) loads.push({ name, load: await load(files[name]!) });
      loads.forEach(({ name, load }, i) => {
        samples.get(name)!.push(load);
        if (name === STACK_FLOOR) return;
        const floor = nearestFloor(loads, i);
        paired.get(name)!.push({ ms: load.ms / floor.ms, cpuMs: load.cpuMs / floor.cpuMs });
      });
    }
    log(`cold starts: ${names.length} functions and the stack floor, ${runs} loads each, in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const measured = (name: string) => {
      const loads = samples.get(name)!;
      return { bytes: statSync(files[name]!).size, loadMs: median(loads.map((l) => l.ms)), cpuMs: median(loads.map((l) => l.cpuMs)) };
    };
    const functions = names.map((name): ColdStart => {
      const ratios = paired.get(name)!.map((l) => l.ms);
      const own = measured(name);
      const ratio = median(ratios);
      const verdict = ratio <= COLD_TARGET.maxRatio && own.bytes < COLD_TARGET.maxBytes ? 'PASS' : 'FAIL';
      const cpuRatio = median(paired.get(name)!.map((l) => l.cpuMs));
      return { name, ...own, ratio, spread: [percentile(ratios, 25), percentile(ratios, 75)], cpuRatio, verdict };
    });
    return { runs, stackFloor: measured(STACK_FLOOR), functions };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
