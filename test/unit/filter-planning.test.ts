import { describe, expect, it } from 'vitest';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import { JsonApiError } from '#lib/jsonapi/errors.ts';
import { MAX_FILTER_VALUES, planFilter } from '#lib/jsonapi/filters.ts';
import { registry } from '#lib/resources/index.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/**
 * Planning the filters Limber's searches send (lib/resources/labware-filters.ts): filters that test records
 * plan no index range, say when their values keep every record, and refuse values that mean nothing
 * before anything is read. Every type has `filter[id]` (lib/jsonapi/registry.ts).
 */

const ctx = { registry } as RequestContext;
const plates = registry.require('plates');
const plan = (name: string, values: string[]) => planFilter(ctx, plates, name, values);

const refused = async (name: string, values: string[]) => {
  const error = await plan(name, values).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `${name}=${values}`).toBeInstanceOf(JsonApiError);
  return (error as JsonApiError).errors[0]!;
};

const record = (times: Partial<StoredRecord>): StoredRecord => ({
  family: 'labware',
  id: 1,
  type: 'plates',
  uuid: '',
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  version: 1,
  attrs: {},
  rels: {},
  ...times,
});

describe('filters that test records', () => {
  it('plan no range; include_used=true and without_children=false keep every record', async () => {
    for (const [name, values, keepsAll] of [
      ['state', ['pending', 'passed'], false],
      ['include_used', ['true'], true],
      ['include_used', ['false'], false],
      ['without_children', ['true'], false],
      ['without_children', ['FALSE'], true],
      ['updated_at_gt', ['2026-10-27'], false],
      ['created_at_gt', ['2026-10-27T15:30:00Z'], false],
      ['user_uuid', ['8e6f0f52-0c5a-4b7e-9d2f-3c1b5a7e0000'], false],
    ] as const) {
      const planned = await plan(name, [...values]);
      expect(planned, `${name}=${values}`).toMatchObject({ post: true, selective: false, ranges: [], keepsAll });
    }
  });

  it('refuse what is not a flag, a date, a time or a uuid, naming the filter and the value', async () => {
    for (const [name, value] of [
      ['include_used', 'maybe'],
      ['without_children', '1'],
      ['updated_at_gt', 'yesterday'],
      ['updated_at_gt', '2026-02-30'],
      ['created_at_gt', '27/10/2026'],
      ['created_at_gt', '2026-10-27T15:00:00 garbage'],
      ['updated_at_gt', '2026-10-27T25:00:00Z'],
      ['user_uuid', 'admin'],
    ] as const) {
      const error = await refused(name, [value]);
      expect(error.status).toBe('400');
      expect(error.source).toEqual({ parameter: `filter[${name}]` });
      expect(error.detail).toContain(value);
    }
    expect((await refused('updated_at_gt', ['2026-10-01', '2026-10-02'])).detail).toContain('one value');
  });

  it('keep what is strictly later than the instant named; a date alone names the start (UTC) of its day', async () => {
    const filter = plates.filters.updated_at_gt!;
    if (!('test' in filter)) throw new Error('updated_at_gt tests records');
    const records = ['2026-10-27T17:59:59.999Z', '2026-10-27T18:00:00.000Z', '2026-10-27T18:00:00.001Z'].map((updatedAt) => record({ updatedAt }));
    expect(await filter.test(ctx, records, ['2026-10-27T18:00:00Z'])).toEqual([false, false, true]);
    expect(await filter.test(ctx, records, ['2026-10-27 19:00:00 +0100'])).toEqual([false, false, true]);
    expect(await filter.test(ctx, records, ['2026-10-27T18:00'])).toEqual([false, false, true]);
    expect(filter.updatedAfter!(['2026-10-27T18:00:00.000Z'])).toBe('2026-10-27T18:00:00.000Z');
    const days = ['2026-10-26T23:59:59.999Z', '2026-10-27T00:00:00.000Z', '2026-10-27T00:00:00.001Z'].map((updatedAt) => record({ updatedAt }));
    expect(await filter.test(ctx, days, ['2026-10-27'])).toEqual([false, false, true]);
    expect(filter.updatedAfter!(['2026-10-27'])).toBe('2026-10-27T00:00:00.000Z');
    const created = plates.filters.created_at_gt!;
    if (!('test' in created)) throw new Error('created_at_gt tests records');
    expect(await created.test(ctx, [record({})], ['2026-11-01T10:00:00.000Z'])).toEqual([false]);
    expect(await created.test(ctx, [record({})], ['2026-11-01T09:59:59.999Z'])).toEqual([true]);
  });
});

describe('filter[id]', () => {
  it('is a filter of every type', () => {
    for (const type of registry.types) expect(registry.require(type).filters, type).toHaveProperty('id');
  });

  it('refuses what is not a positive integer, and more values than a request may name', async () => {
    const error = await refused('id', ['12x']);
    expect(error.source).toEqual({ parameter: 'filter[id]' });
    expect(error.detail).toContain('12x');
    const many = Array.from({ length: MAX_FILTER_VALUES + 1 }, (_, i) => String(i + 1));
    expect((await refused('id', many)).detail).toContain(String(MAX_FILTER_VALUES));
  });
});
