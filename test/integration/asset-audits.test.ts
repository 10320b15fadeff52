import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import { call, doc, type CallResult } from '../support/api.ts';
import { createPlate, createRack, createTube, inBatches, rel } from '../support/fixtures.ts';
import { expectError, idsOf, statuses } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * asset_audits and volume_updates (contract §7.5; the reference's AssetAuditResource and
 * VolumeUpdateResource): their POSTs as the reference accepts them, every bad input refused at its field
 * with nothing written, their events naming the labware, their DynamoDB calls, and 50 at once on distinct
 * labware and on one.
 */

beforeAll(freshStore);

const AUDITS = '/api/v2/asset_audits';
const UPDATES = '/api/v2/volume_updates';

const audit = (attributes: Record<string, unknown>) => doc('asset_audits', attributes);
const volumeUpdate = (attributes: Record<string, unknown>) => doc('volume_updates', attributes);
const auditOf = (uuid: string, extra: Record<string, unknown> = {}) =>
  audit({ key: 'slf_receive_plates', message: 'Process performed', created_by: 'admin', asset_uuid: uuid, witnessed_by: null, metadata: null, ...extra });

/** The current volume of each receptacle of a labware, in slot order. */
async function volumesOf(type: 'plates' | 'tubes', id: string): Promise<(number | null)[]> {
  const res = await call('GET', `/api/v2/${type}/${id}/receptacles?page[size]=400&fields[wells]=current_volume&fields[receptacles]=current_volume`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((r: any) => r.attributes.current_volume);
}

const created = (res: CallResult) => {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
};

describe('POST /asset_audits', () => {
  it('records an audit of a plate as asset_audits sends it, renders what it was given, and links the plate', async () => {
    const plate = await createPlate();
    const metadata = { scanned: { bed1: { plate: plate.attributes.labware_barcode.machine_barcode } } };
    const res = await call('POST', AUDITS, { body: auditOf(plate.attributes.uuid, { witnessed_by: 'tech1', metadata }) });
    const data = created(res);
    expect(data.attributes).toMatchObject({
      key: 'slf_receive_plates',
      message: 'Process performed',
      created_by: 'admin',
      witnessed_by: 'tech1',
      asset_uuid: plate.attributes.uuid,
      metadata,
    });
    expect(data.relationships.asset.data).toEqual({ type: 'plates', id: plate.id });
    // One read of the labware by uuid, the id and the write (record, its asset index entry, the request item).
    expect(res.calls).toBeLessThanOrEqual(4);
    const read = await call('GET', `${AUDITS}/${data.id}?include=asset`);
    expect(read.body.data).toEqual(data);
    expect(read.body.included.map((r: any) => `${r.type}/${r.id}`)).toEqual([`plates/${plate.id}`]);
  });

  it('takes the labware by the asset relationship too, and any labware: a tube, a rack', async () => {
    for (const labware of [await createTube(), await createRack()]) {
      const data = created(await call('POST', AUDITS, { body: doc('asset_audits', { key: 'k' }, { asset: rel(labware.type, labware.id) }) }));
      expect(data.attributes).toMatchObject({
        key: 'k',
        asset_uuid: labware.attributes.uuid,
        message: null,
        created_by: null,
        witnessed_by: null,
        metadata: null,
      });
      expect(data.relationships.asset.data).toEqual({ type: labware.type, id: labware.id });
    }
  });

  it('lists the audits of a labware by filter[asset_uuid] and filter[asset_id], oldest first', async () => {
    const [plate, other] = [await createPlate(), await createPlate()];
    const ids = [];
    for (const key of ['first', 'second']) ids.push(created(await call('POST', AUDITS, { body: auditOf(plate.attributes.uuid, { key }) })).id);
    created(await call('POST', AUDITS, { body: auditOf(other.attributes.uuid) }));
    expect(idsOf(await call('GET', `${AUDITS}?filter[asset_uuid]=${plate.attributes.uuid}`))).toEqual(ids);
    expect(idsOf(await call('GET', `${AUDITS}?filter[asset_id]=${plate.id}`))).toEqual(ids);
    expect(idsOf(await call('GET', `${AUDITS}?filter[asset_uuid]=00000000-0000-4000-8000-000000000000`))).toEqual([]);
  });

  it('writes an asset_audits.created event that names its labware', async () => {
    const plate = await createPlate();
    const data = created(await call('POST', AUDITS, { body: auditOf(plate.attributes.uuid) }));
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'asset_audits' && e.resource.id === data.id);
    expect(events.map((e) => e.type)).toEqual(['asset_audits.created']);
    expect(events[0]!.data.relationships.asset.data).toEqual({ type: 'plates', id: plate.id });
    expect(events[0]!.data.attributes.asset_uuid).toBe(plate.attributes.uuid);
  });

  it('refuses each bad value at its field (422), writing nothing', async () => {
    const { uuid } = (await createPlate()).attributes;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ key: undefined }, 'required', '/data/attributes/key'],
      [{ key: null }, 'required', '/data/attributes/key'],
      [{ key: 12 }, 'invalid_type', '/data/attributes/key'],
      [{ key: 'not a key!' }, 'invalid_value', '/data/attributes/key'],
      [{ key: '' }, 'invalid_value', '/data/attributes/key'],
      [{ message: 5 }, 'invalid_type', '/data/attributes/message'],
      [{ created_by: ['admin'] }, 'invalid_type', '/data/attributes/created_by'],
      [{ witnessed_by: true }, 'invalid_type', '/data/attributes/witnessed_by'],
      [{ metadata: 'scanned' }, 'invalid_type', '/data/attributes/metadata'],
      [{ metadata: [1] }, 'invalid_type', '/data/attributes/metadata'],
      [{ asset_uuid: undefined }, 'required', '/data/attributes/asset_uuid'],
      [{ asset_uuid: null }, 'required', '/data/attributes/asset_uuid'],
      [{ asset_uuid: 7 }, 'invalid_type', '/data/attributes/asset_uuid'],
    ];
    for (const [change, code, pointer] of cases) {
      const error = expectError(await refused('POST', AUDITS, auditOf(uuid, change)), 422, code, pointer);
      expect(error.detail).toContain(pointer.split('/').pop());
    }
  });

  it('answers 404 at asset_uuid for a uuid that names no labware, writing nothing', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const error = expectError(await refused('POST', AUDITS, auditOf(unknown)), 404, 'record_not_found', '/data/attributes/asset_uuid');
    expect(error.detail).toContain(unknown);
    // A sample is no labware.
    const sample = await call('GET', '/api/v2/users?filter[login]=admin');
    expectError(await refused('POST', AUDITS, auditOf(sample.body.data[0].attributes.uuid)), 404, 'record_not_found', '/data/attributes/asset_uuid');
  });

  it('is never changed: PATCH is 405', async () => {
    const data = created(await call('POST', AUDITS, { body: auditOf((await createPlate()).attributes.uuid) }));
    const res = await call('PATCH', `${AUDITS}/${data.id}`, { body: doc('asset_audits', { message: 'other' }, undefined, data.id) });
    expect(res.status).toBe(405);
  });
});

describe('POST /volume_updates', () => {
  it('changes the volume of every well of a plate, never below zero, and records the change', async () => {
    const plate = await createPlate();
    const before = await volumesOf('plates', plate.id);
    expect(before.every((v) => v === null)).toBe(true);
    const res = await call('POST', UPDATES, { body: volumeUpdate({ created_by: 'admin', target_uuid: plate.attributes.uuid, volume_change: 12.5 }) });
    const data = created(res);
    expect(data.attributes).toMatchObject({ created_by: 'admin', target_uuid: plate.attributes.uuid, volume_change: 12.5 });
    expect(data.relationships.target.data).toEqual({ type: 'plates', id: plate.id });
    // The plate read with the write's references, the id, and one transaction (plate, record, request item).
    expect(res.calls).toBeLessThanOrEqual(4);
    expect(new Set(await volumesOf('plates', plate.id))).toEqual(new Set([12.5]));
    created(await call('POST', UPDATES, { body: volumeUpdate({ created_by: 'admin', target_uuid: plate.attributes.uuid, volume_change: '-2.345' }) }));
    expect(new Set(await volumesOf('plates', plate.id))).toEqual(new Set([12.5 - 2.345]));
    created(await call('POST', UPDATES, { body: volumeUpdate({ created_by: 'admin', target_uuid: plate.attributes.uuid, volume_change: -100 }) }));
    expect(new Set(await volumesOf('plates', plate.id))).toEqual(new Set([0]));
    expect((await call('GET', `${UPDATES}/${data.id}?include=target`)).body.included[0]).toMatchObject({ type: 'plates', id: plate.id });
  });

  it("changes a tube's receptacle, named by the target relationship too", async () => {
    const tube = await createTube();
    created(await call('POST', UPDATES, { body: doc('volume_updates', { created_by: 'admin', volume_change: 3 }, { target: rel('tubes', tube.id) }) }));
    expect(await volumesOf('tubes', tube.id)).toEqual([3]);
  });

  it('writes the volume update and the changed labware as events, each naming the labware', async () => {
    const plate = await createPlate();
    const data = created(await call('POST', UPDATES, { body: volumeUpdate({ created_by: 'admin', target_uuid: plate.attributes.uuid, volume_change: 1 }) }));
    const events = await outboxEvents();
    const own = events.find((e) => e.type === 'volume_updates.created' && e.resource.id === data.id)!;
    expect(own.data.relationships.target.data).toEqual({ type: 'plates', id: plate.id });
    const plateEvents = events.filter((e) => e.resource.type === 'plates' && e.resource.id === plate.id).map((e) => e.type);
    expect(plateEvents.sort()).toEqual(['plates.created', 'plates.updated']);
  });

  it('refuses each bad value at its field (422), writing nothing', async () => {
    const plate = await createPlate();
    const valid = { created_by: 'admin', target_uuid: plate.attributes.uuid, volume_change: 1 };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ created_by: undefined }, 'required', '/data/attributes/created_by'],
      [{ created_by: ' ' }, 'invalid_value', '/data/attributes/created_by'],
      [{ created_by: 3 }, 'invalid_type', '/data/attributes/created_by'],
      [{ volume_change: undefined }, 'required', '/data/attributes/volume_change'],
      [{ volume_change: null }, 'required', '/data/attributes/volume_change'],
      [{ volume_change: 'a lot' }, 'invalid_value', '/data/attributes/volume_change'],
      // Neither a number nor a decimal string: a 422 at the field (zod reports no one type for a union).
      [{ volume_change: true }, 'invalid_value', '/data/attributes/volume_change'],
      [{ target_uuid: undefined }, 'required', '/data/attributes/target_uuid'],
      [{ target_uuid: {} }, 'invalid_type', '/data/attributes/target_uuid'],
    ];
    for (const [change, code, pointer] of cases) {
      expectError(await refused('POST', UPDATES, volumeUpdate({ ...valid, ...change })), 422, code, pointer);
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    const missing = expectError(
      await refused('POST', UPDATES, volumeUpdate({ ...valid, target_uuid: unknown })),
      404,
      'record_not_found',
      '/data/attributes/target_uuid',
    );
    expect(missing.detail).toContain(unknown);
  });

  it('refuses a tube rack (422 at target_uuid): its tubes hold the volume', async () => {
    const rack = await createRack();
    const error = expectError(
      await refused('POST', UPDATES, volumeUpdate({ created_by: 'admin', target_uuid: rack.attributes.uuid, volume_change: 1 })),
      422,
      'invalid_value',
      '/data/attributes/target_uuid',
    );
    expect(error.detail).toContain(`tube_racks ${rack.id}`);
  });
});

describe('50 writes at once', () => {
  const WRITERS = 50;
  const BURST_BUDGET_MS = 240_000;
  const runBudget = process.env.LTS_REQUEST_BUDGET_MS;
  beforeAll(() => {
    process.env.LTS_REQUEST_BUDGET_MS = String(BURST_BUDGET_MS);
    resetConfig();
  });
  afterAll(() => {
    process.env.LTS_REQUEST_BUDGET_MS = runBudget;
    resetConfig();
  });
  const burst = { timeout: BURST_BUDGET_MS + 60_000 };

  it('50 audits of 50 plates and 50 of one plate: 100 × 201, each listed with its labware', burst, async () => {
    const plates = await inBatches(WRITERS, 10, () => createPlate());
    const one = await createPlate();
    const results = await Promise.all([
      ...plates.map((p) => call('POST', AUDITS, { body: auditOf(p.attributes.uuid) })),
      ...Array.from({ length: WRITERS }, (_, i) => call('POST', AUDITS, { body: auditOf(one.attributes.uuid, { message: `scan ${i}` }) })),
    ]);
    expect(statuses(results)).toEqual([`201 × ${2 * WRITERS}`]);
    const listed = await call('GET', `${AUDITS}?filter[asset_id]=${one.id}&page[size]=100`);
    expect(listed.body.data.map((a: any) => a.attributes.message).sort()).toEqual(Array.from({ length: WRITERS }, (_, i) => `scan ${i}`).sort());
    for (const p of plates.slice(0, 5)) expect(idsOf(await call('GET', `${AUDITS}?filter[asset_uuid]=${p.attributes.uuid}`))).toHaveLength(1);
  });

  it('50 volume updates of 50 plates: each plate changed once', burst, async () => {
    const plates = await inBatches(WRITERS, 10, () => createPlate());
    const results = await Promise.all(
      plates.map((p) => call('POST', UPDATES, { body: volumeUpdate({ created_by: 'admin', target_uuid: p.attributes.uuid, volume_change: 2 }) })),
    );
    expect(statuses(results)).toEqual([`201 × ${WRITERS}`]);
    for (const p of plates.slice(0, 5)) expect(new Set(await volumesOf('plates', p.id))).toEqual(new Set([2]));
  });

  it('50 volume updates of +1 on ONE tube: none lost, the tube holds 50', burst, async () => {
    const tube = await createTube();
    const results = await Promise.all(
      Array.from({ length: WRITERS }, () =>
        call('POST', UPDATES, { body: volumeUpdate({ created_by: 'admin', target_uuid: tube.attributes.uuid, volume_change: 1 }) }),
      ),
    );
    const landed = results.filter((r) => r.status === 201).length;
    // Each that committed was applied to the volume the one before left: the volume is the count of 201s…
    expect(await volumesOf('tubes', tube.id)).toEqual([landed]);
    // …and within the burst's budget every one commits.
    expect(statuses(results)).toEqual([`201 × ${WRITERS}`]);
  });
});
