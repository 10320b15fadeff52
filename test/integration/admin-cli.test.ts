import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { config } from '#lib/config.ts';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable, localClient } from '#lib/local/dynamodb.ts';
import { defaultReferenceData } from '#lib/local/service.ts';
import { call, doc } from '../support/api.ts';
import { freshStore, workerEndpoint } from '../support/store.ts';
import { tableSnapshot } from '../support/table.ts';

/**
 * The admin command line answers bad files and arguments with one clear line each (never a stack trace),
 * refuses guessable keys, checks the references of reference data, loads the default set a second time
 * without a change, and resets local data; `--help` is an answer (stdout, exit 0), not an error. The tests
 * that need a store use a table of this worker's DynamoDB Local, named to the command.
 */

const dir = mkdtempSync(join(tmpdir(), 'lts-admin-'));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const cleanup of cleanups) await cleanup();
});

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

it('--help prints the usage on stdout and exits 0; no command at all is a usage error', () => {
  for (const args of [['--help'], ['-h'], ['keys', '--help'], ['help']]) {
    const run = admin(...args);
    expect([run.code, run.err], args.join(' ')).toEqual([0, '']);
    expect(run.out).toMatch(/^Usage: npm run admin -- <command>/);
  }
  const bare = admin();
  expect(bare.code).toBe(2);
  expect(bare.out).toBe('');
  expect(bare.err).toMatch(/^Usage: npm run admin -- <command>/);
});

it('revoking a key it does not have: one line naming it, exit 1', async () => {
  const store = { LTS_DYNAMODB_ENDPOINT: (await freshStore()).endpoint, LTS_TABLE_NAME: config().LTS_TABLE_NAME };
  const run = adminWith(store, 'keys', 'revoke', '--name', 'no-such-key');
  expect(run.code).toBe(1);
  expect(oneLine(run.err)).toEqual(['Error: no API key named "no-such-key" (npm run admin -- keys list names them)']);
  // A key it has is revoked as before.
  const made = adminWith(store, 'keys', 'create', '--name', 'to-revoke', '--scope', 'read');
  expect(made.code, made.err).toBe(0);
  expect(adminWith(store, 'keys', 'revoke', '--name', 'to-revoke')).toEqual({ code: 0, out: 'Revoked key "to-revoke".\n', err: '' });
});

it('load-defaults into an empty table creates the default set; the second time it changes nothing', async () => {
  const endpoint = workerEndpoint();
  const tableName = `admin-${randomUUID()}`;
  await ensureTable(endpoint, tableName, { stream: false });
  cleanups.push(async () => {
    const client = localClient(endpoint);
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    client.destroy();
  });
  const records = Object.values(defaultReferenceData() as Record<string, unknown[]>).reduce((sum, list) => sum + list.length, 0);
  const store = { LTS_DYNAMODB_ENDPOINT: endpoint, LTS_TABLE_NAME: tableName };
  const first = adminWith(store, 'load-defaults');
  expect(first.code, first.err).toBe(0);
  expect(first.out).toBe(`Reference data: ${records} created, 0 updated, 0 unchanged.\n`);
  const second = adminWith(store, 'load-defaults');
  expect(second.out).toBe(`Reference data: 0 created, 0 updated, ${records} unchanged.\n`);
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
