/** What `npm run bench` can be told through the environment. */
function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * BENCH_ONLY: `cold` for the cold starts alone, any other text for the scenarios whose name contains it —
 * or any of several texts separated by `|` (`384 filled|MX tubes`: a scenario after the reads it follows).
 */
function only(): { coldOnly: boolean; scenarios?: string[] } {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw === '') return { coldOnly: false };
  return raw === 'cold' ? { coldOnly: true } : { coldOnly: false, scenarios: raw.split('|').filter((text) => text !== '') };
}

const chosen = only();

export const options = {
  /**
   * Measured requests per side in each read scenario and lab write, at least (cheap reads run more to fill
   * a minimum time); create batches send for BENCH_ITERATIONS × 80 ms. 48: with 24 the lab writes' CPU
   * ratios moved by ±0.3–0.4 between whole runs (docs/decisions.md, "Measuring speed").
   */
  iterations: positiveInteger('BENCH_ITERATIONS', 48),
  /** Loads of each function's bundle (and of the minimal handler, every few functions) in the cold-start measurement. */
  coldRuns: positiveInteger('BENCH_COLD_RUNS', 7),
  /** BENCH_ONLY=cold: only the cold starts (no DynamoDB Local, no servers); the published scenario results stay as they were. */
  coldOnly: chosen.coldOnly,
  /**
   * BENCH_ONLY=text (other than `cold`): only the scenarios whose name contains it (e.g. `POST` for the
   * writes), and no cold starts: for measuring one change quickly. Such a partial run is printed, never published.
   */
  scenarios: chosen.scenarios,
  /** Whether a scenario of this name runs: every one, unless BENCH_ONLY names some. */
  runs: (name: string): boolean => chosen.scenarios === undefined || chosen.scenarios.some((text) => name.includes(text)),
  /** Where to write the results as JSON, if anywhere. */
  jsonPath: process.env.BENCH_JSON || undefined,
  /** BENCH_CPU_PROF=dir: a CPU profile of each scenario's measured rounds per side (./server-process.ts). */
  cpuProfileDir: process.env.BENCH_CPU_PROF || undefined,
  /** Where the published results go (committed: the README's Performance section shows them). */
  outDir: process.env.BENCH_OUT || 'bench',
};
