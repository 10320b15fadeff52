/**
 * Child-process entry of a measured server: `service` (the whole local service: the route table through
 * the middy chain, ElectroDB, DynamoDB), `floor` (the design floor, ./floor/server.ts) or `physical` (the
 * physical floor, ./floor/physical.ts). It tells its parent its URL once
 * listening, then answers `cpu` with process.cpuUsage() (all threads of this process: JS, GC, SDK I/O)
 * and `writes` with the shapes of its last transactions (./write-shapes.ts), `profile` by starting a V8 CPU
 * profile of its own thread or, given a file, writing the one under way there (BENCH_CPU_PROF: a profile of
 * exactly a scenario's measured rounds), and `stop` by closing. DynamoDB Local runs elsewhere and is shared by both.
 */
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { ChildMessage, ParentMessage, ServerEnv } from './processes.ts';
import { recordWriteShapes } from './write-shapes.ts';

const env = process.env as unknown as ServerEnv;
const role = process.argv[2];
const send = (message: ChildMessage) => process.send!(message);

let stop: () => Promise<void>;
let writes: () => string[][] = () => [];
// Each role loads only its own code (dynamic imports), so neither heap carries the other's modules.
if (role === 'service') {
  const { startLocalService } = await import('#lib/local/service.ts');
  const { ensureApiKey } = await import('#lib/store/api-keys.ts');
  const service = await startLocalService({ dynamo: { endpoint: env.BENCH_DYNAMODB_ENDPOINT, stop: async () => {} }, tableName: env.BENCH_SERVICE_TABLE });
  // Admin: the lab-work seed registers a plate purpose the reference data lacks (test/bench/seed-work.ts).
  // Ensured, not created: every scenario starts a fresh service on the same table (./run.ts).
  await ensureApiKey('bench', 'admin', env.BENCH_API_KEY);
  const { dynamo } = await import('#lib/store/client.ts');
  writes = recordWriteShapes(dynamo());
  stop = service.stop;
  send({ kind: 'ready', port: Number(new URL(service.url).port) });
} else if (role === 'floor' || role === 'physical') {
  const { documentClient } = await import('./floor/db.ts');
  const doc = documentClient(env.BENCH_DYNAMODB_ENDPOINT);
  writes = recordWriteShapes(doc);
  const options = { doc, table: env.BENCH_SERVICE_TABLE };
  const server =
    role === 'floor'
      ? (await import('./floor/server.ts')).createFloorServer(options)
      : (await import('./floor/physical.ts')).createPhysicalFloorServer(options);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    doc.destroy();
  };
  send({ kind: 'ready', port: (server.address() as AddressInfo).port });
} else {
  throw new Error(`unknown role ${role}`);
}

/** Sampling every 100 µs: a 96-entry write is ~30 ms, so a scenario's rounds give a few thousand samples a side. */
const PROFILE_INTERVAL_US = 100;
let inspector: Session | undefined;

async function profileStep(file: string | undefined): Promise<void> {
  if (!inspector) {
    inspector = new Session();
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_US });
  }
  if (!file) return void (await inspector.post('Profiler.start'));
  const { profile: taken } = await inspector.post('Profiler.stop');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(taken));
}

process.on('message', (message: ParentMessage) => {
  if (message.kind === 'profile') {
    void profileStep(message.file).then(() => send({ kind: 'profile', seq: message.seq }));
  } else if (message.kind === 'cpu') {
    const { user, system } = process.cpuUsage();
    send({ kind: 'cpu', seq: message.seq, micros: user + system });
  } else if (message.kind === 'writes') {
    send({ kind: 'writes', seq: message.seq, transactions: writes() });
  } else if (message.kind === 'stop') {
    void stop().finally(() => process.exit(0));
  }
});
// The parent going away (Ctrl-C, a crash) takes this process with it.
process.on('disconnect', () => process.exit(0));
