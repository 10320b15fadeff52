import { expect } from 'vitest';
import { config } from '#lib/config.ts';
import { call, doc, idOf, type CallResult } from './api.ts';
import { create, createPlate, rel } from './fixtures.ts';

/** Helpers of the QC tests: default lots by number, qcables on new plates, state changes. */

const lotIds = new Map<string, Promise<string>>();
/** The id of a lot by its number, looked up once per table. */
export function lotId(lotNumber: string): Promise<string> {
  const key = `${config().LTS_TABLE_NAME}\n${lotNumber}`;
  let id = lotIds.get(key);
  if (!id) {
    id = idOf('lots', 'lot_number', lotNumber);
    lotIds.set(key, id);
  }
  return id;
}

/** A qcable of a lot (by number) on a given plate, or on a new `Tag Plate` plate. */
export async function createQcable(lotNumber: string, plate?: any): Promise<{ qcable: any; plate: any }> {
  const labware = plate ?? (await createPlate('Tag Plate'));
  const qcable = await create('qcables', {}, { labware: rel('plates', labware.id), lot: rel('lots', await lotId(lotNumber)) });
  return { qcable, plate: labware };
}

/** POSTs a state change of a labware's qcable (by relationship), by a user (`admin` unless given) and optionally with a reason. */
export const postStateChange = async (labwareId: string, targetState: unknown, extra: { user?: string; reason?: string } = {}): Promise<CallResult> =>
  call('POST', '/api/v2/state_changes', {
    body: doc(
      'state_changes',
      { target_state: targetState, ...(extra.reason !== undefined ? { reason: extra.reason } : {}) },
      { target: rel('plates', labwareId), user: rel('users', extra.user ?? (await idOf('users', 'login', 'admin'))) },
    ),
  });

/** Moves a labware's qcable to a state, failing the test unless the change is created (201); returns the state change. */
export async function moveQcable(labwareId: string, targetState: string, extra?: { user?: string; reason?: string }): Promise<any> {
  const res = await postStateChange(labwareId, targetState, extra);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** The stored state of a qcable, read through the API. */
export async function stateOf(qcableId: string): Promise<string> {
  const res = await call('GET', `/api/v2/qcables/${qcableId}`);
  expect(res.status).toBe(200);
  return res.body.data.attributes.state;
}
