import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { bundlesIn } from '../../infra/bundles.ts';
import { bounded } from '#lib/store/bounded.ts';
import { COLD_TARGET, STACK_FLOOR } from '../bench/cold/measure-cold.ts';

/**
 * The guard contract §7.7 names for cold starts: each function's load, counted in instructions (valgrind,
 * deterministic where wall time on a shared machine is not), within COLD_TARGET.maxRatio of the stack
 * floor's — the document client and the ElectroDB model every function loads (test/bench/cold/). Bundles
 * that hold the same code (the 70 route functions differ only in their route's name) are counted once, by
 * the first of them; a process that only starts Node is subtracted, so what is compared is the load itself.
 * Node runs with `--predictable`: V8 does on its one thread the work it would otherwise hand to its
 * background threads (compiling, collecting garbage), so a count is the same at every run — without it the
 * counts of one bundle spread by ±2% with the threads' timing — and one run per bundle is exact; the ratios
 * are within ~0.015× of ordinary runs', either way (docs/measurements.md, "Cold starts"). Two runs at
 * once.
 * The wall-time measure of every function is the bench's (docs/decisions.md, "Cold starts").
 */

const valgrind = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });
const hasValgrind = valgrind.status === 0;
if (!hasValgrind) console.warn('load-instructions: valgrind is not installed (apt-get install valgrind); the guard is skipped');

const outdir = mkdtempSync(join(tmpdir(), 'lts-load-instructions-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The environment a bundle loads in, as the bench loads it: nothing but what the SDK needs. */
const ENV = { PATH: process.env.PATH, AWS_REGION: 'eu-west-2', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

/** valgrind runs at once: one per core of the machine's two. */
const AT_ONCE = 2;

/** Instructions a fresh `node --predictable` runs for `args` (cachegrind without its cache simulation: counts only). */
function instructions(args: string[], cwd: string): Promise<number> {
  const run = spawn('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', process.execPath, '--predictable', ...args], {
    cwd,
    env: ENV,
  });
  let stderr = '';
  run.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    run.on('error', reject);
    run.on('close', (status) => {
      const counted = /I\s+refs:\s+([\d,]+)/.exec(stderr);
      if (status !== 0 || !counted) reject(new Error(`valgrind failed (${status}): ${stderr.slice(-2000)}`));
      else resolve(Number(counted[1]!.replaceAll(',', '')));
    });
  });
}

it.skipIf(!hasValgrind)(
  `loads every distinct function bundle within ${COLD_TARGET.maxRatio}× the stack floor's instructions`,
  async () => {
    const built = await bundlesIn(outdir, { [STACK_FLOOR]: 'test/bench/cold/stack-floor-handler.ts' });
    // One bundle per distinct set of sources besides its own entry file.
    const distinct = new Map<string, string>();
    for (const name of Object.keys(built).sort()) {
      if (name === STACK_FLOOR) continue;
      const own = built[name]!.inputs.filter((input) => !input.startsWith('functions/')).join('\n');
      if (!distinct.has(own)) distinct.set(own, name);
    }
    const names = [...distinct.values()];
    // Route functions, the fallback, and the event functions (publisher, inbound, sweeper) at least.
    expect(names.length).toBeGreaterThanOrEqual(5);

    const counted = new Map<string, number>();
    const bare = 'node -e 0';
    await bounded([bare, STACK_FLOOR, ...names], AT_ONCE, async (name) => {
      const args = name === bare ? ['-e', '0'] : ['-e', 'require(process.argv[1])', built[name]!.file];
      counted.set(name, await instructions(args, name === bare ? outdir : dirname(built[name]!.file)));
    });
    const load = (name: string) => counted.get(name)! - counted.get(bare)!;
    const floor = load(STACK_FLOOR);
    expect(floor).toBeGreaterThan(0);
    const ratios = Object.fromEntries(names.map((name) => [name, load(name) / floor]));
    console.log(
      `stack floor ${(floor / 1e6).toFixed(0)} M instructions; ${Object.entries(ratios)
        .map(([name, ratio]) => `${name} ${ratio.toFixed(3)}×`)
        .join(', ')}`,
    );
    for (const [name, ratio] of Object.entries(ratios)) expect(ratio, name).toBeLessThanOrEqual(COLD_TARGET.maxRatio);
  },
  900_000,
);
