import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/api.ts';
import { freshStore, READ_KEY } from '../support/store.ts';
import { tableSnapshot } from '../support/table.ts';
import { routeWrites, writeOf, WRITES, type Write } from '../support/writes.ts';

/**
 * The protocol's refusals on every write the API serves (test/support/writes.ts, checked against the route
 * table, so a new write is covered the day it is routed): no key 401, a key that may not write 403, a body
 * not sent as JSON:API 415, an Accept the API cannot answer 406, a document naming another type 409, a
 * method the route does not serve 405. Each is a JSON:API error pointing at what was wrong, and none writes
 * anything (id sequences aside, contract §1.3).
 */

beforeAll(freshStore);

it('covers every POST, PATCH and action of the route table', () => {
  expect([...new Set(Object.keys(WRITES).map(writeOf))].sort()).toEqual(routeWrites().sort());
});

/** The write's document with its primary data's `type` changed (a single resource object only: bulk bodies have none to change). */
function otherType(write: Write): unknown | undefined {
  const data = (write.body as { data?: unknown }).data;
  if (!data || typeof data !== 'object' || Array.isArray(data) || !('type' in data)) return undefined;
  return { ...(write.body as object), data: { ...data, type: 'samples' === (data as { type: string }).type ? 'studies' : 'samples' } };
}

describe('every write refuses what the protocol refuses, writing nothing', () => {
  for (const [key, write] of Object.entries(WRITES)) {
    it(key, { timeout: 120_000 }, async () => {
      const w = await write.make();
      const before = await tableSnapshot();
      const send = (options: { key?: string | null; headers?: Record<string, string>; body?: unknown; method?: string }) =>
        call(options.method ?? w.method, w.path, {
          body: options.body ?? w.body,
          key: options.key === undefined ? (w.key ?? undefined) : options.key,
          ...(options.headers ? { headers: options.headers } : {}),
        });
      const other = otherType(w);
      const cases: [string, Promise<{ status: number; body: any }>, number][] = [
        ['no key', send({ key: null }), 401],
        ['a read key', send({ key: READ_KEY }), 403],
        ['a body not sent as JSON:API', send({ headers: { 'content-type': 'text/plain' } }), 415],
        ['an Accept the API cannot answer', send({ headers: { accept: 'text/html' } }), 406],
        ['a method the route does not serve', send({ method: 'DELETE' }), 405],
        ...(other ? [['a document of another type', send({ body: other }), 409] as [string, Promise<{ status: number; body: any }>, number]] : []),
      ];
      const answers = await Promise.all(cases.map(async ([what, res]) => [what, (await res).status, (await res).body?.errors?.[0]?.status]));
      expect(answers).toEqual(cases.map(([what, , status]) => [what, status, String(status)]));
      expect(await tableSnapshot()).toEqual(before);
    });
  }
});
