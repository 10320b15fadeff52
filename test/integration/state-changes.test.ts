import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, rel } from '../support/fixtures.ts';
import { createQcable, moveQcable, postStateChange, stateOf } from '../support/qc.ts';
import { expectError, idsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * state_changes (extension, contract §2; reference-behaviour §3.1): POST with the `target` labware
 * (relationship or `target_uuid`), `target_state`, `reason` and `user` (relationship or `user_uuid`)
 * fires the one event leading from the labware's qcable's state to the target. Refusals are 422s naming
 * the current, the requested and the reachable states; a labware without a qcable is a 422; concurrent
 * changes of one qcable cannot both succeed. Every refused write is checked to leave the table as it was.
 */

beforeAll(freshStore);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A state change by `admin` (unless the relationships name the user) that must be refused. */
const refusedChange = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  refused('POST', '/api/v2/state_changes', doc('state_changes', attributes, { user: rel('users', admin), ...relationships }));

let admin: string;
let adminUuid: string;

beforeAll(async () => {
  admin = await idOf('users', 'login', 'admin');
  adminUuid = (await call('GET', `/api/v2/users/${admin}`)).body.data.attributes.uuid;
});

describe('POST /state_changes', () => {
  it("moves the labware's qcable and records the previous and the new state, the reason and the user", async () => {
    const { qcable, plate } = await createQcable('LOT-0001');
    const res = await postStateChange(plate.id, 'pending', { user: admin, reason: 'stamped' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const change = res.body.data;
    expect(res.headers.Location).toBe(`https://lts.test/api/v2/state_changes/${change.id}`);
    expect(change.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      previous_state: 'created',
      target_state: 'pending',
      reason: 'stamped',
      contents: null,
      customer_accepts_responsibility: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await stateOf(qcable.id)).toBe('pending');
    const read = await call('GET', `/api/v2/state_changes/${change.id}?include=target,user,qcable`);
    expect(read.body.data.attributes).toEqual(change.attributes);
    // The reference's `class_name: "Labware"` (contract §7.4): the target links, and is included, as `labware`.
    expect(read.body.data.relationships.target.data).toEqual({ type: 'labware', id: plate.id });
    expect(read.body.included.find((r: any) => r.type === 'labware')).toMatchObject({ id: plate.id, attributes: { uuid: expect.any(String) } });
    expect(read.body.data.relationships.user.data).toEqual({ type: 'users', id: admin });
    expect(read.body.data.relationships.qcable.data).toEqual({ type: 'qcables', id: qcable.id });
    expect(read.body.included.find((r: any) => r.type === 'qcables').attributes.state).toBe('pending');
  });

  it('takes the target linked as it reads back (`labware`) as well as by its own type (`plates`)', async () => {
    const { qcable, plate } = await createQcable('LOT-0002');
    const res = await call('POST', '/api/v2/state_changes', {
      body: doc('state_changes', { target_state: 'pending' }, { target: rel('labware', plate.id), user: rel('users', admin) }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await stateOf(qcable.id)).toBe('pending');
  });

  it("takes the deprecated target_uuid and user_uuid (limber's body), without a reason", async () => {
    const { qcable, plate } = await createQcable('LOT-0003');
    const res = await call('POST', '/api/v2/state_changes', {
      body: doc('state_changes', { target_uuid: plate.attributes.uuid, target_state: 'available', user_uuid: adminUuid }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ previous_state: 'pending', target_state: 'available', reason: null });
    expect(await stateOf(qcable.id)).toBe('available');
    const user = await call('GET', `/api/v2/state_changes/${res.body.data.id}/relationships/user`);
    expect(user.body.data).toEqual({ type: 'users', id: admin });
  });

  it('emits state_changes.created and qcables.state_changed, naming the user as actor', async () => {
    const { qcable, plate } = await createQcable('LOT-0001');
    const change = await moveQcable(plate.id, 'pending', { user: admin });
    const events = (await outboxEvents()).filter(
      (e) => (e.resource.type === 'qcables' && e.resource.id === qcable.id) || (e.resource.type === 'state_changes' && e.resource.id === change.id),
    );
    expect(events.map((e) => e.type).sort()).toEqual(['qcables.created', 'qcables.state_changed', 'state_changes.created']);
    const moved = events.find((e) => e.type === 'qcables.state_changed')!;
    expect(moved.data.attributes.state).toBe('pending');
    expect(moved.actor).toMatchObject({ user: { type: 'users', id: admin } });
  });

  it('refuses a transition the machine does not allow: 422 naming the current, the requested and the reachable states', async () => {
    const { qcable, plate } = await createQcable('LOT-0001');
    const res = await refusedChange({ target_state: 'passed' }, { target: rel('plates', plate.id) });
    const error = expectError(res, 422, 'invalid_transition', '/data/attributes/target_state');
    expect(error.detail).toBe('target_state - a qcable cannot move from created to passed; from created it can move to pending');
    expect(await stateOf(qcable.id)).toBe('created');
  });

  it('refuses a target state that does not exist (422 with the reachable states), and staying put', async () => {
    const { plate } = await createQcable('LOT-0003');
    const unknown = expectError(await refusedChange({ target_state: 'ready' }, { target: rel('plates', plate.id) }), 422, 'invalid_transition');
    expect(unknown.detail).toBe('target_state - a qcable has no state ready; from pending it can move to failed, available, destroyed, qc_in_progress');
    const same = expectError(await refusedChange({ target_state: 'pending' }, { target: rel('plates', plate.id) }), 422, 'invalid_transition');
    expect(same.detail).toContain('cannot move from pending to pending');
  });

  it('a labware with no qcable moves by its state changer: with no transfer request into it, nothing to change (422)', async () => {
    const plate = await createPlate('Working Dilution');
    const error = expectError(
      await refusedChange({ target_state: 'passed' }, { target: rel('plates', plate.id) }),
      422,
      'invalid_value',
      '/data/attributes/target_state',
    );
    expect(error.detail).toBe(`target_state - no targeted receptacle of plates ${plate.id} has a transfer request into it: the change would move nothing`);
  });

  it('requires target and target_state (422), and checks their types', async () => {
    const { plate } = await createQcable('LOT-0001');
    expectError(await refusedChange({ target_state: 'pending' }), 422, 'required', '/data/relationships/target');
    expectError(await refusedChange({}, { target: rel('plates', plate.id) }), 422, 'required', '/data/attributes/target_state');
    expectError(await refusedChange({ target_state: null }, { target: rel('plates', plate.id) }), 422, 'required', '/data/attributes/target_state');
    expectError(await refusedChange({ target_state: 7 }, { target: rel('plates', plate.id) }), 422, 'invalid_type', '/data/attributes/target_state');
    expectError(await refusedChange({ target_state: '' }, { target: rel('plates', plate.id) }), 422, 'invalid_value', '/data/attributes/target_state');
    expectError(await refusedChange({ target_state: 'pending', reason: ['x'] }, { target: rel('plates', plate.id) }), 422, 'invalid_type');
    expectError(await refusedChange({ target_state: 'pending', target_uuid: 12 }), 422, 'invalid_type', '/data/attributes/target_uuid');
  });

  it('answers 404 with a pointer for an unknown target or user, by relationship or uuid', async () => {
    const { plate } = await createQcable('LOT-0001');
    expectError(
      await refusedChange({ target_state: 'pending' }, { target: rel('plates', 999999) }),
      404,
      'record_not_found',
      '/data/relationships/target/data',
    );
    const byUuid = expectError(
      await refusedChange({ target_state: 'pending', target_uuid: '00000000-0000-4000-8000-000000000000' }),
      404,
      'record_not_found',
      '/data/attributes/target_uuid',
    );
    expect(byUuid.detail).toContain('00000000-0000-4000-8000-000000000000');
    expectError(
      await refusedChange({ target_state: 'pending' }, { target: rel('plates', plate.id), user: rel('users', 999999) }),
      404,
      'record_not_found',
      '/data/relationships/user/data',
    );
    expectError(await refusedChange({ target_state: 'pending', target_uuid: adminUuid }), 404, 'record_not_found', '/data/attributes/target_uuid');
  });

  it('refuses previous_state and unknown attributes (400), and PATCH (405)', async () => {
    const { plate } = await createQcable('LOT-0001');
    expectError(await refusedChange({ target_state: 'pending', previous_state: 'created' }, { target: rel('plates', plate.id) }), 400, 'param_not_allowed');
    const change = await moveQcable(plate.id, 'pending');
    const res = await call('PATCH', `/api/v2/state_changes/${change.id}`, { body: doc('state_changes', { reason: 'x' }, undefined, change.id) });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.Allow).toBe('GET');
  });
});

describe('GET /state_changes', () => {
  it('lists state changes and finds one by uuid', async () => {
    const { plate } = await createQcable('LOT-0001');
    const first = await moveQcable(plate.id, 'pending');
    const second = await moveQcable(plate.id, 'qc_in_progress');
    const all = await call('GET', '/api/v2/state_changes?page[size]=500');
    expect(idsOf(all)).toEqual(expect.arrayContaining([first.id, second.id]));
    expect(all.body.meta.record_count).toBe(all.body.data.length);
    expect(idsOf(await call('GET', `/api/v2/state_changes?filter[uuid]=${second.attributes.uuid}`))).toEqual([second.id]);
    expect((await call('GET', `/api/v2/state_changes/${second.id}`)).body.data.attributes).toMatchObject({
      previous_state: 'pending',
      target_state: 'qc_in_progress',
    });
    expectError(await call('GET', '/api/v2/state_changes?filter[target_state]=pending'), 400, 'filter_not_allowed');
    expectError(await call('GET', '/api/v2/state_changes/999999'), 404, 'record_not_found');
  });
});

describe('concurrent state changes of one qcable', () => {
  it('20 simultaneous changes from one state: exactly one 201, the rest 422 or 409, the stored state is the winner’s', async () => {
    const { qcable, plate } = await createQcable('LOT-0003');
    // From pending both targets are reachable, and neither from the other: a change that lost the race is
    // re-run against the winner's state, where the machine refuses it. (Targets reachable one from the
    // other, such as qc_in_progress then failed, would rightly both succeed, one after the other.)
    const targets = ['qc_in_progress', 'available'];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => postStateChange(plate.id, targets[i % targets.length])));
    const winners = results.filter((r) => r.status === 201);
    expect(winners, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 201)) {
      expect([422, 409], JSON.stringify(loser.body)).toContain(loser.status);
      expect(loser.body.errors[0].code).toBe(loser.status === 422 ? 'invalid_transition' : 'concurrent_update');
    }
    const winner = winners[0]!.body.data;
    expect(winner.attributes.previous_state).toBe('pending');
    expect(await stateOf(qcable.id)).toBe(winner.attributes.target_state);
    // One state change recorded, and one state_changed event: the losers left nothing behind.
    const changes = await call('GET', '/api/v2/state_changes?page[size]=500&include=qcable');
    expect(changes.body.data.filter((c: any) => c.relationships.qcable.data.id === qcable.id).map((c: any) => c.id)).toEqual([winner.id]);
    const moved = (await outboxEvents()).filter((e) => e.type === 'qcables.state_changed' && e.resource.id === qcable.id);
    expect(moved).toHaveLength(1);
  });

  it('20 simultaneous changes whose targets chain (qc_in_progress, then failed): the successes form one chain of transitions', async () => {
    const { qcable, plate } = await createQcable('LOT-0003');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => postStateChange(plate.id, i % 2 === 0 ? 'qc_in_progress' : 'failed', { reason: 'QC' })),
    );
    for (const r of results) expect([201, 409, 422], JSON.stringify(r.body)).toContain(r.status);
    const winners = results.filter((r) => r.status === 201).map((r) => r.body.data.attributes);
    // Either failed straight from pending, or qc_in_progress and then failed from there: never two moves from one state.
    const chain = winners.sort((a, b) => (a.previous_state === 'pending' ? -1 : b.previous_state === 'pending' ? 1 : 0));
    expect(chain[0].previous_state).toBe('pending');
    for (let i = 1; i < chain.length; i++) expect(chain[i].previous_state).toBe(chain[i - 1].target_state);
    expect(await stateOf(qcable.id)).toBe(chain.at(-1).target_state);
    expect(await stateOf(qcable.id)).toBe('failed');
  });
});
