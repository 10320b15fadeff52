import { beforeAll, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, rel } from '../support/fixtures.ts';
import { lotId } from '../support/qc.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * The QC workflow of tag plates through the API (issue 9, client-usage W2, W7 and W11): two qcables on new
 * Tag Plate plates of LOT-0001 start `created`; both are stamped (`pending`); one goes through QC
 * (`qc_in_progress`, `passed`) and a plate reader records a QC assay on it by barcode and well locations;
 * the other is released (`available`) and used (`exhausted`). Every state is read back, as limber reads
 * it (by barcode), with the QC results from the plate's wells, and every step left its events.
 */

beforeAll(freshStore);

let adminUuid: string;

beforeAll(async () => {
  adminUuid = (await call('GET', `/api/v2/users/${await idOf('users', 'login', 'admin')}`)).body.data.attributes.uuid;
});

/** A state change as limber sends it: deprecated uuids, a reason and the user. */
async function change(plate: any, targetState: string): Promise<any> {
  const res = await call('POST', '/api/v2/state_changes', {
    body: doc('state_changes', { target_uuid: plate.attributes.uuid, target_state: targetState, reason: `to ${targetState}`, user_uuid: adminUuid }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** The qcable on a plate as limber's tag-plate scan finds it: by barcode, with its lot and lot type. */
async function scan(plate: any): Promise<{ qcable: any; lotNumber: string; lotType: string }> {
  const barcode = plate.attributes.labware_barcode.machine_barcode;
  const res = await call('GET', `/api/v2/qcables?filter[barcode]=${barcode}&include=labware,lot.lot_type.target_purpose,lot.template`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toHaveLength(1);
  const of = (type: string) => res.body.included.find((r: any) => r.type === type);
  expect(of('plates').attributes.uuid).toBe(plate.attributes.uuid);
  // The lot type's target purpose is a `purposes` (the reference's and Limber's `class_name: 'Purpose'`).
  expect(of('purposes').attributes.name).toBe('Tag Plate');
  return { qcable: res.body.data[0], lotNumber: of('lots').attributes.lot_number, lotType: of('lot_types').attributes.name };
}

it('takes two tag plates of LOT-0001 from created through QC, and through release and use', async () => {
  const lot = await lotId('LOT-0001');
  const plates = [await createPlate('Tag Plate'), await createPlate('Tag Plate')];
  const qcables = [];
  for (const plate of plates) {
    const res = await call('POST', '/api/v2/qcables', { body: doc('qcables', {}, { labware: rel('plates', plate.id), lot: rel('lots', lot) }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    qcables.push(res.body.data);
  }
  const [qcPlate, usedPlate] = plates as [any, any];
  for (const plate of plates)
    expect(await scan(plate)).toMatchObject({ qcable: { attributes: { state: 'created' } }, lotNumber: 'LOT-0001', lotType: 'Tag Plates' });

  // Stamp both.
  for (const plate of plates) expect((await change(plate, 'pending')).attributes).toMatchObject({ previous_state: 'created', target_state: 'pending' });
  for (const plate of plates) expect((await scan(plate)).qcable.attributes.state).toBe('pending');

  // One through QC.
  await change(qcPlate, 'qc_in_progress');
  expect((await scan(qcPlate)).qcable.attributes.state).toBe('qc_in_progress');
  await change(qcPlate, 'passed');
  expect((await scan(qcPlate)).qcable.attributes.state).toBe('passed');

  // The plate reader's upload for the passed plate: by barcode and well location, no `type` (quanthub).
  const measured = { A1: '12.3', B1: '11.9', H12: '0.4' };
  const upload = await call('POST', '/api/v2/qc_assays', {
    body: {
      data: {
        attributes: {
          lot_number: 'KIT-LOT-7',
          qc_results: Object.entries(measured).map(([well, value]) => ({
            barcode: qcPlate.attributes.labware_barcode.machine_barcode,
            well_location: well,
            key: 'concentration',
            value,
            units: 'ng/ul',
            cv: '2.5',
            assay_type: 'ISC',
            assay_version: 'v1.0',
          })),
        },
      },
    },
  });
  expect(upload.status, JSON.stringify(upload.body)).toBe(201);

  // The other released, then used (limber W2 accepts it only while available).
  await change(usedPlate, 'available');
  expect((await scan(usedPlate)).qcable.attributes.state).toBe('available');
  await change(usedPlate, 'exhausted');
  expect((await scan(usedPlate)).qcable.attributes.state).toBe('exhausted');

  // Terminal states stay put: a passed plate cannot be used, an exhausted one cannot go back.
  const refusedUse = await call('POST', '/api/v2/state_changes', {
    body: doc('state_changes', { target_uuid: qcPlate.attributes.uuid, target_state: 'exhausted', user_uuid: adminUuid }),
  });
  expect(expectError(refusedUse, 422, 'invalid_transition').detail).toBe(
    'target_state - a qcable cannot move from passed to exhausted; from passed it can move to none',
  );
  expect((await scan(qcPlate)).qcable.attributes.state).toBe('passed');

  // Read back: each qcable by id, and the history each step recorded (state changes and events, in order).
  const [qcQcable, usedQcable] = qcables as [any, any];
  expect((await call('GET', `/api/v2/qcables/${qcQcable.id}`)).body.data.attributes.state).toBe('passed');
  expect((await call('GET', `/api/v2/qcables/${usedQcable.id}`)).body.data.attributes.state).toBe('exhausted');

  // The QC results, from the passed plate's wells as limber's plate page reads them; none on the other plate.
  const resultsByWell = async (plate: any) => {
    const res = await call('GET', `/api/v2/plates?filter[uuid]=${plate.attributes.uuid}&include=wells.qc_results`);
    const included = res.body.included as any[];
    const values = new Map(included.filter((r) => r.type === 'qc_results').map((r) => [r.id, r.attributes]));
    return Object.fromEntries(
      included
        .filter((r) => r.type === 'wells' && r.relationships.qc_results.data.length > 0)
        .map((w) => [w.attributes.position.name, w.relationships.qc_results.data.map((l: any) => values.get(l.id).value)]),
    );
  };
  expect(await resultsByWell(qcPlate)).toEqual({ A1: ['12.3'], B1: ['11.9'], H12: ['0.4'] });
  expect(await resultsByWell(usedPlate)).toEqual({});
  const assay = await call('GET', `/api/v2/qc_assays/${upload.body.data.id}?include=qc_results`);
  expect(assay.body.data.attributes.lot_number).toBe('KIT-LOT-7');
  expect(assay.body.included.map((r: any) => r.attributes.units)).toEqual(['ng/ul', 'ng/ul', 'ng/ul']);

  const history = (await call('GET', '/api/v2/state_changes?page[size]=500&include=qcable')).body.data;
  const transitionsOf = (qcable: any) =>
    history
      .filter((c: any) => c.relationships.qcable.data.id === qcable.id)
      .map((c: any) => `${c.attributes.previous_state}>${c.attributes.target_state}:${c.attributes.reason}`);
  expect(transitionsOf(qcQcable)).toEqual(['created>pending:to pending', 'pending>qc_in_progress:to qc_in_progress', 'qc_in_progress>passed:to passed']);
  expect(transitionsOf(usedQcable)).toEqual(['created>pending:to pending', 'pending>available:to available', 'available>exhausted:to exhausted']);

  const events = await outboxEvents();
  const statesOf = (qcable: any) =>
    events
      .filter((e) => e.resource.type === 'qcables' && e.resource.id === qcable.id)
      .sort((a, b) => a.occurred_at.localeCompare(b.occurred_at))
      .map((e) => `${e.type}:${e.data.attributes.state}`);
  expect(statesOf(qcQcable)).toEqual([
    'qcables.created:created',
    'qcables.state_changed:pending',
    'qcables.state_changed:qc_in_progress',
    'qcables.state_changed:passed',
  ]);
  expect(statesOf(usedQcable)).toEqual([
    'qcables.created:created',
    'qcables.state_changed:pending',
    'qcables.state_changed:available',
    'qcables.state_changed:exhausted',
  ]);
  expect(events.filter((e) => e.type === 'state_changes.created')).toHaveLength(6);
  for (const event of events.filter((e) => e.type === 'qcables.state_changed')) expect(event.actor).toMatchObject({ user: { type: 'users' } });
});
