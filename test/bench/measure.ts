import type { HttpClient, Reply } from './http-client.ts';
import type { Role, ServerProcess } from './processes.ts';
import { median, percentile } from './stats.ts';

/** One measured server: its process (for CPU) and a client to it. */
export interface Side {
  role: Role;
  server: ServerProcess;
  client: HttpClient;
}

/** Sends one request of a scenario to a side; `i` numbers the requests of that side (unique names). */
export type Send = (side: Side, i: number) => Promise<Reply>;

export interface Plan {
  /** Clients sending requests back to back at the same time (1: sequential). */
  concurrency: number;
  /** Requests per batch (at most; Infinity: until the window closes); a side runs one batch, then the other side runs one. */
  batch: number;
  /** If set, a batch also stops sending new requests after this long (in-flight ones complete). */
  windowMs?: number;
  /** If set, a batch keeps sending requests (beyond `batch`) until it has lasted this long: cheap requests get more samples. */
  minWindowMs?: number;
  /** Measured batches per side, alternating which side goes first (ABBA …) so drift hits both alike. */
  rounds: number;
  /** One unmeasured batch per side first (JIT, lazily loaded SDK code, connection pools): at most this many requests… */
  warmup: number;
  /** …and, if set, no new request after this long. */
  warmupWindowMs?: number;
}

export interface SideResult {
  role: Role;
  requests: number;
  /** 2xx replies. */
  ok: number;
  /** Replies by status, non-2xx only (0: no reply, a transport error). */
  failures: Record<string, number>;
  p50: number;
  p95: number;
  /** CPU time of the server process per request, ms. */
  cpuPerRequest: number;
  /** 2xx replies per second of batch wall time. */
  perSecond: number;
  /** Median of X-DynamoDB-Calls over the 2xx replies. */
  calls: number;
  meanCalls: number;
  /** Medians of X-DynamoDB-Capacity's read and write units over the 2xx replies (NaN: not reported). */
  readUnits: number;
  writeUnits: number;
}

interface Tally {
  latencies: number[];
  calls: number[];
  readUnits: number[];
  writeUnits: number[];
  requests: number;
  ok: number;
  failures: Record<string, number>;
  wallMs: number;
}

interface Batch {
  concurrency: number;
  requests: number;
  windowMs?: number | undefined;
  minWindowMs?: number | undefined;
}

async function runBatch(side: Side, batch: Batch, send: Send, counter: { next: number }, tally?: Tally): Promise<void> {
  let issued = 0;
  const started = performance.now();
  const deadline = batch.windowMs === undefined ? Infinity : started + batch.windowMs;
  const minimum = started + (batch.minWindowMs ?? 0);
  const more = () => (issued < batch.requests || performance.now() < minimum) && performance.now() < deadline;
  await Promise.all(
    Array.from({ length: Math.min(batch.concurrency, batch.requests) }, async () => {
      while (more()) {
        issued++;
        // A request that fails in transport (no reply at all) counts as a failure rather than ending the run.
        const reply = await send(side, counter.next++).catch((): Reply => ({ status: 0, ms: NaN, calls: NaN, text: '' }));
        if (!tally) continue;
        tally.requests++;
        if (reply.status >= 200 && reply.status < 300) {
          tally.ok++;
          tally.latencies.push(reply.ms);
          tally.calls.push(reply.calls);
          tally.readUnits.push(reply.capacity?.read ?? NaN);
          tally.writeUnits.push(reply.capacity?.write ?? NaN);
        } else {
          tally.failures[reply.status] = (tally.failures[reply.status] ?? 0) + 1;
        }
      }
    }),
  );
  if (tally) tally.wallMs += performance.now() - started;
}

/**
 * The order of the sides in a round: forward in even rounds, backward in odd ones (ABBA for two sides),
 * and for more sides each pair of rounds starts one side later, so no side always follows the same one.
 */
export function roundOrder(sides: number, round: number): number[] {
  const start = Math.floor(round / 2) % sides;
  const order = Array.from({ length: sides }, (_, i) => (start + i) % sides);
  return round % 2 === 0 ? order : order.reverse();
}

/**
 * Runs a scenario on every side (service, design floor and, for reads, the physical floor), interleaved: a
 * warm-up batch each, then `rounds` measured batches each, in the order `roundOrder` gives, so a slower or
 * busier moment of the machine is shared. CPU is read from both processes once before and once after the measured rounds, so work a
 * server defers (garbage collection after a batch) is still billed to it; a server waiting for its turn
 * is idle and costs next to nothing. With `profileFile`, each server writes a CPU profile of the measured rounds there.
 */
export async function measure(sides: readonly Side[], plan: Plan, send: Send, profileFile?: (role: Role) => string): Promise<SideResult[]> {
  const counters = sides.map(() => ({ next: 0 }));
  const warmup: Batch = { concurrency: plan.concurrency, requests: plan.warmup, windowMs: plan.warmupWindowMs };
  for (const [i, side] of sides.entries()) await runBatch(side, warmup, send, counters[i]!);
  const measured: Batch = { concurrency: plan.concurrency, requests: plan.batch, windowMs: plan.windowMs, minWindowMs: plan.minWindowMs };
  const tallies: Tally[] = sides.map(() => ({ latencies: [], calls: [], readUnits: [], writeUnits: [], requests: 0, ok: 0, failures: {}, wallMs: 0 }));
  // Profiles (BENCH_CPU_PROF) cover the measured rounds and nothing else; their sampling costs both sides alike.
  if (profileFile) await Promise.all(sides.map((s) => s.server.profile()));
  const cpuBefore = await Promise.all(sides.map((s) => s.server.cpu()));
  for (let round = 0; round < plan.rounds; round++) {
    for (const i of roundOrder(sides.length, round)) await runBatch(sides[i]!, measured, send, counters[i]!, tallies[i]!);
  }
  const cpuAfter = await Promise.all(sides.map((s) => s.server.cpu()));
  if (profileFile) await Promise.all(sides.map((s) => s.server.profile(profileFile(s.role))));
  return sides.map((side, i): SideResult => {
    const t = tallies[i]!;
    return {
      role: side.role,
      requests: t.requests,
      ok: t.ok,
      failures: t.failures,
      p50: median(t.latencies),
      p95: percentile(t.latencies, 95),
      cpuPerRequest: (cpuAfter[i]! - cpuBefore[i]!) / 1000 / Math.max(1, t.requests),
      perSecond: t.ok / (t.wallMs / 1000),
      calls: median(t.calls),
      meanCalls: t.calls.reduce((a, b) => a + b, 0) / Math.max(1, t.calls.length),
      readUnits: median(t.readUnits.filter(Number.isFinite)),
      writeUnits: median(t.writeUnits.filter(Number.isFinite)),
    };
  });
}
