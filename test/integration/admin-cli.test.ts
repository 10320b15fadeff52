import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { config } from '#lib/config.ts';
import { call, doc } from '../support/api.ts';
import { freshStore } from '../support/store.ts';
import { tableSnapshot } from '../support/table.ts';

/**
 * The admin command line answers bad files and arguments with one clear line each (never a stack trace),
 * refuses guessable keys, checks the references of reference data, and resets local data. Only the
 * reference check needs a store: the fresh table of this worker's DynamoDB Local, named to the command.
 */

const dir = mkdtempSync(join(tmpdir(), 'lts-admin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function admin(...args: string[]) {
  return adminWith({}, ...args);
}

function adminWith(extraEnv: Record<string, string>, ...args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LTS_')));
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'lib/admin/cli.ts', ...args], {
    env: { ...env, ...extraEnv, LTS_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

const oneLine = (text: string) => text.trim().split('\n');

it('a missing or malformed reference data file: one line, exit 1', () => {
  const missing = admin('load', join(dir, 'nope.json'));
  expect(missing.code).toBe(1);
  expect(oneLine(missing.err)).toEqual([`Error: cannot read ${join(dir, 'nope.json')}: no such file`]);
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{"users": [');
  const malformed = admin('load', bad);
  expect(malformed.code).toBe(1);
  expect(oneLine(malformed.err)).toHaveLength(1);
  expect(malformed.err).toMatch(/^Error: .*bad\.json is not valid JSON: /);
});

it('reference data naming records that do not exist: one line naming the record, field and value, nothing written', async () => {
  const { endpoint, tableName } = await freshStore();
  const before = await tableSnapshot();
  const file = join(dir, 'lab.json');
  writeFileSync(
    file,
    JSON.stringify({
      studies: [{ name: 'Written only if all is well' }],
      submission_templates: [{ name: 'Odd pooling', request_type_keys: ['library_creation', 'no_such_request'] }],
    }),
  );
  const run = adminWith({ LTS_DYNAMODB_ENDPOINT: endpoint, LTS_TABLE_NAME: tableName }, 'load', file);
  expect(run.code, run.err).toBe(1);
  expect(oneLine(run.err)).toEqual([
    'Error: invalid reference data: submission_templates[0].request_type_keys: names "no_such_request", which is no request_types record (stored, or earlier in this document)',
  ]);
  expect(await tableSnapshot()).toEqual(before);
});

it('an unknown option is a usage error, not a stack trace', () => {
  const run = admin('keys', 'list', '--colour', 'red');
  expect(run.code).toBe(2);
  expect(run.err).toMatch(/^Error: Unknown option '--colour'/);
  expect(run.err).toContain('Usage: npm run admin');
  expect(run.err).not.toMatch(/\n\s+at /);
});

it('refuses a key shorter than 16 characters', () => {
  const run = admin('keys', 'create', '--name', 'lab', '--scope', 'write', '--key', 'short-key');
  expect(run.code).toBe(1);
  expect(oneLine(run.err)).toEqual(['Error: --key must have at least 16 characters (a short key is easily guessed); leave it out to get a random one']);
});

it('creates an admin key, with which Limber registers its purposes; an unknown scope is a usage error', async () => {
  const store = { LTS_DYNAMODB_ENDPOINT: (await freshStore()).endpoint, LTS_TABLE_NAME: config().LTS_TABLE_NAME };
  const key = 'cli-admin-key-0123456789';
  const run = adminWith(store, 'keys', 'create', '--name', 'limber-config', '--scope', 'admin', '--key', key);
  expect(run.code, run.err).toBe(0);
  const res = await call('POST', '/api/v2/tube_purposes', { body: doc('tube_purposes', { name: 'Registered by CLI key', target_type: 'SampleTube' }), key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const unknown = adminWith(store, 'keys', 'create', '--name', 'root', '--scope', 'root');
  expect(unknown.code).toBe(2);
  expect(unknown.err).toMatch(/^Error: keys create needs --scope read, --scope write, --scope admin/);
});

it('reset deletes the local data dir', () => {
  mkdirSync(join(dir, 'data', 'dynamodb'), { recursive: true });
  writeFileSync(join(dir, 'data', 'dev-api-key'), 'k');
  const run = admin('reset');
  expect(run.code, run.err).toBe(0);
  expect(run.out).toContain('Deleted');
  expect(existsSync(join(dir, 'data'))).toBe(false);
});
