import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, rel } from '../support/fixtures.ts';
import { adminUuid, filledPlate, postTransfer, templateUuid, uuidOf } from '../support/lab.ts';
import { createQcable, moveQcable, stateOf } from '../support/qc.ts';
import { createOrder, createRequest, requestState, workIds } from '../support/requests.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';
import { adminId, changeState, plateView, requestsOfSubmission, stamp, workPlate, workTube } from '../support/work.ts';

/**
 * State changes of labware without a qcable (contract §6, reference-behaviour.md §7.3), over HTTP as Limber
 * sends them: the transfer requests into the targeted wells move to the target state, and with them the
 * requests their material is bound for. Every refused change leaves the table as it was.
 */

beforeAll(freshStore);

const refusedChange = async (target: any, attributes: Record<string, unknown>) =>
  refused('POST', '/api/v2/state_changes', doc('state_changes', { target_uuid: target.attributes.uuid, user_uuid: await adminUuid(), ...attributes }));

describe('standard plates', () => {
  it('passing a stamped plate passes every well and starts the outer requests (the first pass); the change is recorded on the plate', async () => {
    const { plate, submission } = await workPlate(4);
    const change = await changeState(plate, 'passed');
    expect(change.attributes).toMatchObject({ previous_state: 'pending', target_state: 'passed', contents: null, customer_accepts_responsibility: false });
    const view = await plateView(plate.id);
    expect(view.state).toBe('passed');
    expect([...view.wells].filter(([, w]) => w.requests.length > 0).map(([p, w]) => `${p}:${w.state}`)).toEqual([
      'A1:passed',
      'B1:passed',
      'C1:passed',
      'D1:passed',
    ]);
    expect([...view.wells.values()].filter((w) => w.requests.length === 0).every((w) => w.state === 'pending')).toBe(true);
    expect((await requestsOfSubmission(submission)).map((r) => r.attributes.state)).toEqual(['started', 'started', 'started', 'started']);

    const read = await call('GET', `/api/v2/plates/${plate.id}?include=state_changes`);
    expect(read.body.data.relationships.state_changes.data).toEqual([{ type: 'state_changes', id: change.id }]);
    const target = await call('GET', `/api/v2/state_changes/${change.id}/target`);
    // The reference's `class_name: "Labware"` (contract §7.4): the target answers as `labware`.
    expect(target.body.data).toMatchObject({ type: 'labware', id: plate.id });

    const events = await outboxEvents();
    expect(events.filter((e) => e.type === 'plates.state_changed' && e.resource.id === plate.id)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'state_changes.created' && e.resource.id === change.id)).toHaveLength(1);
    const requests = new Set((await requestsOfSubmission(submission)).map((r) => r.id));
    expect(events.filter((e) => e.type === 'requests.state_changed' && requests.has(e.resource.id))).toHaveLength(4);
  });

  it('contents: fails one well (with a reason), fails its request marked as the customer’s responsibility, leaves the others', async () => {
    const { plate } = await workPlate(3);
    await changeState(plate, 'passed');
    const change = await changeState(plate, 'failed', { contents: ['B1'], reason: 'Low yield', customer_accepts_responsibility: true });
    expect(change.attributes).toMatchObject({
      previous_state: 'passed',
      target_state: 'failed',
      contents: ['B1'],
      customer_accepts_responsibility: true,
      reason: 'Low yield',
    });
    const view = await plateView(plate.id);
    // 2 passed wells and 1 failed: the plate is passed (reference §7.2).
    expect(view.state).toBe('passed');
    expect(['A1', 'B1', 'C1'].map((p) => view.wells.get(p)!.state)).toEqual(['passed', 'failed', 'passed']);
    const [a1, b1, c1] = ['A1', 'B1', 'C1'].map((p) => view.wells.get(p)!.requests[0]!);
    expect([a1!.state, b1!.state, c1!.state]).toEqual(['started', 'failed', 'started']);
    expect(b1!.options).toEqual({ customer_accepts_responsibility: true });
    expect(a1!.options).toEqual({});
  });

  it('a repeated change to the state the wells are in is recorded and moves nothing (Limber may send it twice)', async () => {
    const { plate } = await workPlate(2);
    await changeState(plate, 'passed');
    const again = await changeState(plate, 'passed');
    expect(again.attributes.previous_state).toBe('passed');
    const events = await outboxEvents();
    expect(events.filter((e) => e.type === 'plates.state_changed' && e.resource.id === plate.id)).toHaveLength(2);
    const requests = new Set((await plateView(plate.id)).wells.get('A1')!.requests.map((r) => r.id));
    expect(events.filter((e) => e.type === 'requests.state_changed' && requests.has(e.resource.id))).toHaveLength(1);
    expect((await plateView(plate.id)).state).toBe('passed');
  });

  it('refuses a move the machine does not allow for a targeted well: 422 naming the well, its state and the reachable ones; nothing written', async () => {
    const { plate } = await workPlate(2);
    await changeState(plate, 'passed');
    const res = await refusedChange(plate, { target_state: 'started' });
    const error = expectError(res, 422, 'invalid_transition', '/data/attributes/target_state');
    expect(error.detail).toBe(
      'target_state - well A1 is passed: a transfer request cannot move from passed to started; from passed it can move to failed, qc_complete, cancelled',
    );
    expect(res.body.errors).toHaveLength(2);
    expect(res.body.errors[1].detail).toContain('well B1 is passed');
  });

  it('refuses a change that would move nothing, an unknown state, a position the plate does not have, a failure without reason', async () => {
    const empty = await createPlate('Working Dilution');
    const nothing = expectError(await refusedChange(empty, { target_state: 'passed' }), 422, 'invalid_value', '/data/attributes/target_state');
    expect(nothing.detail).toBe(`target_state - no targeted receptacle of plates ${empty.id} has a transfer request into it: the change would move nothing`);
    const { plate } = await workPlate(1);
    const unknown = expectError(await refusedChange(plate, { target_state: 'done' }), 422, 'invalid_value', '/data/attributes/target_state');
    expect(unknown.detail).toContain('there is no state done');
    const outside = expectError(
      await refusedChange(plate, { target_state: 'passed', contents: ['A1', 'Z99'] }),
      422,
      'invalid_value',
      '/data/attributes/contents/1',
    );
    expect(outside.detail).toBe(`contents - "Z99" is not a well of plates ${plate.id}`);
    const onlyEmpty = expectError(await refusedChange(plate, { target_state: 'passed', contents: ['H12'] }), 422, 'invalid_value');
    expect(onlyEmpty.detail).toContain('would move nothing');
    expectError(await refusedChange(plate, { target_state: 'failed' }), 422, 'required', '/data/attributes/reason');
    expectError(await refusedChange(plate, { target_state: 'passed', contents: 'A1' }), 422, 'invalid_type', '/data/attributes/contents');
    expectError(
      await refusedChange(plate, { target_state: 'passed', customer_accepts_responsibility: 'yes' }),
      422,
      'invalid_value',
      '/data/attributes/customer_accepts_responsibility',
    );
    expectError(await refusedChange(plate, { target_state: 'passed', previous_state: 'pending' }), 400, 'param_not_allowed');
    const noUser = await refused('POST', '/api/v2/state_changes', doc('state_changes', { target_uuid: plate.attributes.uuid, target_state: 'passed' }));
    expectError(noUser, 422, 'required', '/data/relationships/user');
  });

  it('a pending request does not fail with its well (its work never started); a failed well passes again', async () => {
    const { plate, submission } = await workPlate(1);
    await changeState(plate, 'failed', { reason: 'wrong plate' });
    const [request] = await requestsOfSubmission(submission);
    expect(request.attributes.state).toBe('pending');
    expect((await plateView(plate.id)).state).toBe('failed');
    await changeState(plate, 'passed');
    expect((await plateView(plate.id)).state).toBe('passed');
  });

  it('takes the target and user as relationships too', async () => {
    const { plate } = await workPlate(1);
    const res = await call('POST', '/api/v2/state_changes', {
      body: doc('state_changes', { target_state: 'started' }, { target: rel('plates', plate.id), user: rel('users', await adminId()) }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await plateView(plate.id)).state).toBe('started');
  });
});

describe('tag plates', () => {
  it('an unconverted tag plate moves its qcable; converted to a library purpose (Limber’s tagged plate), its wells move and the qcable stays used', async () => {
    const { stock } = await workPlate(2);
    const { qcable, plate: tagPlate } = await createQcable('LOT-0002');
    await moveQcable(tagPlate.id, 'pending');
    await moveQcable(tagPlate.id, 'available');
    await stamp(stock, tagPlate);
    await changeState(tagPlate, 'exhausted');
    expect(await stateOf(qcable.id)).toBe('exhausted');

    const conversion = await call('POST', '/api/v2/plate_conversions', {
      body: doc('plate_conversions', {
        parent_uuid: stock.attributes.uuid,
        purpose_uuid: await uuidOf('plate_purposes', 'name', 'Library Plate'),
        target_uuid: tagPlate.attributes.uuid,
        user_uuid: await adminUuid(),
      }),
    });
    expect(conversion.status, JSON.stringify(conversion.body)).toBe(201);
    const change = await changeState(tagPlate, 'passed');
    expect(change.attributes.previous_state).toBe('pending');
    const view = await plateView(tagPlate.id);
    expect(view.state).toBe('passed');
    expect([...view.wells].filter(([, w]) => w.requests.length > 0).map(([p, w]) => `${p}:${w.state}`)).toEqual(['A1:passed', 'B1:passed']);
    expect(await stateOf(qcable.id)).toBe('exhausted');
  });
});

describe('input plates', () => {
  it('failing wells of a stock plate fails the started requests out of them; no transfer request moves', async () => {
    const { stock, submission } = await workPlate(2, 'Working Dilution', 'started');
    const owned = async () => (await call('GET', `/api/v2/plates?filter[user_uuid]=${await adminUuid()}&filter[id]=${stock.id}`)).body.data;
    // The stock plate was filled without a user: nobody owns it until the state change, whose user then does (the reference's plate owner).
    expect(await owned()).toEqual([]);
    await changeState(stock, 'failed', { contents: ['A1'], reason: 'contaminated' });
    expect((await owned()).map((p: any) => p.id)).toEqual([stock.id]);
    expect(await requestsOfSubmission(submission)).toHaveLength(2);
    // Each well's request, read from the well (request ids follow creation, which ran concurrently).
    const res = await call('GET', `/api/v2/plates/${stock.id}?include=wells.requests_as_source`);
    const requestState = (well: any) =>
      res.body.included.find((r: any) => r.type === 'requests' && r.id === well.relationships.requests_as_source.data[0]?.id)?.attributes.state;
    const byWell = Object.fromEntries(
      res.body.included
        .filter((r: any) => r.type === 'wells' && r.relationships.requests_as_source.data.length > 0)
        .map((w: any) => [w.attributes.position.name, requestState(w)]),
    );
    expect(byWell).toEqual({ A1: 'failed', B1: 'started' });
    expect((await plateView(stock.id)).state).toBe('pending');
  });

  it('a stock plate with no request out of the targeted wells: nothing to change (422)', async () => {
    const { stock } = await workPlate(1);
    const error = expectError(await refusedChange(stock, { target_state: 'failed', reason: 'x', contents: ['B1'] }), 422, 'invalid_value');
    expect(error.detail).toContain('has a request out of it: the change would move nothing');
  });
});

const tubeState = async (id: string) => (await call('GET', `/api/v2/tubes/${id}`)).body.data.attributes.state;

describe('tubes', () => {
  it('stock tubes: passing moves the transfer request; failing fails the started request, marked when asked', async () => {
    const { tube, request } = await workTube('Stock Tube', 'started');
    await changeState(tube, 'passed');
    expect(await tubeState(tube.id)).toBe('passed');
    expect(await requestState(request)).toBe('started');
    await changeState(tube, 'failed', { reason: 'broken', customer_accepts_responsibility: true });
    expect(await tubeState(tube.id)).toBe('failed');
    const failed = (await call('GET', `/api/v2/requests/${request}`)).body.data.attributes;
    expect(failed).toMatchObject({ state: 'failed', options: { customer_accepts_responsibility: true } });
    // A failed stock tube's transfer requests are left by a later change: nothing moves, so nothing to change.
    const again = expectError(await refusedChange(tube, { target_state: 'passed' }), 422, 'invalid_value');
    expect(again.detail).toBe(
      `target_state - no targeted receptacle of tubes ${tube.id} has a transfer request into it that is not failed or cancelled: the change would move nothing`,
    );
  });

  it('initial stock tubes: any target but failed, cancelled and pending starts the pending outer requests', async () => {
    const { tube, request } = await workTube('Library Tube');
    await changeState(tube, 'started');
    expect(await requestState(request)).toBe('started');
    expect(await tubeState(tube.id)).toBe('started');
  });

  it('MX tubes: passing moves the transfer request and starts the request its material is bound for', async () => {
    const { tube, request } = await workTube('MX Tube');
    await changeState(tube, 'passed');
    expect(await tubeState(tube.id)).toBe('passed');
    expect(await requestState(request)).toBe('started');
  });

  describe('an MX tube a by-submission transfer made: the tube all its submission’s multiplexed requests end in (the reference’s Submission#multiplexed_labware)', () => {
    /**
     * A plate of two tagged samples whose wells each have a library request and a multiplexing request of
     * one submission (and a multiplexing request of another submission out of A1), pooled into that
     * submission's MX tube by a by-submission transfer.
     */
    async function pooledTube() {
      const { study, libraryCreation } = await workIds();
      const multiplexing = await idOf('request_types', 'key', 'multiplexing');
      const { plate } = await filledPlate(2);
      const tagged = await call('POST', '/api/v2/tag_layouts', {
        body: doc('tag_layouts', {
          plate_uuid: plate.attributes.uuid,
          tag_layout_template_uuid: await uuidOf('tag_layout_templates', 'name', 'Test dual column'),
          user_uuid: await adminUuid(),
        }),
      });
      expect(tagged.status, JSON.stringify(tagged.body)).toBe(201);
      const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=2`)).body.data.map((w: any) => ({ type: 'wells', id: w.id }));
      const { submission, order } = await createOrder(study, [libraryCreation, multiplexing]);
      const library: string[] = [];
      const multiplexed: string[] = [];
      for (const asset of wells) library.push((await createRequest({ submission, order, requestType: libraryCreation, asset })).id);
      for (const asset of wells) multiplexed.push((await createRequest({ submission, order, requestType: multiplexing, asset })).id);
      const other = await createOrder(study, [multiplexing]);
      const elsewhere = (await createRequest({ ...other, requestType: multiplexing, asset: wells[0] })).id;
      const pooled = await postTransfer({
        template: await templateUuid('Transfer wells to MX library tubes by submission'),
        source: plate.attributes.uuid,
        user: await adminUuid(),
      });
      expect(pooled.status, JSON.stringify(pooled.body)).toBe(201);
      const tubes = [...new Set(Object.values(pooled.body.data.attributes.transfers).map((t: any) => t.uuid))];
      expect(tubes).toHaveLength(1);
      const tube = (await call('GET', `/api/v2/tubes?filter[uuid]=${tubes[0]}`)).body.data[0];
      expect((await call('GET', `/api/v2/tubes/${tube.id}/purpose`)).body.data.attributes.name).toBe('MX Tube');
      return { tube, library, multiplexed, elsewhere };
    }
    const states = async (ids: string[]) => Promise.all(ids.map(requestState));

    it('passing it passes them (pending ones too, as the reference’s Request::Multiplexing may); its library requests start; another submission’s stay', async () => {
      const { tube, library, multiplexed, elsewhere } = await pooledTube();
      await changeState(tube, 'passed');
      expect(await tubeState(tube.id)).toBe('passed');
      expect(await states(multiplexed)).toEqual(['passed', 'passed']);
      expect(await states(library)).toEqual(['started', 'started']);
      expect(await requestState(elsewhere)).toBe('pending');
    });

    it('failing it fails them, marked as the customer’s responsibility when asked', async () => {
      const { tube, multiplexed, elsewhere } = await pooledTube();
      await changeState(tube, 'failed', { reason: 'Low concentration', customer_accepts_responsibility: true });
      expect(await states(multiplexed)).toEqual(['failed', 'failed']);
      const read = await Promise.all(multiplexed.map(async (id) => (await call('GET', `/api/v2/requests/${id}`)).body.data.attributes.options));
      expect(read).toEqual([{ customer_accepts_responsibility: true }, { customer_accepts_responsibility: true }]);
      expect(await requestState(elsewhere)).toBe('pending');
    });
  });

  it('a tube has no positions: contents naming one is refused', async () => {
    const { tube } = await workTube('Stock Tube');
    const error = expectError(await refusedChange(tube, { target_state: 'passed', contents: ['A1'] }), 422, 'invalid_value', '/data/attributes/contents/0');
    expect(error.detail).toBe(`contents - "A1" is not a position (a tube has none) of tubes ${tube.id}`);
  });
});

describe('tube racks', () => {
  it('moves the transfer requests of the racked tubes at the coordinates named, or of all; other coordinates are refused', async () => {
    const [a, b] = [await workTube('Stock Tube'), await workTube('Stock Tube')];
    const rack = (
      await call('POST', '/api/v2/tube_racks', {
        body: doc('tube_racks', { size: 96, tube_locations: { A1: { uuid: a.tube.attributes.uuid }, B1: { uuid: b.tube.attributes.uuid } } }),
      })
    ).body.data;
    const change = await changeState(rack, 'started', { contents: ['a1'] });
    expect(change.attributes.previous_state).toBe('pending');
    expect([await tubeState(a.tube.id), await tubeState(b.tube.id)]).toEqual(['started', 'pending']);
    await changeState(rack, 'passed');
    expect([await tubeState(a.tube.id), await tubeState(b.tube.id)]).toEqual(['passed', 'passed']);
    const events = await outboxEvents();
    expect(events.filter((e) => e.type === 'tubes.state_changed' && e.resource.id === a.tube.id)).toHaveLength(2);
    expect(events.filter((e) => e.type === 'tube_racks.state_changed' && e.resource.id === rack.id)).toHaveLength(2);
    expectError(await refusedChange(rack, { target_state: 'failed', reason: 'x', contents: ['C1'] }), 422, 'invalid_value', '/data/attributes/contents/0');
    expectError(await refusedChange(rack, { target_state: 'started' }), 422, 'invalid_transition');
  });
});
