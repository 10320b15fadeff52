import { expect } from 'vitest';
import { call, doc, idOf, type CallResult } from './api.ts';
import { createPlate, createTube, rel } from './fixtures.ts';
import { adminUuid, filledPlate, poolPlate, postTransfer, templateUuid } from './lab.ts';
import { patchState } from './requests.ts';

/**
 * Lab work moving on (contract §6, reference-behaviour.md §7): plates stamped from a stock plate whose
 * wells have library requests, state changes and work completions as Limber sends them, and what a plate's
 * wells hold as a test compares it.
 */

export interface LabwareRef {
  type: string;
  id: string;
}

/** POST state_changes as Limber's StateChangers send it: `target_uuid`, `user_uuid`, `contents`, `reason`, `customer_accepts_responsibility`. */
export async function postStateChange(
  target: { attributes: { uuid: string } },
  targetState: string,
  extra: { contents?: string[] | null; reason?: string; customer_accepts_responsibility?: boolean } = {},
): Promise<CallResult> {
  return call('POST', '/api/v2/state_changes', {
    body: doc('state_changes', { target_uuid: target.attributes.uuid, target_state: targetState, user_uuid: await adminUuid(), ...extra }),
  });
}

/** A state change that must be created; returns it. */
export async function changeState(target: { attributes: { uuid: string } }, targetState: string, extra?: Parameters<typeof postStateChange>[2]): Promise<any> {
  const res = await postStateChange(target, targetState, extra);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** A stamp of a whole 96-well plate (or the columns a template names) into another plate. */
export async function stamp(source: any, destination: any, template = 'Transfer columns 1-12'): Promise<void> {
  const res = await postTransfer({
    template: await templateUuid(template),
    source: source.attributes.uuid,
    destination: destination.attributes.uuid,
    user: await adminUuid(),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

export interface WorkPlate {
  /** The stock plate (an input plate): its wells' library requests, one submission. */
  stock: any;
  /** The plate stamped from it: its wells' transfer requests are pending, their aliquots carry the requests. */
  plate: any;
  submission: string;
}

/** A stock plate of `count` samples, each well with a library request of one submission, stamped into a new plate of `purpose`. */
export async function workPlate(count: number, purpose = 'Working Dilution', requestState?: string): Promise<WorkPlate> {
  const { plate: stock } = await filledPlate(count);
  const wells = (await call('GET', `/api/v2/plates/${stock.id}/wells?page[size]=100`)).body.data.slice(0, count);
  const [submission] = await poolPlate(stock.id, [wells.map((w: any) => w.attributes.position.name)]);
  if (requestState) for (const request of await requestsOfSubmission(submission!)) await patchState(request.id, requestState);
  const plate = await createPlate(purpose);
  await stamp(stock, plate);
  return { stock, plate, submission: submission! };
}

/** A tube of `purpose` filled from a stamped work plate (one well: one request, one transfer request into the tube). */
export async function workTube(purpose: string, requestState?: string): Promise<{ tube: any; request: string }> {
  const { plate, submission } = await workPlate(1, 'Working Dilution', requestState);
  const tube = await createTube(purpose);
  const template = await templateUuid('Whole plate to tube');
  const res = await postTransfer({ template, source: plate.attributes.uuid, destination: tube.attributes.uuid, user: await adminUuid() });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [request] = await requestsOfSubmission(submission);
  return { tube, request: request.id };
}

/** The requests of a submission. */
export async function requestsOfSubmission(submission: string): Promise<any[]> {
  return (await call('GET', `/api/v2/submissions/${submission}/requests?page[size]=500`)).body.data;
}

export interface WellView {
  state: string;
  requests: { id: string; state: string; options: Record<string, unknown> }[];
}

/** A plate's state and its wells by position: their state and the requests their aliquots carry. */
export async function plateView(id: string): Promise<{ state: string; wells: Map<string, WellView> }> {
  const res = await call('GET', `/api/v2/plates/${id}?include=wells.aliquots.request&fields[requests]=state,options&page[size]=100`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const included = new Map<string, any>((res.body.included ?? []).map((r: any) => [`${r.type}:${r.id}`, r]));
  const wells = new Map<string, WellView>();
  for (const link of res.body.data.relationships.wells.data) {
    const well = included.get(`wells:${link.id}`);
    const requests = well.relationships.aliquots.data
      .map((a: any) => included.get(`aliquots:${a.id}`).relationships.request.data)
      .filter((r: any) => r)
      .map((r: any) => ({ id: r.id, ...included.get(`requests:${r.id}`).attributes }));
    wells.set(well.attributes.position.name, { state: well.attributes.state, requests });
  }
  return { state: res.body.data.attributes.state, wells };
}

/** POST work_completions as Limber's WorkCompletion sends it: `target_uuid`, `user_uuid`, `submission_uuids`. */
export async function postWorkCompletion(target: { attributes: { uuid: string } }, submissions: string[]): Promise<CallResult> {
  const uuids = await Promise.all(submissions.map(async (id) => (await call('GET', `/api/v2/submissions/${id}`)).body.data.attributes.uuid));
  return call('POST', '/api/v2/work_completions', {
    body: doc('work_completions', { target_uuid: target.attributes.uuid, user_uuid: await adminUuid(), submission_uuids: uuids }),
  });
}

/** The admin user's id, for relationships. */
export const adminId = () => idOf('users', 'login', 'admin');

export { rel };
