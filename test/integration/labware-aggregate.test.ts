import { beforeAll, describe, expect, it } from 'vitest';
import type { Labware } from '#lib/domain/labware.ts';
import { getRecords, type StoredRecord } from '#lib/store/records.ts';
import { call } from '../support/api.ts';
import { createPlate, createTube } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';
import { changeState, workPlate, workTube } from '../support/work.ts';

/**
 * The labware aggregate as stored (lib/domain/labware.ts): every receptacle a value of its own, stored
 * with its labware, and rendered from there.
 */

beforeAll(freshStore);

async function loadLabware(id: string): Promise<StoredRecord> {
  const record = (await getRecords([{ family: 'labware', id: Number(id) }])).get(`labware:${id}`);
  expect(record).toBeDefined();
  return record!;
}

describe('receptacle state', () => {
  it("a well renders its own state, not its plate's or its neighbours'", async () => {
    const { plate } = await workPlate(3);
    await changeState(plate, 'passed', { contents: ['B1'] });
    const res = await call('GET', `/api/v2/plates/${plate.id}?include=wells`);
    // Wells pending and passed: the plate is pending (reference §7.2, the first present of started, qc_complete, pending).
    expect(res.body.data.attributes.state).toBe('pending');
    const states = new Map((res.body.included as any[]).map((w) => [w.attributes.position.name, w.attributes.state]));
    expect([states.get('A1'), states.get('B1'), states.get('C1')]).toEqual(['pending', 'passed', 'pending']);
    expect((await call('GET', `/api/v2/wells/${Number(plate.id) * 1000 + 2}`)).body.data.attributes.state).toBe('passed');
  });

  it("a tube's receptacle renders its own state, and the tube the state of the transfer requests into it", async () => {
    const { tube } = await workTube('Stock Tube');
    await changeState(tube, 'started');
    expect((await call('GET', `/api/v2/receptacles/${Number(tube.id) * 1000 + 1}`)).body.data.attributes.state).toBe('started');
    expect((await call('GET', `/api/v2/tubes/${tube.id}`)).body.data.attributes.state).toBe('started');
  });

  it('new labware stores one empty, pending receptacle per well (or one for a tube)', async () => {
    const plate = await loadLabware((await createPlate()).id);
    const tube = await loadLabware((await createTube()).id);
    expect((plate.attrs as unknown as Labware).receptacles).toEqual(Array.from({ length: 96 }, () => ({ state: 'pending', aliquots: [] })));
    expect((tube.attrs as unknown as Labware).receptacles).toEqual([{ state: 'pending', aliquots: [] }]);
  });
});
