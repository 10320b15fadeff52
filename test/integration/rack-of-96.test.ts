import { beforeAll, describe, expect, it } from 'vitest';
import { clearApiKeyCache } from '#lib/store/api-keys.ts';
import { clearReferenceCache } from '#lib/store/reference-records.ts';
import { totalCalls } from '#lib/store/client.ts';
import { externalBarcode } from '#lib/domain/barcode.ts';
import { TRANSACTION_ITEM_LIMIT } from '#lib/domain/budgets.ts';
import { call, doc, idOf } from '../support/api.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { direct } from '../support/engine.ts';
import { purposeId, recordCount, rel, uniqueName, type Tube } from '../support/fixtures.ts';
import { columnOrder } from '../support/oracles.ts';
import { seedTubes } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';

/**
 * A rack of 96 tubes (POST tube_racks): the rack, 96 conditional tube updates, its barcode guard, a count
 * shard and the request record — one TransactWriteItems of the 100 items one transaction may hold. Every tube
 * then points at the rack; a tube is never in two racks, also when two requests race for it.
 */

beforeAll(freshStore);

let rack96: string;

/** Column order on the 96 grid: A1, B1, … H1, A2, … H12. */
const COORDINATES = columnOrder(8, 12);

/**
 * Empty tubes written straight into the table, as the service stores them (test/support/seed.ts): this file
 * is about racks, and hundreds of tubes through the API took most of its time (every creation advances
 * the one labware counter, so they had to go a few at a time).
 */
async function createTubes(n: number, name?: (i: number) => string): Promise<Tube[]> {
  const purpose = Number(await purposeId('tube_purposes', 'Stock Tube'));
  const tubes = await seedTubes(n, purpose, (i) => ({ barcode: externalBarcode(uniqueName('RACKED')), ...(name ? { name: name(i) } : {}) }));
  return tubes.map((t) => ({ id: String(t.id), uuid: t.uuid }));
}

const rackBody = (placements: [string, Tube][], name?: string) =>
  doc(
    'tube_racks',
    { size: 96, ...(name ? { name } : {}), tube_locations: Object.fromEntries(placements.map(([c, t]) => [c, { uuid: t.uuid }])) },
    { purpose: rel('tube_rack_purposes', rack96) },
  );

beforeAll(async () => {
  rack96 = await idOf('tube_rack_purposes', 'name', 'Tube Rack 96');
});

describe('a rack of 96 tubes', () => {
  let tubes: Tube[];
  let rackId: string;
  /** What creating the rack cost (a warm key cache). */
  let rackCalls: number;

  beforeAll(async () => {
    tubes = await createTubes(96);
  });

  it('is created as one write, past one transaction with its audit entries, and every tube then points at the rack', async () => {
    const racksBefore = await recordCount('tube_racks');
    const {
      result: { response, counts },
      transactions,
    } = await observeCalls(() =>
      direct(
        'POST',
        '/api/v2/tube_racks',
        rackBody(
          COORDINATES.map((c, i) => [c, tubes[i]!]),
          'full rack',
        ),
      ),
    );
    expect(response.status, response.body).toBe(201);
    const rack = JSON.parse(response.body!).data;
    rackId = rack.id;
    expect(rack.attributes).toMatchObject({ size: 96, state: 'pending', name: 'full rack' });

    // The rack, 96 tubes, the barcode guard, one count shard and the request record were the 100 items one
    // transaction may hold; an audit entry for the rack and each tube (docs/decisions.md, "Audit trail") makes
    // 197: a write past one transaction (lib/store/large-write.ts).
    expect(transactions.length).toBeGreaterThan(1);
    expect(transactions.every((items) => items <= TRANSACTION_ITEM_LIMIT)).toBe(true);
    // Reads: the 96 tube uuids name their keys, so the tubes are one BatchGetItem (96 keys ≤ 100); the purpose is another.
    expect(counts.BatchGetItem).toBe(2);
    console.info('[measured] a rack of 96 tubes with its audit entries', counts, `transactions ${transactions.join(' ')}`);
    rackCalls = totalCalls(counts);

    expect(await recordCount('tube_racks')).toBe(racksBefore + 1);
    const body = (await call('GET', `/api/v2/tube_racks/${rackId}?include=racked_tubes.tube.tube_rack`)).body;
    const racked = (body.included as any[]).filter((r) => r.type === 'racked_tubes');
    expect(racked).toHaveLength(96);
    const coordinateOfTube = new Map(racked.map((r) => [r.relationships.tube.data.id, r.attributes.coordinate]));
    for (const [i, tube] of tubes.entries()) expect(coordinateOfTube.get(tube.id), tube.id).toBe(COORDINATES[i]);
    for (const r of racked) expect(Number(r.id)).toBe(Number(rackId) * 1000 + COORDINATES.indexOf(r.attributes.coordinate) + 1);
    const includedTubes = (body.included as any[]).filter((r) => r.type === 'tubes');
    expect(includedTubes).toHaveLength(96);
    for (const tube of includedTubes) expect(tube.relationships.tube_rack.data).toEqual({ type: 'tube_racks', id: rackId });

    // Each tube, read on its own, names the rack and its position.
    const positions = await Promise.all(tubes.map((t) => call('GET', `/api/v2/tubes/${t.id}?include=tube_rack,racked_tube`)));
    positions.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.body.data.relationships.tube_rack.data).toEqual({ type: 'tube_racks', id: rackId });
      expect(res.body.data.relationships.racked_tube.data).toEqual({ type: 'racked_tubes', id: String(Number(rackId) * 1000 + i + 1) });
    });
  });

  it('through the HTTP handler costs the same calls plus the key lookup when the key is not cached', async () => {
    const more = await createTubes(96);
    // Cold caches: the key lookup counts (a warm one makes no call for it), and so does the purpose's read (lib/store/reference-records.ts).
    clearApiKeyCache();
    clearReferenceCache();
    const res = await call('POST', '/api/v2/tube_racks', { body: rackBody(COORDINATES.map((c, i) => [c, more[i]!])) });
    expect(res.status).toBe(201);
    // The calls above, and 1 GetItem (API key).
    expect(res.calls).toBe(rackCalls + 1);
  });

  it('a second rack claiming one of those tubes → 422, nothing written', async () => {
    const [fresh] = await createTubes(1);
    const racks = await recordCount('tube_racks');
    const res = await call('POST', '/api/v2/tube_racks', {
      body: rackBody([
        ['A1', fresh!],
        ['B1', tubes[40]!],
      ]),
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_value', source: { pointer: '/data/attributes/tube_locations/B1/uuid' } });
    expect(res.body.errors[0].detail).toContain(`already in tube rack ${rackId}`);
    expect(await recordCount('tube_racks')).toBe(racks);
    expect((await call('GET', `/api/v2/tubes/${fresh!.id}/tube_rack`)).body.data).toBeNull();
    expect((await call('GET', `/api/v2/tubes/${tubes[40]!.id}/tube_rack`)).body.data.id).toBe(rackId);
  });
});

describe('the request record of a rack of 96', () => {
  /**
   * The write's events go into one request item of its transaction (the outbox): for a rack of 96 that is
   * 97 events, each holding the rendered tube. Measured: ~223 KB (JSON) with unnamed tubes, ~370 KB with
   * names of 1,500 characters, past DynamoDB's 400 KB item limit with names of 4,000 characters (valid:
   * strings may have 4,096). A large payload is stored compressed, or in chunk items beside the request
   * item (lib/store/request-payload.ts), so the rack commits; it never costs the transaction an item.
   */
  it('racking 96 tubes with long (valid) names commits', async () => {
    const named = await createTubes(96, (i) => `long-${i}-`.padEnd(4000, 'x'));
    const racks = await recordCount('tube_racks');
    const res = await call('POST', '/api/v2/tube_racks', { body: rackBody(COORDINATES.map((c, i) => [c, named[i]!])) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await recordCount('tube_racks')).toBe(racks + 1);
    expect((await call('GET', `/api/v2/tubes/${named[95]!.id}/tube_rack`)).body.data.id).toBe(res.body.data.id);
  });
});

describe('two racks racing for one tube', () => {
  it('exactly one is created; the other gets 422 (or 409); the tube is in exactly one rack', async () => {
    for (let round = 0; round < 3; round++) {
      const [shared, own1, own2] = await createTubes(3);
      const racks = await recordCount('tube_racks');
      const [first, second] = await Promise.all([
        call('POST', '/api/v2/tube_racks', {
          body: rackBody(
            [
              ['A1', own1!],
              ['H12', shared!],
            ],
            `race-${round}-a`,
          ),
        }),
        call('POST', '/api/v2/tube_racks', {
          body: rackBody(
            [
              ['B2', shared!],
              ['C3', own2!],
            ],
            `race-${round}-b`,
          ),
        }),
      ]);
      const statuses = [first.status, second.status].sort();
      expect(statuses[0], JSON.stringify([first.body, second.body])).toBe(201);
      expect([409, 422]).toContain(statuses[1]);
      const [winner, loser] = first.status === 201 ? [first, second] : [second, first];
      if (loser.status === 422) expect(loser.body.errors[0].detail).toContain(`already in tube rack ${winner.body.data.id}`);

      expect(await recordCount('tube_racks')).toBe(racks + 1);
      const rackOfShared = await call('GET', `/api/v2/tubes/${shared!.id}/tube_rack`);
      expect(rackOfShared.body.data.id).toBe(winner.body.data.id);
      // The winner holds the shared tube; the loser's own tube stayed out of any rack.
      const winnerTubes = (await call('GET', `/api/v2/tube_racks/${winner.body.data.id}/racked_tubes?include=tube`)).body.data.map(
        (r: any) => r.relationships.tube.data?.id ?? null,
      );
      expect(winnerTubes).toHaveLength(2);
      const loserOwn = winner === first ? own2! : own1!;
      expect((await call('GET', `/api/v2/tubes/${loserOwn.id}/tube_rack`)).body.data).toBeNull();
      const filtered = await call('GET', `/api/v2/tube_racks?filter[uuid]=${winner.body.data.attributes.uuid}&include=racked_tubes.tube`);
      const heldTubes = (filtered.body.included as any[]).filter((r) => r.type === 'tubes').map((t) => t.id);
      expect(heldTubes).toContain(shared!.id);
    }
  });
});
