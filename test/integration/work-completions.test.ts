import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc } from '../support/api.ts';
import { createPlate, rel } from '../support/fixtures.ts';
import { adminUuid, filledPlate } from '../support/lab.ts';
import { createOrder, createRequest, workIds } from '../support/requests.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';
import { TUBE_DEFAULT_INCLUDES, TUBE_FOR_COMPLETION, TUBE_RACK_FOR_COMPLETION, TUBE_RACK_PRESENTER_INCLUDES } from '../support/limber.ts';
import { adminId, changeState, plateView, postWorkCompletion, requestsOfSubmission, stamp, workPlate, workTube } from '../support/work.ts';

/**
 * Work completions (contract §6, reference-behaviour.md §7.4), as Limber's "Charge and pass" sends them:
 * the requests of the submissions on the target pass where their machine allows, get the receptacle they
 * ended in as `target_asset`, and their next requests start from it. Refused ones write nothing.
 */

beforeAll(freshStore);

const wellIds = async (plateId: string) =>
  new Map<string, string>((await call('GET', `/api/v2/plates/${plateId}/wells?page[size]=100`)).body.data.map((w: any) => [w.attributes.position.name, w.id]));

describe('POST /work_completions', () => {
  it('passes the started requests of the submission on the plate and links each to its well (Limber’s body)', async () => {
    const { plate, submission } = await workPlate(3);
    await changeState(plate, 'passed');
    await changeState(plate, 'failed', { contents: ['C1'], reason: 'empty well' });
    const res = await postWorkCompletion(plate, [submission]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.Location).toBe(`https://lts.test/api/v2/work_completions/${res.body.data.id}`);
    const read = await call('GET', `/api/v2/work_completions/${res.body.data.id}?include=target,submissions,user`);
    expect(read.body.data.relationships.target.data).toEqual({ type: 'plates', id: plate.id });
    expect(read.body.data.relationships.submissions.data).toEqual([{ type: 'submissions', id: submission }]);
    expect(read.body.data.relationships.user.data).toEqual({ type: 'users', id: await adminId() });

    const wells = await wellIds(plate.id);
    const requests = await Promise.all(
      (await requestsOfSubmission(submission)).map(async (r) => (await call('GET', `/api/v2/requests/${r.id}?include=target_asset`)).body.data),
    );
    // A1 and B1 passed; C1's request failed with its well and stays failed; each linked to its well.
    const positionOf = new Map([...wells].map(([position, id]) => [id, position]));
    const byWell = Object.fromEntries(requests.map((r) => [positionOf.get(r.relationships.target_asset.data?.id), r.attributes.state]));
    expect(byWell).toEqual({ A1: 'passed', B1: 'passed', C1: 'failed' });
    expect(requests.every((r) => r.relationships.target_asset.data.type === 'wells')).toBe(true);

    const events = await outboxEvents();
    expect(events.filter((e) => e.type === 'work_completions.created' && e.resource.id === res.body.data.id)).toHaveLength(1);
    const ids = new Set(requests.map((r) => r.id));
    // Each request: started by the pass, failed (C1) or passed by the completion.
    expect(events.filter((e) => e.type === 'requests.state_changed' && ids.has(e.resource.id))).toHaveLength(6);
  });

  it('moves the next requests of the order onto the wells the work ended in', async () => {
    const { study, libraryCreation, sequencing } = await workIds();
    const { plate: stock } = await filledPlate(2);
    const stockWells = await wellIds(stock.id);
    const { submission, order } = await createOrder(study, [libraryCreation, sequencing]);
    const library = [];
    const next = [];
    for (const position of ['A1', 'B1']) {
      const asset = { type: 'wells', id: stockWells.get(position)! };
      library.push(await createRequest({ submission, order, requestType: libraryCreation, asset }));
      next.push(await createRequest({ submission, order, requestType: sequencing, asset }));
    }
    const plate = await createPlate('Library Plate');
    await stamp(stock, plate);
    await changeState(plate, 'passed');
    const res = await call('POST', '/api/v2/work_completions', {
      body: doc(
        'work_completions',
        {},
        { target: rel('plates', plate.id), submissions: { data: [{ type: 'submissions', id: submission }] }, user: rel('users', await adminId()) },
      ),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const wells = await wellIds(plate.id);
    const assetOf = async (id: string) => (await call('GET', `/api/v2/requests/${id}/relationships/asset`)).body.data;
    expect(await assetOf(next[0].id)).toEqual({ type: 'wells', id: wells.get('A1') });
    expect(await assetOf(next[1].id)).toEqual({ type: 'wells', id: wells.get('B1') });
    expect((await call('GET', `/api/v2/requests/${next[0].id}`)).body.data.attributes.state).toBe('pending');
    expect((await call('GET', `/api/v2/requests/${library[0].id}`)).body.data.attributes.state).toBe('passed');
    // The stock wells no longer have the sequencing requests out of them; the plate's wells do.
    const out = await call('GET', `/api/v2/wells/${wells.get('A1')}/requests_as_source`);
    expect(out.body.data.map((r: any) => r.id)).toEqual([next[0].id]);
  });

  it('a completion of work not on the labware changes nothing but is recorded; a plate view shows its wells unchanged', async () => {
    const { plate } = await workPlate(1);
    const other = await workPlate(1);
    const res = await postWorkCompletion(plate, [other.submission]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await plateView(plate.id)).wells.get('A1')!.requests[0]!.state).toBe('pending');
  });

  it('refuses missing or unknown submissions, target and user: nothing written', async () => {
    const { plate, submission } = await workPlate(1);
    const user_uuid = await adminUuid();
    const post = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
      refused('POST', '/api/v2/work_completions', doc('work_completions', attributes, relationships));
    expectError(await post({ target_uuid: plate.attributes.uuid, user_uuid }), 422, 'required', '/data/relationships/submissions');
    expectError(await post({ target_uuid: plate.attributes.uuid, user_uuid, submission_uuids: [] }), 422, 'required', '/data/relationships/submissions');
    const unknown = expectError(
      await post({ target_uuid: plate.attributes.uuid, user_uuid, submission_uuids: ['00000000-0000-4000-8000-000000000000'] }),
      404,
      'record_not_found',
      '/data/attributes/submission_uuids/0',
    );
    expect(unknown.detail).toContain('00000000-0000-4000-8000-000000000000');
    const submissionUuid = (await call('GET', `/api/v2/submissions/${submission}`)).body.data.attributes.uuid;
    expectError(await post({ user_uuid, submission_uuids: [submissionUuid] }), 422, 'required', '/data/relationships/target');
    expectError(await post({ target_uuid: plate.attributes.uuid, submission_uuids: [submissionUuid] }), 422, 'required', '/data/relationships/user');
    expectError(await post({ target_uuid: plate.attributes.uuid, user_uuid, submission_uuids: 'x' }), 422, 'invalid_type', '/data/attributes/submission_uuids');
    expectError(await post({ target_uuid: '00000000-0000-4000-8000-000000000000', user_uuid, submission_uuids: [submissionUuid] }), 404, 'record_not_found');
  });
});

/** A labware read as Limber's client reads it (`find(uuid:)` with an include string): the document. */
async function limberRead(type: string, uuid: string, include: string): Promise<any> {
  const res = await call('GET', `/api/v2/${type}?filter[uuid]=${uuid}&include=${include}`);
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return res.body;
}

const includedOf = (body: any, type: string): any[] => (body.included ?? []).filter((r: any) => r.type === type);

/** Limber's `in_progress_submission_uuids` (shared/has_requests.rb): the submissions of the requests the aliquots read carry, each once. */
function inProgressSubmissionUuids(body: any): string[] {
  const submissions = new Map(includedOf(body, 'submissions').map((s) => [s.id, s.attributes.uuid]));
  return [...new Set(includedOf(body, 'requests').map((r) => submissions.get(r.relationships.submission.data.id)))];
}

/** POST work_completions by uuids, exactly as Limber's WorkCompletion.create! sends them. */
async function completeWork(target: any, submissionUuids: string[]): Promise<void> {
  const body = doc('work_completions', { submission_uuids: submissionUuids, target_uuid: target.attributes.uuid, user_uuid: await adminUuid() });
  const res = await call('POST', '/api/v2/work_completions', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** A request's state and where its work ended. */
async function requestOutcome(id: string): Promise<{ state: string; target: unknown }> {
  const { data } = (await call('GET', `/api/v2/requests/${id}?include=target_asset`)).body;
  return { state: data.attributes.state, target: data.relationships.target_asset.data };
}

describe('work completion of tubes and racks, as Limber completes them', () => {
  it("an MX tube filled from a work plate: Tubes::WorkCompletionsController's read, its completion, then the tube page", async () => {
    const { tube, request } = await workTube('MX Tube');
    await changeState(tube, 'passed'); // starts the request the tube's material is bound for
    const read = await limberRead('tubes', tube.attributes.uuid, TUBE_FOR_COMPLETION);
    const submissions = inProgressSubmissionUuids(read);
    expect(submissions).toHaveLength(1);
    await completeWork(tube, submissions);

    const receptacle = read.data[0].relationships.receptacle.data;
    expect(receptacle.type).toBe('receptacles');
    expect(await requestOutcome(request)).toEqual({ state: 'passed', target: receptacle });
    // The page Limber redirects to: the tube with its DEFAULT_INCLUDES shows the request passed.
    const page = await limberRead('tubes', tube.attributes.uuid, TUBE_DEFAULT_INCLUDES);
    expect(includedOf(page, 'requests').map((r) => [r.id, r.attributes.state])).toEqual([[request, 'passed']]);
  });

  it("a tube rack: the automatic rack state changer's pass, its read by tube_rack_for_completion, the completion, then the rack page", async () => {
    const [a, b] = [await workTube('Stock Tube', 'started'), await workTube('Stock Tube', 'started')];
    const locations = { A1: { uuid: a.tube.attributes.uuid }, B1: { uuid: b.tube.attributes.uuid } };
    const rack = (await call('POST', '/api/v2/tube_racks', { body: doc('tube_racks', { size: 96, tube_locations: locations }) })).body.data;
    await changeState(rack, 'passed');
    const read = await limberRead('tube_racks', rack.attributes.uuid, TUBE_RACK_FOR_COMPLETION);
    const submissions = inProgressSubmissionUuids(read);
    expect(submissions).toHaveLength(2);
    await completeWork(rack, submissions);

    const receptacleOf = (tube: any) => includedOf(read, 'tubes').find((t) => t.id === tube.id).relationships.receptacle.data;
    expect(await requestOutcome(a.request)).toEqual({ state: 'passed', target: receptacleOf(a.tube) });
    expect(await requestOutcome(b.request)).toEqual({ state: 'passed', target: receptacleOf(b.tube) });
    const page = await limberRead('tube_racks', rack.attributes.uuid, TUBE_RACK_PRESENTER_INCLUDES);
    expect(new Map(includedOf(page, 'requests').map((r) => [r.id, r.attributes.state]))).toEqual(
      new Map([
        [a.request, 'passed'],
        [b.request, 'passed'],
      ]),
    );
  });
});
