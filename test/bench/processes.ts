import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * Each measured server (the service, the design floor, the physical floor) runs in a child process of its own, and the bench process only sends requests.
 * Why: process.cpuUsage() then measures exactly one server — not the load generator (whose HTTP client
 * and JSON parsing would dilute both sides alike and pull the CPU ratio towards 1), and not the other
 * server's garbage (separate heaps: a GC triggered by the service's allocations is never billed to the
 * floor). Both children are started the same way (node + tsx loader), both talk to the same DynamoDB
 * Local, and only one of them has requests in flight at any time.
 */
export type Role = 'service' | 'floor' | 'physical';
/** The sides of a write scenario (the physical floor measures reads only). */
export type Writer = Exclude<Role, 'physical'>;

export interface ServerEnv {
  BENCH_DYNAMODB_ENDPOINT: string;
  BENCH_SERVICE_TABLE: string;
  BENCH_API_KEY: string;
}

export type ParentMessage = { kind: 'cpu'; seq: number } | { kind: 'writes'; seq: number } | { kind: 'profile'; seq: number; file?: string } | { kind: 'stop' };
export type ChildMessage =
  | { kind: 'ready'; port: number }
  | { kind: 'cpu'; seq: number; micros: number }
  | { kind: 'writes'; seq: number; transactions: string[][] }
  | { kind: 'profile'; seq: number };

export interface ServerProcess {
  role: Role;
  /** Base URL on loopback (127.0.0.1: no name resolution on the measured path). */
  url: string;
  /** CPU time (user + system, µs) the process has used so far. */
  cpu(): Promise<number>;
  /** The shapes of the last few TransactWriteItems the process sent, oldest first (./write-shapes.ts). */
  writes(): Promise<string[][]>;
  /** Starts a V8 CPU profile of the server's thread; `file` given, stops it and writes it there (BENCH_CPU_PROF). */
  profile(file?: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startServerProcess(role: Role, env: ServerEnv): Promise<ServerProcess> {
  const child: ChildProcess = fork(new URL('./server-process.ts', import.meta.url), [role], {
    execArgv: ['--import', 'tsx'],
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
    if (message.kind === 'cpu' || message.kind === 'writes' || message.kind === 'profile') {
      pending.get(message.seq)?.(message);
      pending.delete(message.seq);
    }
  });
  const ask = (kind: 'cpu' | 'writes' | 'profile', file?: string) =>
    new Promise<ChildMessage>((resolve) => {
      const id = ++seq;
      pending.set(id, resolve);
      child.send({ kind, seq: id, ...(file ? { file } : {}) } as ParentMessage);
    });

  return {
    role,
    url: `http://127.0.0.1:${ready}`,
    cpu: async () => ((await ask('cpu')) as { micros: number }).micros,
    writes: async () => ((await ask('writes')) as { transactions: string[][] }).transactions,
    profile: async (file?: string) => void (await ask('profile', file)),
    async stop() {
      if (child.exitCode !== null) return;
      child.send({ kind: 'stop' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
