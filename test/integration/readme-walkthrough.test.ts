import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LocalService } from '#lib/local/service.ts';
import { WAIT_MS } from '../support/limits.ts';
import { freshHttpService, WRITE_KEY } from '../support/store.ts';
import { expectVersionOrder, readFeed } from '../support/feed.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * The README's lab day works as written: every block fenced as `sh lab-day` is run, in order and in one
 * bash with `set -euo pipefail`, against the whole service over HTTP on a fresh table. The commands are
 * pointed at it by the variables the README itself reads (`LTS_URL`, `LTS_KEY`), from an empty directory
 * (no `.lts/`); `--norc`: bash reads its rc file when stdin is a socket, as node's pipes are. Then the end state is read back: one MX tube pooling both samples, each with its tag;
 * and the day's events, as the local feed wrote them to its file.
 */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const blocks = [...README.matchAll(/^```sh lab-day\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
const done = (step: number) => `== lab-day step ${step} done`;

let service: LocalService;
const dir = mkdtempSync(join(tmpdir(), 'lts-readme-'));
const eventsFile = join(dir, 'events.ndjson');
beforeAll(async () => {
  service = await freshHttpService({ events: { eventsFile, pollMs: 50 } });
});
afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('runs every lab-day block of the README, and the pool tube holds both samples with their tags', async () => {
  // The lab day, the id look-ups and the qcable states: if the marking is lost, nothing would run.
  expect(blocks.length).toBeGreaterThanOrEqual(10);
  const script = [...blocks.map((block, i) => `${block}echo '${done(i + 1)}'\n`), `echo "TUBE=$TUBE"; echo "DAY=$DAY"; echo "LIB=$LIB"\n`].join('');
  const env = { PATH: process.env.PATH!, HOME: dir, LTS_URL: service.url, LTS_KEY: WRITE_KEY };
  const run = await promisify(execFile)('bash', ['--norc', '-euo', 'pipefail', '-c', script], { cwd: dir, env, timeout: WAIT_MS }).catch(
    (error: { stdout: string; stderr: string; code: number }) => error,
  );
  const steps = blocks.map((_, i) => run.stdout.includes(done(i + 1)));
  expect(steps, `stopped after step ${steps.lastIndexOf(true) + 1}: ${run.stderr}`).toEqual(blocks.map(() => true));
  expect(run.stderr).toBe('');

  const value = (name: string) => run.stdout.match(new RegExp(`^${name}=(.+)$`, 'm'))?.[1];
  const response = await fetch(`${service.url}/api/v2/tubes?filter[uuid]=${value('TUBE')}&include=receptacles.aliquots.sample`, {
    headers: { 'X-Sequencescape-Client-Id': WRITE_KEY },
  });
  const document = (await response.json()) as { data: unknown[]; included: { type: string; id: string; attributes: any; relationships: any }[] };
  expect(document.data).toHaveLength(1);
  const sampleName = (id: string) => document.included.find((r) => r.type === 'samples' && r.id === id)?.attributes.name;
  const pooled = document.included
    .filter((r) => r.type === 'aliquots')
    .map((a) => [sampleName(a.relationships.sample.data.id), a.attributes.tag_oligo])
    .sort();
  const day = value('DAY');
  // Test i7 column: A1 gets the group's tag 1, B1 its tag 2.
  expect(pooled).toEqual([
    [`day-${day}-1`, 'AGAGTGTA'],
    [`day-${day}-2`, 'AAACTCGT'],
  ]);

  // The library plate passed, its B1 failed, the work completed: each well's state and its library request's.
  const plate = await fetch(`${service.url}/api/v2/plates/${value('LIB')}?include=wells.aliquots.request`, {
    headers: { 'X-Sequencescape-Client-Id': WRITE_KEY },
  });
  const work = (await plate.json()) as typeof document & { data: { attributes: { state: string } } };
  const find = (type: string, id: string) => work.included.find((r) => r.type === type && r.id === id)!;
  const wells = work.included
    .filter((r) => r.type === 'wells' && r.relationships.aliquots.data.length > 0)
    .map((w) => [
      w.attributes.position.name,
      w.attributes.state,
      find('requests', find('aliquots', w.relationships.aliquots.data[0].id).relationships.request.data.id).attributes.state,
    ]);
  expect(wells).toEqual([
    ['A1', 'passed', 'passed'],
    ['B1', 'failed', 'failed'],
  ]);
  expect(work.data.attributes.state).toBe('passed');

  // The day's events, as the feed wrote them: every event of the outbox once, each resource's in version
  // order, the samples' creation and the pool tube's, and nothing set aside.
  await service.events!.followers.get('file')!.caughtUp();
  const events = readFeed(eventsFile);
  expect(events.map((e) => e.id).sort()).toEqual((await outboxEvents()).map((e) => e.id).sort());
  expectVersionOrder(events);
  const created = events.filter((e) => e.type === 'samples.created').map((e) => (e.data as any).attributes.name);
  expect(created).toEqual(expect.arrayContaining([`day-${day}-1`, `day-${day}-2`]));
  expect(events.some((e) => e.resource.type === 'tubes' && e.resource.uuid === value('TUBE'))).toBe(true);
  const types = new Set(events.map((e) => e.type));
  for (const type of [
    'orders.created',
    'submissions.created',
    'requests.created',
    'plate_creations.created',
    'transfer_request_collections.created',
    'specific_tube_creations.created',
    'tag_layouts.created',
    'qc_assays.created',
    'qcables.created',
    'state_changes.created',
    'plates.state_changed',
    'requests.state_changed',
    'work_completions.created',
  ]) {
    expect(types, type).toContain(type);
  }
  expect(service.events!.health().sinks).toEqual({ file: { dead_letters: 0 } });
});
