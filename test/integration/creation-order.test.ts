import { beforeAll, expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { call } from '../support/api.ts';
import { freshStore } from '../support/store.ts';

beforeAll(freshStore);

// A request whose clock reads earlier than a commit that got an id before it (a slow or skewed writer)
// must still not give its later id an earlier creation time: `sort=created_at` is served in id order.
it('never gives a later id an earlier creation time within a family', async () => {
  const late = new UnitOfWork(registry, '2031-01-01T00:00:00.000Z');
  const first = await late.create('studies', { attrs: { name: 'Clock ahead' }, rels: {} });
  await late.commit();

  const early = new UnitOfWork(registry, '2021-01-01T00:00:00.000Z');
  const second = await early.create('studies', { attrs: { name: 'Clock behind' }, rels: {} });
  await early.commit();

  expect(second.id).toBeGreaterThan(first.id);
  expect(second.createdAt).toBe(first.createdAt);
  const sorted = await call('GET', '/api/v2/studies?sort=-created_at&page[size]=2');
  expect(sorted.body.data.map((s: { id: string }) => s.id)).toEqual([String(second.id), String(first.id)]);
});
