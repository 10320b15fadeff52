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
 * Order: each round loads the minimal handler, then four functions, then the minimal handler again, …;
 * every other round runs the list backwards (ABBA), so a busier moment of a shared machine falls on both.
 */
export const COLD_TARGET = { maxRatio: 1.3, maxBytes: BUNDLE_LIMIT_BYTES } as const;
export const MINIMAL = 'minimal-handler';
const FUNCTIONS_BETWEEN_MINIMAL = 4;

export interface ColdStart {
  name: string;
  bytes: number;
  /** Median module-load time, ms. */
  loadMs: number;
  /** loadMs ÷ the minimal handler's. */
  ratio: number;
  verdict: 'PASS' | 'FAIL';
}

export interface ColdStarts {
  runs: number;
  minimal: { bytes: number; loadMs: number };
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

/** The load order of one round: the minimal handler before every few functions, and once more at the end. */
export function roundOrder(names: readonly string[], round: number): string[] {
  const order: string[] = [];
  names.forEach((name, i) => {
    if (i % FUNCTIONS_BETWEEN_MINIMAL === 0) order.push(MINIMAL);
    order.push(name);
  });
  order.push(MINIMAL);
  return round % 2 === 0 ? order : order.reverse();
}

export async function measureColdStarts(runs: number, log: (line: string) => void): Promise<ColdStarts> {
  const outdir = mkdtempSync(join(tmpdir(), 'lts-cold-'));
  try {
    const files = await buildBundles(outdir, { [MINIMAL]: 'test/bench/cold/minimal-handler.ts' });
    const names = Object.keys(files).filter((name) => name !== MINIMAL);
    const samples = new Map<string, number[]>(Object.keys(files).map((name) => [name, []]));
    const started = performance.now();
    for (let round = 0; round < runs; round++) {
      for (const name of roundOrder(names, round)) samples.get(name)!.push(await loadMs(files[name]!));
    }
    log(`cold starts: ${names.length} functions and the minimal handler, ${runs} loads each, in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const minimal = { bytes: statSync(files[MINIMAL]!).size, loadMs: median(samples.get(MINIMAL)!) };
    const functions = names.map((name): ColdStart => {
      const bytes = statSync(files[name]!).size;
      const load = median(samples.get(name)!);
      const ratio = load / minimal.loadMs;
      return { name, bytes, loadMs: load, ratio, verdict: ratio <= COLD_TARGET.maxRatio && bytes < COLD_TARGET.maxBytes ? 'PASS' : 'FAIL' };
    });
    return { runs, minimal, functions };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
