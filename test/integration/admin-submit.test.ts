import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageFileError, readMessages, resultLine, submitMessages } from '#lib/admin/submit.ts';
import { registry } from '#lib/resources/index.ts';
import { call, doc } from '../support/api.ts';
import { uniqueName } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * `npm run admin -- submit <file>`: a file of inbound messages through the engine's message entry; its links
 * start with LTS_BASE_URL, else the running `npm start`'s address.
 */

let store: { tableName: string; endpoint: string };
const dir = mkdtempSync(join(tmpdir(), 'lts-submit-'));
beforeAll(async () => {
  store = await freshStore();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const createSample = (name: string, key?: string) => ({
  method: 'POST',
  path: '/api/v2/samples',
  body: doc('samples', { name }),
  ...(key ? { idempotency_key: key } : {}),
});
const samplesNamed = async (name: string): Promise<number> => (await call('GET', `/api/v2/samples?filter[name]=${name}`)).body.meta.record_count;

describe('readMessages', () => {
  it('reads a JSON array, a single message, or NDJSON (numbered by line, blank lines skipped)', () => {
    expect(readMessages('[{"a":1},{"b":2}]')).toEqual([
      { number: 1, message: { a: 1 } },
      { number: 2, message: { b: 2 } },
    ]);
    expect(readMessages('{\n  "a": 1\n}\n')).toEqual([{ number: 1, message: { a: 1 } }]);
    expect(readMessages('{"a":1}\n\n{"b":2}\nnot json\n')).toEqual([
      { number: 1, message: { a: 1 } },
      { number: 3, message: { b: 2 } },
      { number: 4, notJson: expect.any(String) },
    ]);
  });

  it('refuses a file that starts as a JSON array but does not parse', () => {
    expect(() => readMessages('[{"a":1},')).toThrow(MessageFileError);
  });
});

describe('submitMessages', () => {
  it('runs each message in order and reports each outcome: created, replayed, refused', async () => {
    const name = uniqueName('submit');
    const message = JSON.stringify(createSample(name, `key-${name}`));
    const text = [message, message, '{"method":"GET","path":"/api/v2/samples","body":{}}', '{oops'].join('\n');
    const results = await submitMessages(text, { registry, identity: { name: 'admin', scope: 'write' }, baseUrl: 'https://lts.test' });
    expect(results.map((r) => [r.number, r.response.status])).toEqual([
      [1, 201],
      [2, 201],
      [3, 400],
      [4, 400],
    ]);
    expect(results[1]!.response).toEqual(results[0]!.response);
    expect(await samplesNamed(name)).toBe(1);
    const location = results[0]!.response.headers.Location!;
    expect(location).toMatch(/^https:\/\/lts\.test\/api\/v2\/samples\/\d+$/);
    expect(results.map(resultLine)).toEqual([
      `1\t201\t${location}`,
      `2\t201\t${location}`,
      '3\t400\tinvalid_message at /method: method - must be POST or PATCH: messages only write, got "GET"',
      expect.stringMatching(/^4\t400\tinvalid_message: the message is not JSON: /),
    ]);
  });

  it('reports a success without a Location by its records', async () => {
    const [created] = await submitMessages(JSON.stringify(createSample(uniqueName('submit'))), {
      registry,
      identity: { name: 'admin', scope: 'write' },
      baseUrl: 'https://lts.test',
    });
    const id = JSON.parse(created!.response.body!).data.id;
    const patch = { method: 'PATCH', path: `/api/v2/samples/${id}`, body: doc('samples', { site_sample_id: 'S9' }, undefined, id) };
    const [patched] = await submitMessages(JSON.stringify([patch]), { registry, identity: { name: 'admin', scope: 'write' }, baseUrl: 'https://lts.test' });
    expect(resultLine(patched!)).toBe(`1\t200\tsamples/${id}`);
  });
});

describe('npm run admin -- submit <file>', () => {
  /** The command line with exactly these LTS_ variables (and no PORT). */
  const adminWith = (lts: Record<string, string>, ...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'lib/admin/cli.ts', ...args], {
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LTS_') && name !== 'PORT')),
        ...lts,
        LOG_LEVEL: 'silent',
      },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  const admin = (...args: string[]) =>
    adminWith({ LTS_DYNAMODB_ENDPOINT: store.endpoint, LTS_TABLE_NAME: store.tableName, LTS_BASE_URL: 'https://lts.test' }, ...args);

  it('runs a JSON array file: one line per message, exit 0 when every message succeeded', async () => {
    const names = [uniqueName('cli'), uniqueName('cli')];
    const file = join(dir, 'good.json');
    writeFileSync(file, JSON.stringify(names.map((name) => createSample(name))));
    const { code, stdout, stderr } = await admin('submit', file);
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const [i, line] of lines.entries()) expect(line).toMatch(new RegExp(`^${i + 1}\\t201\\thttps://lts\\.test/api/v2/samples/\\d+$`));
    expect(stderr).toContain('2 messages: 2 succeeded, 0 failed.');
    for (const name of names) expect(await samplesNamed(name)).toBe(1);
  });

  it('runs an NDJSON file and exits 1 when any message failed, naming its error', async () => {
    const name = uniqueName('cli');
    const file = join(dir, 'mixed.ndjson');
    writeFileSync(file, `${JSON.stringify(createSample(name))}\n${JSON.stringify({ ...createSample('bad name'), path: '/api/v2/nonsense' })}\n`);
    const { code, stdout, stderr } = await admin('submit', file);
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^1\t201\thttps:\/\/lts\.test\/api\/v2\/samples\/\d+$/);
    expect(lines[1]).toBe('2\t404\troute_not_found: No resource is served at /api/v2/nonsense');
    expect(stderr).toContain('2 messages: 1 succeeded, 1 failed.');
    expect(await samplesNamed(name)).toBe(1);
  });

  it("writes its links with the running npm start's address, whatever its port, into the answers and the events", async () => {
    // The endpoint file a running `npm start` on PORT=3100 keeps in its data dir (its pid: this process, which runs).
    const dataDir = mkdtempSync(join(dir, 'data-'));
    writeFileSync(join(dataDir, 'endpoint.json'), JSON.stringify({ dynamodb: store.endpoint, pid: process.pid, url: 'http://localhost:3100' }));
    const name = uniqueName('cli');
    const file = join(dir, 'local.ndjson');
    writeFileSync(file, `${JSON.stringify(createSample(name, `key-${name}`))}\n`);
    const { code, stdout, stderr } = await adminWith({ LTS_DATA_DIR: dataDir, LTS_TABLE_NAME: store.tableName }, 'submit', file);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^1\t201\thttp:\/\/localhost:3100\/api\/v2\/samples\/\d+\n$/);
    const events = (await outboxEvents()).filter((e) => e.type === 'messages.processed' && (e.data as any).idempotency_key === `key-${name}`);
    expect(events.map((e) => (e.data as any).location)).toEqual([stdout.split('\t')[2]!.trim()]);
  });

  it('exits 1 with a one-line error for a file it cannot read', async () => {
    const { code, stderr } = await admin('submit', join(dir, 'missing.json'));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Error: cannot read .*missing\.json/);
  });
});
