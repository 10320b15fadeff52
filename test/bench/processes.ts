import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * Each measured server runs in a child process of its own, and the bench process only sends requests.
 * Why: process.cpuUsage() then measures exactly one server — not the load generator (whose HTTP client
 * and JSON parsing would dilute both sides alike and pull the CPU ratio towards 1), and not the other
 * server's garbage (separate heaps: a GC triggered by the service's allocations is never billed to the
 * floor). Both children are started the same way (node + tsx loader), both talk to the same DynamoDB
 * Local, and only one of them has requests in flight at any time.
 */
export type Role = 'service' | 'floor';

export interface ServerEnv {
  BENCH_DYNAMODB_ENDPOINT: string;
  BENCH_SERVICE_TABLE: string;
  BENCH_API_KEY: string;
}

export type ParentMessage = { kind: 'cpu'; seq: number } | { kind: 'writes'; seq: number } | { kind: 'stop' };
export type ChildMessage =
  | { kind: 'ready'; port: number }
  | { kind: 'cpu'; seq: number; micros: number }
  | { kind: 'writes'; seq: number; transactions: string[][] };

export interface ServerProcess {
  role: Role;
  /** Base URL on loopback (127.0.0.1: no name resolution on the measured path). */
  url: string;
  /** CPU time (user + system, µs) the process has used so far. */
  cpu(): Promise<number>;
  /** The shapes of the last few TransactWriteItems the process sent, oldest first (./write-shapes.ts). */
  writes(): Promise<string[][]>;
  stop(): Promise<void>;
}

export async function startServerProcess(role: Role, env: ServerEnv): Promise<ServerProcess> {
  const child: ChildProcess = fork(new URL('./server-process.ts', import.meta.url), [role], {
    // BENCH_CPU_PROF=dir: each server writes V8 CPU profiles into dir/<role> when it stops (where a ratio's CPU
    // goes): one per thread, the largest the server's own (tsx's loader thread writes a small one).
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/${role}`] : [])],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const ready = await new Promise<number>((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      if (message.kind === 'ready') {
        child.off('message', onMessage);
        resolve(message.port);
      }
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`the ${role} process exited during start-up (code ${code})`)));
  });

  let seq = 0;
  const pending = new Map<number, (answer: ChildMessage) => void>();
  child.on('message', (message: ChildMessage) => {
    if (message.kind === 'cpu' || message.kind === 'writes') {
      pending.get(message.seq)?.(message);
      pending.delete(message.seq);
    }
  });
  const ask = (kind: 'cpu' | 'writes') =>
    new Promise<ChildMessage>((resolve) => {
      const id = ++seq;
      pending.set(id, resolve);
      child.send({ kind, seq: id } satisfies ParentMessage);
    });

  return {
    role,
    url: `http://127.0.0.1:${ready}`,
    cpu: async () => ((await ask('cpu')) as { micros: number }).micros,
    writes: async () => ((await ask('writes')) as { transactions: string[][] }).transactions,
    async stop() {
      if (child.exitCode !== null) return;
      child.send({ kind: 'stop' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
