import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { workerEndpoint } from '../support/store.ts';
import { freePort } from '#lib/local/dynamodb.ts';
import { startLocalService } from '#lib/local/service.ts';
import { createApiKey } from '#lib/store/api-keys.ts';
import { WAIT_MS } from '../support/limits.ts';

/**
 * `npm start` (lib/local/start.ts, run as its own process) and the local service's life cycle: ports are
 * checked before Java starts, DynamoDB Local listens on 127.0.0.1 only and is never left running behind
 * the service, and SIGTERM lets requests in flight finish. Waits are for events (a line of output, an
 * interim response, a process exit), never for a length of time; the generous limits only stop a hang.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  child: ChildProcess;
  out(): string;
  err(): string;
  /** Resolves with the first match in stdout; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch {
      // best effort
    }
  }
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lts-start-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Starts `lib/local/start.ts` as `npm start` does (without npm and tsx's own process in between). */
function start(env: Record<string, string>): Run {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'PORT' && !name.startsWith('LTS_')));
  // The test run's DynamoDB timeouts (vitest.config.ts): `npm start`'s own 10 s may pass on a loaded machine.
  const timeouts = Object.fromEntries(
    ['LTS_DYNAMODB_CONNECT_TIMEOUT_MS', 'LTS_DYNAMODB_REQUEST_TIMEOUT_MS'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
    cwd: ROOT,
    env: { ...inherited, ...timeouts, LOG_LEVEL: 'silent', LTS_IN_MEMORY: '1', LTS_DATA_DIR: tempDir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
    for (const watcher of watchers) watcher();
  });
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  // Whatever happens in the test, neither the service nor a DynamoDB Local it printed is left running.
  cleanups.push(() => {
    for (const match of stdout.matchAll(/\(pid (\d+)\)/g)) killIfAlive(Number(match[1]));
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    out: () => stdout,
    err: () => stderr,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = stdout.match(pattern);
          if (match) {
            watchers.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${WAIT_MS} ms; stdout: ${stdout}; stderr: ${stderr}`)), WAIT_MS);
        watchers.add(check);
        check();
        void exited.then(({ code }) => {
          if (!watchers.has(check)) return;
          watchers.delete(check);
          clearTimeout(timer);
          reject(new Error(`exited (${code}) before ${pattern}; stdout: ${stdout}; stderr: ${stderr}`));
        });
      }),
  };
}

/** Whether a process exists and is not a zombie (a zombie has exited; only its parent has not reaped it). */
function alive(pid: number): boolean {
  // 0 and negative numbers name process groups (-1: every process); never signal those.
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`not a process id: ${pid}`);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // no such process, or no /proc
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killIfAlive(pid: number) {
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

/** Whether something accepts connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Holds a port on 127.0.0.1 for the rest of the test. */
async function occupy(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => server.close());
  return (server.address() as { port: number }).port;
}

/** The local addresses of the sockets listening on `port`, from /proc/net/tcp and tcp6, decoded. */
function listeningAddresses(port: number): string[] {
  const addresses: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [address, hexPort] = local.split(':') as [string, string];
      if (Number.parseInt(hexPort, 16) !== port) continue;
      addresses.push(decodeAddress(address));
    }
  }
  return addresses;
}

/** /proc/net addresses are 32-bit words in host byte order (little-endian here). */
function decodeAddress(hex: string): string {
  const bytes = (word: string) => (word.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16));
  if (hex.length === 8) return bytes(hex).join('.');
  const all = (hex.match(/.{8}/g) ?? []).flatMap(bytes);
  if (all.slice(0, 10).every((b) => b === 0) && all[10] === 0xff && all[11] === 0xff) return `::ffff:${all.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((all[i]! << 8) | all[i + 1]!).toString(16));
  return groups.join(':');
}
const isLoopback = (address: string) => address === '127.0.0.1' || address === '::ffff:127.0.0.1' || address === '0:0:0:0:0:0:0:1';

/** A PATH whose `java` and `javac` only record that they were run (and then wait, like a JVM that never answers). */
function fakeJava(): { path: string; started: () => number | undefined } {
  const dir = tempDir();
  const marker = join(dir, 'started');
  for (const name of ['java', 'javac']) {
    const script = join(dir, name);
    writeFileSync(script, name === 'java' ? `#!/bin/sh\necho $$ > '${marker}'\nexec sleep 600\n` : `#!/bin/sh\necho javac > '${marker}.javac'\nexit 1\n`);
    chmodSync(script, 0o755);
  }
  cleanups.push(() => {
    const pid = existsSync(marker) ? Number(readFileSync(marker, 'utf8')) : 0;
    if (pid > 1) killIfAlive(pid);
  });
  return {
    path: `${dir}${delimiter}${process.env.PATH}`,
    /** The pid of the fake java, 0 when only the fake javac ran (or java is still writing its pid), undefined when neither ran. */
    started: () => (existsSync(marker) ? Number(readFileSync(marker, 'utf8')) || 0 : existsSync(`${marker}.javac`) ? 0 : undefined),
  };
}

/** Polls for a condition that another process will make true; the limit only stops a hang. */
/**
 * Starts a POST whose body is held back: once the server has answered `100 Continue`, the request is in
 * flight. The caller sends the body (or not) on `socket`; `received` is what came back so far.
 */
async function heldRequest(port: number, key: string, length: number): Promise<{ socket: Socket; closed: Promise<void>; received: () => string }> {
  const socket = connect(port, '127.0.0.1');
  cleanups.push(() => socket.destroy());
  socket.on('error', () => {});
  let received = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const gotContinue = new Promise<void>((resolve) =>
    socket.on('data', (chunk) => {
      received += chunk;
      if (received.includes('100 Continue')) resolve();
    }),
  );
  socket.write(
    `POST /api/v2/samples HTTP/1.1\r\nHost: localhost\r\nX-Sequencescape-Client-Id: ${key}\r\nContent-Type: application/vnd.api+json\r\n` +
      `Accept: application/vnd.api+json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await gotContinue;
  return { socket, closed, received: () => received };
}

async function eventually(condition: () => boolean, what: string): Promise<void> {
  const limit = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > limit) throw new Error(`still not ${what} after ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm start checks its ports before it starts Java', () => {
  it('names PORT when the HTTP port is busy, exits non-zero, and never runs java', async () => {
    const port = await occupy();
    const java = fakeJava();
    const run = start({ PORT: String(port), PATH: java.path, XDG_CACHE_HOME: tempDir() });
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(run.err()).toBe(`port ${port} is in use; set PORT\n`);
    expect(run.out()).toBe('');
    expect(java.started()).toBeUndefined();
  });

  it('names LTS_DYNAMODB_PORT when that port is busy', async () => {
    const port = await occupy();
    const java = fakeJava();
    const run = start({ PORT: '0', LTS_DYNAMODB_PORT: String(port), PATH: java.path, XDG_CACHE_HOME: tempDir() });
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(run.err().split('\n').filter(Boolean)).toEqual([expect.stringMatching(new RegExp(`^port ${port} is in use; set LTS_DYNAMODB_PORT\\b`))]);
    expect(java.started()).toBeUndefined();
  });
});

describe('the development key', () => {
  it('stays the same across restarts of one data dir, so a configured client keeps working', async () => {
    const dataDir = tempDir();
    const keyOf = async () => {
      const run = start({ PORT: '0', LTS_DATA_DIR: dataDir });
      const [, key] = await run.waitFor(/Development API key \(write\): (\S+)/);
      const [, port] = await run.waitFor(/listening on http:\/\/localhost:(\d+)/);
      const res = await fetch(`http://localhost:${port}/api/v2/studies`, { headers: { 'X-Sequencescape-Client-Id': key! } });
      run.child.kill('SIGTERM');
      await run.exited;
      return { key: key!, status: res.status };
    };
    const first = await keyOf();
    const second = await keyOf();
    expect(first.status).toBe(200);
    expect(second).toEqual(first);
    expect(readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim()).toBe(first.key);
  });
});

describe('what npm start says', () => {
  it('its progress while Java starts, then on its own port the docs page, the plate maps and the line the README needs; its address for the admin command line', async () => {
    const dataDir = tempDir();
    const run = start({ PORT: '0', LTS_DATA_DIR: dataDir });
    const [, port] = await run.waitFor(/^listening on http:\/\/localhost:(\d+)$/m);
    const url = `http://localhost:${port}`;
    const lines = run.out().trim().split('\n');
    // Each step as it comes, with the seconds since the process started, before anything else.
    expect(lines.slice(0, 6)).toEqual([
      expect.stringMatching(/^\[\d+ s\] starting DynamoDB Local \(Java\)$/),
      expect.stringMatching(/^\[\d+ s\] DynamoDB Local at http:\/\/127\.0\.0\.1:\d+ \(pid \d+\), data in memory$/),
      expect.stringMatching(/^\[\d+ s\] loading the default reference data$/),
      expect.stringMatching(/^\[\d+ s\] Reference data: \d+ created, 0 updated, 0 unchanged\.$/),
      expect.stringMatching(/^\[\d+ s\] registering the development key$/),
      expect.stringMatching(/^\[\d+ s\] starting the event feed$/),
    ]);
    expect(lines).toContain(`Docs page (no key needed): ${url}/api/v2/docs`);
    expect(lines).toContain(`Plate maps: ${url}/labware/<barcode>`);
    // Another port than the README's, and a key the README's .lts/dev-api-key does not hold (another data dir).
    const key = readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim();
    expect(lines.slice(-3)).toEqual([
      "For the README's lab day and examples, in their shell:",
      `  export LTS_URL=${url} LTS_KEY=${key}`,
      `listening on ${url}`,
    ]);
    expect((await fetch(`${url}/api/v2/docs`)).status).toBe(200);
    expect(JSON.parse(readFileSync(join(dataDir, 'endpoint.json'), 'utf8'))).toEqual({
      dynamodb: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      pid: run.child.pid,
      url,
    });
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(existsSync(join(dataDir, 'endpoint.json'))).toBe(false);
  });
});

describe('npm start never leaves DynamoDB Local running', () => {
  it('stops it when start-up fails after it started', async () => {
    // A data directory whose endpoint file cannot be written: start-up fails once DynamoDB Local answers.
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'endpoint.json'));
    const dynamoPort = await freePort();
    const run = start({ PORT: '0', LTS_DYNAMODB_PORT: String(dynamoPort), LTS_DATA_DIR: dataDir });
    const [, pid] = await run.waitFor(/DynamoDB Local at \S+ \(pid (\d+)\)/);
    const { code } = await run.exited;
    expect(code).toBe(1);
    expect(run.err()).toMatch(/^could not start: .*EISDIR/);
    expect(alive(Number(pid))).toBe(false);
    expect(await accepts(dynamoPort)).toBe(false);
  });

  it('is stopped by the local service itself when a start-up step fails (not only by the exit handler)', async () => {
    const dynamoPort = await freePort();
    let pid: number | undefined;
    const failing = startLocalService({
      dynamoPort,
      tableName: `start-${randomUUID()}`,
      async prepare(dynamo) {
        pid = dynamo.pid;
        throw new Error('key registration failed');
      },
    });
    cleanups.push(() => pid !== undefined && pid > 1 && killIfAlive(pid));
    await expect(failing).rejects.toThrow('key registration failed');
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid!)).toBe(false);
    expect(await accepts(dynamoPort)).toBe(false);
  });

  it('stops it on SIGTERM during start-up', async () => {
    // This java never answers, so start-up is still waiting for it when the signal comes.
    const java = fakeJava();
    const run = start({ PORT: '0', PATH: java.path, XDG_CACHE_HOME: tempDir() });
    await eventually(() => (java.started() ?? 0) > 1, 'java started');
    run.child.kill('SIGTERM');
    const { code } = await run.exited;
    expect(run.out()).toContain('SIGTERM: stopping start-up');
    expect(code).toBe(0);
    expect(alive(java.started()!)).toBe(false);
  });

  it('lets DynamoDB Local exit by itself when the service is killed outright', async () => {
    const run = start({ PORT: '0' });
    const [, pid] = await run.waitFor(/DynamoDB Local at \S+ \(pid (\d+)\)/);
    run.child.kill('SIGKILL');
    await run.exited;
    await eventually(() => !alive(Number(pid)), 'DynamoDB Local gone');
  });
});

describe('SIGTERM drains', () => {
  it('lets a request in flight finish, refuses new connections, then stops DynamoDB Local and exits 0', async () => {
    const key = `start-test-${randomUUID()}`;
    const dynamoPort = await freePort();
    const run = start({ PORT: '0', LTS_DYNAMODB_PORT: String(dynamoPort), LTS_DEV_API_KEY: key });
    const [, pid] = await run.waitFor(/DynamoDB Local at \S+ \(pid (\d+)\)/);
    const [, port] = await run.waitFor(/listening on http:\/\/localhost:(\d+)/);

    // A request whose body the test holds back: once the server answers 100 Continue it is in flight.
    const body = JSON.stringify({
      data: { type: 'samples', attributes: { name: `drain-${randomUUID()}` }, relationships: { studies: { data: [{ type: 'studies', id: '1' }] } } },
    });
    const held = await heldRequest(Number(port), key, Buffer.byteLength(body));

    run.child.kill('SIGTERM');
    await run.waitFor(/SIGTERM: stopping/);
    expect(await accepts(Number(port))).toBe(false);
    expect(alive(Number(pid))).toBe(true);

    held.socket.write(body);
    await held.closed; // the response is the last on its connection
    const response = held.received().slice(held.received().indexOf('\r\n\r\n') + 4);
    expect(response).toMatch(/^HTTP\/1\.1 201 /);
    expect(response).toMatch(/\r\nConnection: close\r\n/i);

    const { code } = await run.exited;
    expect(code).toBe(0);
    expect(run.out()).toContain('stopped');
    expect(alive(Number(pid))).toBe(false);
    expect(await accepts(dynamoPort)).toBe(false);
  });

  it('closes what is still running once the grace period is over', async () => {
    const service = await startLocalService({ dynamo: { endpoint: workerEndpoint(), stop: async () => {} }, tableName: `start-${randomUUID()}` });
    cleanups.push(() => void service.stop({ graceMs: 0 }));
    const key = `start-test-${randomUUID()}`;
    await createApiKey('start-test', 'write', key);
    const held = await heldRequest(Number(new URL(service.url).port), key, 10);

    // The body never comes; stop() waits out the grace period, then closes the connection.
    await service.stop({ graceMs: 50 });
    await held.closed;
    expect(held.received()).not.toMatch(/HTTP\/1\.1 [2-5]\d\d /);
  });
});

describe.skipIf(process.platform !== 'linux')('DynamoDB Local', () => {
  it('listens on 127.0.0.1 only', () => {
    const port = Number(new URL(workerEndpoint()).port);
    const addresses = listeningAddresses(port);
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((address) => !isLoopback(address))).toEqual([]);
  });
});
