import { describe, expect, it } from 'vitest';
import { countCalls, withDeadline } from '#lib/store/client.ts';
import { DeadlineExceeded } from '#lib/store/errors.ts';
import { type Reservation, reserve } from '#lib/store/sequences.ts';
import { call, warmKeyCache } from '../support/api.ts';
import { storeWithFaults } from '../support/faults.ts';
import { scanTable } from '../support/table.ts';

/**
 * Id sequences under concurrency in one process (lib/store/sequences.ts): one call per sequence at a time,
 * serving every reservation that waited for it. The injector (test/support/faults.ts) records the calls
 * sent and delays one when a test needs a call under way; DynamoDB Local does the rest.
 */
const faults = storeWithFaults();

/** `n` reservations of `count` ids each, all at once, each in a request scope of its own; with each one's calls. */
async function reserveAtOnce(name: string, n: number, count = 1, now = () => new Date().toISOString()) {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const { counts, result } = countCalls(() => reserve(name, count, now()));
      return { reservation: await result, counts };
    }),
  );
}

/** Each reservation's ids, in the order of their first id. */
const idsOf = (reservations: Reservation[], count: number) =>
  [...reservations].sort((a, b) => a.first - b.first).map((r) => Array.from({ length: count }, (_, i) => r.first + i));

describe('reservations of one sequence at once', () => {
  it('50 at once: every id handed out once, no range overlapping another, in fewer calls than reservations and never a second call', async () => {
    faults.resetSeen();
    const reserved = await reserveAtOnce('seq-fifty', 50, 3);
    const ids = idsOf(
      reserved.map((r) => r.reservation),
      3,
    ).flat();
    expect(new Set(ids).size).toBe(150);
    expect(Math.max(...ids) - Math.min(...ids)).toBe(149);
    const sent = faults.seen.filter((op) => op === 'UpdateItem').length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThan(50);
    // Each request counts the one call that served it (its X-DynamoDB-Calls), as when it sent its own.
    for (const { counts } of reserved) expect(counts).toEqual({ UpdateItem: 1 });
  });

  it('a later id never gets an earlier creation time, whatever order the clocks were read in', async () => {
    let tick = 0;
    // Clocks read out of order: each reservation's `now` goes back and forth by milliseconds.
    const reserved = await reserveAtOnce('seq-clocks', 40, 1, () => new Date(Date.UTC(2030, 0, 1) + ((tick++ * 7919) % 40)).toISOString());
    const byId = reserved.map((r) => r.reservation).sort((a, b) => a.first - b.first);
    for (let i = 1; i < byId.length; i++) expect(byId[i]!.createdAt >= byId[i - 1]!.createdAt).toBe(true);
  });

  it("with another process's clock ahead, every waiting reservation takes that time (the second call)", async () => {
    const ahead = '2040-06-01T00:00:00.000Z';
    await reserve('seq-ahead', 1, ahead);
    faults.resetSeen();
    const reserved = await reserveAtOnce('seq-ahead', 10);
    expect(new Set(reserved.map((r) => r.reservation.first)).size).toBe(10);
    for (const { reservation } of reserved) expect(reservation.createdAt).toBe(ahead);
    expect(faults.seen.filter((op) => op === 'UpdateItem').length % 2).toBe(0);
  });

  it('a request whose deadline passes while the call is under way leaves with a 503 error; the others get their ids', async () => {
    faults.arm('UpdateItem', 'Latency', { delayMs: 400, times: 1 });
    const [hasty, patient] = await Promise.allSettled([
      withDeadline(50, () => reserve('seq-deadline', 1, new Date().toISOString())),
      reserve('seq-deadline', 1, new Date().toISOString()),
    ]);
    expect(hasty.status).toBe('rejected');
    expect((hasty as PromiseRejectedResult).reason).toBeInstanceOf(DeadlineExceeded);
    expect(patient.status).toBe('fulfilled');
    // The next reservation goes on from where the delayed call left the sequence.
    const next = await reserve('seq-deadline', 1, new Date().toISOString());
    expect(next.first).toBeGreaterThan((patient as PromiseFulfilledResult<Reservation>).value.first);
  });

  it('a failed call fails every reservation it was serving, and the next call serves the next ones', async () => {
    faults.arm('UpdateItem', 'ThrottlingException', { times: 1 });
    const first = await Promise.allSettled([reserve('seq-fail', 1, new Date().toISOString()), reserve('seq-fail', 1, new Date().toISOString())]);
    expect(first[0].status).toBe('rejected');
    const after = await reserveAtOnce('seq-fail', 5);
    expect(new Set(after.map((r) => r.reservation.first)).size).toBe(5);
  });
});

describe('concurrent creates over the API', () => {
  it('50 samples at once: 50 × 201, at most the three calls of one create each, creation times in id order', async () => {
    await warmKeyCache();
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call('POST', '/api/v2/samples', { body: { data: { type: 'samples', attributes: { name: `sequence-50-${i}` } } } })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(50).fill(201));
    // A sample's two ids (sample, metadata) and its transaction (the key looked up before): no reservation takes a second call.
    for (const r of created) expect(r.calls).toBeLessThanOrEqual(3);
    // As stored (samples do not render created_at): `sort=created_at` is served in id order, so it must agree.
    const ids = new Set(created.map((r) => Number(r.body.data.id)));
    const stored = (await scanTable('record')).filter((item) => item.family === 'samples' && ids.has(item.id)).sort((a, b) => a.id - b.id);
    expect(stored).toHaveLength(50);
    for (let i = 1; i < stored.length; i++) expect(stored[i]!.createdAt >= stored[i - 1]!.createdAt, `${stored[i]!.id} after ${stored[i - 1]!.id}`).toBe(true);
  });
});
