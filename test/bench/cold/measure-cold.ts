import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUNDLE_LIMIT_BYTES, buildBundles } from '../../../infra/bundles.ts';
import { PROJECT_ROOT } from '../../../infra/function.ts';
import { median } from '../stats.ts';

/**
 * Cold starts: each function's bundle, built with the stack's esbuild options, loaded by fresh `node`
 * processes, against a minimal handler bundled the same way (./minimal-handler.ts).
 *
 * What is timed is the module load inside the process — `require` of the bundle, from before to after —
 * which is the part of a Lambda cold start the bundle decides (the runtime's own start is the same for
 * every function, and would only dilute the ratio). `@aws-sdk/*` is left out of the bundles, as on the
 * Lambda runtime, and found through NODE_PATH, as the runtime finds its own copy.
 *
 * Order: each round loads the minimal handler and the stack floor, then four functions, then both again,
 * …; every other round runs the list backwards (ABBA), so a busier moment of a shared machine falls on all.
 *
 * The stack floor (./stack-floor-handler.ts) adds ElectroDB's model of the table to the minimal handler:
 * every function of this stack loads it, so each function is also reported against it (informational;
 * the target is against the minimal handler). A ratio is the median of each load's ratio to the nearest
 * load of the reference in the same round.
 */
export const COLD_TARGET = { maxRatio: 1.3, maxBytes: BUNDLE_LIMIT_BYTES } as const;
export const MINIMAL = 'minimal-handler';
export const STACK_FLOOR = 'stack-floor';
const REFERENCES = [MINIMAL, STACK_FLOOR];
const FUNCTIONS_BETWEEN_REFERENCES = 4;

export interface ColdStart {
  name: string;
  bytes: number;
  /** Median module-load time, ms. */
  loadMs: number;
  /** The median of each load ÷ the nearest load of the minimal handler in its round. */
  ratio: number;
  /** The same against the stack floor. */
  stackRatio: number;
  verdict: 'PASS' | 'FAIL';
}

export interface ColdStarts {
  runs: number;
  minimal: { bytes: number; loadMs: number };
  stackFloor: { bytes: number; loadMs: number };
  functions: ColdStart[];
}

const run = promisify(execFile);
const LOAD = 'const t = performance.now(); require(process.argv[1]); process.stdout.write(String(performance.now() - t));';

async function loadMs(file: string): Promise<number> {
  const { stdout } = await run(process.execPath, ['-e', LOAD, file], {
    env: {
      PATH: process.env.PATH,
      NODE_PATH: join(PROJECT_ROOT, 'node_modules'),
      AWS_REGION: 'eu-west-2',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  return Number(stdout);
}

/** The load order of one round: the references before every few functions, and once more at the end. */
export function roundOrder(names: readonly string[], round: number): string[] {
  const order: string[] = [];
  names.forEach((name, i) => {
    if (i % FUNCTIONS_BETWEEN_REFERENCES === 0) order.push(...REFERENCES);
    order.push(name);
  });
  order.push(...REFERENCES);
  return round % 2 === 0 ? order : order.reverse();
}

/** The load time of the load of `name` nearest to position `i` of a round. */
function nearest(loads: readonly { name: string; ms: number }[], i: number, name: string): number {
  let best: { distance: number; ms: number } | undefined;
  loads.forEach((load, j) => {
    if (load.name === name && (!best || Math.abs(i - j) < best.distance)) best = { distance: Math.abs(i - j), ms: load.ms };
  });
  return best!.ms;
}

export async function measureColdStarts(runs: number, log: (line: string) => void): Promise<ColdStarts> {
  const outdir = mkdtempSync(join(tmpdir(), 'lts-cold-'));
  try {
    const files = await buildBundles(outdir, { [MINIMAL]: 'test/bench/cold/minimal-handler.ts', [STACK_FLOOR]: 'test/bench/cold/stack-floor-handler.ts' });
    const names = Object.keys(files).filter((name) => !REFERENCES.includes(name));
    const samples = new Map<string, number[]>(Object.keys(files).map((name) => [name, []]));
    // Each function's load ÷ the nearest load of each reference in the same round: paired, so a drift of the machine's speed over the run cancels.
    const paired = new Map<string, number[]>(names.flatMap((name) => REFERENCES.map((ref) => [`${name}/${ref}`, []])));
    const started = performance.now();
    for (let round = 0; round < runs; round++) {
      const loads: { name: string; ms: number }[] = [];
      for (const name of roundOrder(names, round)) loads.push({ name, ms: await loadMs(files[name]!) });
      loads.forEach(({ name, ms }, i) => {
        samples.get(name)!.push(ms);
        if (REFERENCES.includes(name)) return;
        for (const ref of REFERENCES) paired.get(`${name}/${ref}`)!.push(ms / nearest(loads, i, ref));
      });
    }
    log(
      `cold starts: ${names.length} functions, the minimal handler and the stack floor, ${runs} loads each, in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    const measured = (name: string) => ({ bytes: statSync(files[name]!).size, loadMs: median(samples.get(name)!) });
    const minimal = measured(MINIMAL);
    const stackFloor = measured(STACK_FLOOR);
    const functions = names.map((name): ColdStart => {
      const own = measured(name);
      const ratio = median(paired.get(`${name}/${MINIMAL}`)!);
      const verdict = ratio <= COLD_TARGET.maxRatio && own.bytes < COLD_TARGET.maxBytes ? 'PASS' : 'FAIL';
      return { name, ...own, ratio, stackRatio: median(paired.get(`${name}/${STACK_FLOOR}`)!), verdict };
    });
    return { runs, minimal, stackFloor, functions };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
