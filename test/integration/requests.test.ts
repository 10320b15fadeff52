import { beforeAll, describe, expect, it } from 'vitest';
import { slotId } from '#lib/domain/labware-ids.ts';
import { call, doc, warmKeyCache } from '../support/api.ts';
import { direct } from '../support/engine.ts';
import { createPlate, createTube, rel } from '../support/fixtures.ts';
import { createOrder, createRequest, patchState, requestDoc, requestState, workIds, type WorkIds } from '../support/requests.ts';
import { expectError, idsOf } from '../support/responses.ts';
import { seedRequestBook } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused, tableSnapshot } from '../support/table.ts';

/**
 * requests (contract §2, reference-behaviour.md §2.11, §3.2): POST with `request_type` and `asset`
 * (required), `submission` and `order` (set once), `role` and `priority` (write-once), an optional
 * `state`; PATCH of `state` only, by the request machine. `submission` and `order` always carry linkage.
 * Wells and tube receptacles list the requests out of them (`requests_as_source`), submissions theirs.
 * Every refused write is checked to leave the table as it was.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const well = (plate: any, slot: number) => ({ type: 'wells', id: String(slotId(Number(plate.id), slot)) });
const refusedPost = (body: unknown) => refused('POST', '/api/v2/requests', body);
const refusedPatch = (id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  refused('PATCH', `/api/v2/requests/${id}`, doc('requests', attributes, relationships, id));

let ids: WorkIds;
let plate: any;

beforeAll(async () => {
  ids = await workIds();
  plate = await createPlate();
});

describe('POST /requests', () => {
  it('creates a pending request of an order on a well: attributes, linkage of submission and order always rendered, readable back', async () => {
    const { submission, order } = await createOrder(ids.study, [ids.libraryCreation]);
    const res = await call('POST', '/api/v2/requests', {
      body: requestDoc({ asset: well(plate, 1), requestType: ids.libraryCreation, submission, order }, { role: 'ILC', priority: 'high' }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const request = res.body.data;
    expect(res.headers.Location).toBe(`${BASE}/requests/${request.id}`);
    expect(request.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      role: 'ILC',
      state: 'pending',
      priority: 'high',
      options: {},
      library_type: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const self = `${BASE}/requests/${request.id}`;
    const links = (name: string) => ({ links: { self: `${self}/relationships/${name}`, related: `${self}/${name}` } });
    // Contract §1.4: submission and order carry linkage although nothing was included; the others do not.
    expect(request.relationships).toEqual({
      submission: { ...links('submission'), data: { type: 'submissions', id: submission } },
      order: { ...links('order'), data: { type: 'orders', id: order } },
      request_type: links('request_type'),
      asset: links('asset'),
      target_asset: links('target_asset'),
      request_metadata: links('request_metadata'),
      primer_panel: links('primer_panel'),
      pre_capture_pool: links('pre_capture_pool'),
      poly_metadata: links('poly_metadata'),
      comments: links('comments'),
    });

    const read = await call('GET', `/api/v2/requests/${request.id}?include=asset,request_type,submission,order`);
    expect(read.status).toBe(200);
    expect(read.body.data.attributes).toEqual(request.attributes);
    expect(read.body.data.relationships.asset.data).toEqual(well(plate, 1));
    expect(read.body.data.relationships.request_type.data).toEqual({ type: 'request_types', id: ids.libraryCreation });
    expect(read.body.included.map((r: any) => `${r.type}/${r.id}`).sort()).toEqual(
      [`orders/${order}`, `request_types/${ids.libraryCreation}`, `submissions/${submission}`, `wells/${well(plate, 1).id}`].sort(),
    );
    expect(idsOf(await call('GET', `/api/v2/requests?filter[uuid]=${request.attributes.uuid}`))).toEqual([request.id]);
    // A sparse fieldset leaves the always-linked relationships out like any other field.
    const sparse = await call('GET', `/api/v2/requests/${request.id}?fields[requests]=uuid,state,library_type`);
    expect(sparse.body.data.relationships).toEqual({});
  });

  it('is found from its well, from the well’s plate and from its submission (reverse relationships)', async () => {
    const { submission, order } = await createOrder(ids.study);
    const first = await createRequest({ asset: well(plate, 2), requestType: ids.libraryCreation, submission, order });
    const second = await createRequest({ asset: well(plate, 2), requestType: ids.sequencing, submission, order });
    const other = await createRequest({ asset: well(plate, 3), requestType: ids.libraryCreation, order });

    const linkage = await call('GET', `/api/v2/wells/${well(plate, 2).id}/relationships/requests_as_source`);
    expect(linkage.body.data).toEqual([
      { type: 'requests', id: first.id },
      { type: 'requests', id: second.id },
    ]);
    const related = await call('GET', `/api/v2/wells/${well(plate, 3).id}/requests_as_source`);
    expect(idsOf(related)).toEqual([other.id]);
    expect(related.body.data[0].relationships.submission.data).toEqual({ type: 'submissions', id: submission });

    const page = await call('GET', `/api/v2/plates/${plate.id}?include=wells.requests_as_source.submission`);
    const wells = page.body.included.filter((r: any) => r.type === 'wells');
    expect(wells.find((w: any) => w.id === well(plate, 3).id).relationships.requests_as_source.data).toEqual([{ type: 'requests', id: other.id }]);
    expect(wells.find((w: any) => w.id === well(plate, 4).id).relationships.requests_as_source.data).toEqual([]);
    expect(page.body.included.filter((r: any) => r.type === 'submissions').map((r: any) => r.id)).toContain(submission);

    expect(idsOf(await call('GET', `/api/v2/submissions/${submission}/requests`))).toEqual([first.id, second.id, other.id]);
    expect((await call('GET', `/api/v2/submissions/${submission}/relationships/orders`)).body.data).toEqual([{ type: 'orders', id: order }]);
  });

  it('takes the submission of its order when none is named', async () => {
    const { submission, order } = await createOrder(ids.study);
    const request = await createRequest({ asset: well(plate, 5), requestType: ids.sequencing, order });
    expect(request.relationships.submission.data).toEqual({ type: 'submissions', id: submission });
    expect(request.relationships.order.data).toEqual({ type: 'orders', id: order });
    // Without an order or submission both render null linkage.
    const bare = await createRequest({ asset: well(plate, 5), requestType: ids.sequencing });
    expect(bare.relationships.submission.data).toBeNull();
    expect(bare.relationships.order.data).toBeNull();
  });

  it('starts in the state given (any state of the machine)', async () => {
    const held = await createRequest({ asset: well(plate, 6), requestType: ids.sequencing }, { state: 'hold' });
    expect(held.attributes.state).toBe('hold');
    expect((await createRequest({ asset: well(plate, 6), requestType: ids.sequencing }, { state: null })).attributes.state).toBe('pending');
  });

  it("starts from a tube's receptacle, and from a well named as a receptacle (stored as the well)", async () => {
    const tube = await createTube();
    const receptacle = { type: 'receptacles', id: String(slotId(Number(tube.id), 1)) };
    const fromTube = await createRequest({ asset: receptacle, requestType: ids.sequencing });
    expect((await call('GET', `/api/v2/receptacles/${receptacle.id}/relationships/requests_as_source`)).body.data).toEqual([
      { type: 'requests', id: fromTube.id },
    ]);
    expect((await call('GET', `/api/v2/tubes/${tube.id}?include=receptacle.requests_as_source`)).body.included.map((r: any) => r.type).sort()).toEqual([
      'receptacles',
      'requests',
    ]);

    const asReceptacle = await createRequest({ asset: { type: 'receptacles', id: well(plate, 7).id }, requestType: ids.sequencing });
    expect((await call('GET', `/api/v2/requests/${asReceptacle.id}/relationships/asset`)).body.data).toEqual(well(plate, 7));
    expect(idsOf(await call('GET', `/api/v2/wells/${well(plate, 7).id}/requests_as_source`))).toEqual([asReceptacle.id]);
  });

  it('emits requests.created', async () => {
    const request = await createRequest({ asset: well(plate, 8), requestType: ids.sequencing });
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'requests' && e.resource.id === request.id);
    expect(events.map((e) => e.type)).toEqual(['requests.created']);
    expect(events[0]!.data.attributes.state).toBe('pending');
    expect(events[0]!.data.relationships.submission.data).toBeNull();
  });

  it('requires request_type and asset (422 at each)', async () => {
    const none = await refusedPost(requestDoc({}));
    expect(expectError(none, 422, 'required', '/data/relationships/request_type').detail).toBe("request_type - can't be blank");
    expectError(none, 422, 'required', '/data/relationships/asset');
    expectError(await refusedPost(requestDoc({ asset: well(plate, 1) })), 422, 'required', '/data/relationships/request_type');
  });

  it('refuses a state that does not exist (422 naming the states) and one of the wrong type', async () => {
    const bad = expectError(
      await refusedPost(requestDoc({ asset: well(plate, 1), requestType: ids.sequencing }, { state: 'done' })),
      422,
      'invalid_value',
      '/data/attributes/state',
    );
    expect(bad.detail).toBe('state - a request has no state "done"; it may start in pending, started, passed, failed, cancelled, blocked, hold');
    expectError(
      await refusedPost(requestDoc({ asset: well(plate, 1), requestType: ids.sequencing }, { state: 3 })),
      422,
      'invalid_type',
      '/data/attributes/state',
    );
  });

  it('refuses an order of another submission, and a request type the order does not ask for (422 naming both)', async () => {
    const a = await createOrder(ids.study, [ids.libraryCreation]);
    const b = await createOrder(ids.study);
    const res = await refusedPost(requestDoc({ asset: well(plate, 1), requestType: ids.sequencing, submission: b.submission, order: a.order }));
    expect(expectError(res, 422, 'invalid_value', '/data/relationships/order').detail).toBe(
      `order - order ${a.order} belongs to submission ${a.submission}, not to submission ${b.submission}`,
    );
    expect(expectError(res, 422, 'invalid_value', '/data/relationships/request_type').detail).toBe(
      `request_type - request type ${ids.sequencing} is not one of the request types of order ${a.order} (${ids.libraryCreation})`,
    );
  });

  it('refuses bad values (422), unknown references (404), wrong linkage (400), read-only fields (400) and a client id (403)', async () => {
    const base = { asset: well(plate, 1), requestType: ids.sequencing };
    const priority = expectError(await refusedPost(requestDoc(base, { priority: 'urgent' })), 422, 'invalid_value', '/data/attributes/priority');
    expect(priority.detail).toMatch(/^priority - .*"high".*"medium".*"low".*, got "urgent"$/);
    expectError(await refusedPost(requestDoc(base, { role: '' })), 422, 'invalid_value', '/data/attributes/role');
    expectError(await refusedPost(requestDoc(base, { role: 7 })), 422, 'invalid_type', '/data/attributes/role');

    const unknown = await refusedPost(requestDoc({ asset: well(plate, 97), requestType: '999999', submission: '999999', order: '999999' }));
    for (const name of ['asset', 'request_type', 'submission', 'order']) expectError(unknown, 404, 'record_not_found', `/data/relationships/${name}/data`);
    expect(expectError(unknown, 404, 'record_not_found', '/data/relationships/asset/data').detail).toBe(`asset - no wells with id ${well(plate, 97).id}`);

    expectError(
      await refusedPost(requestDoc({ ...base, asset: { type: 'plates', id: plate.id } })),
      400,
      'type_mismatch',
      '/data/relationships/asset/data/type',
    );
    for (const name of ['options', 'library_type', 'uuid']) {
      const res = await refusedPost(requestDoc(base, { [name]: 'x' }));
      expect(expectError(res, 400, 'param_not_allowed', `/data/attributes/${name}`).detail).toBe(`${name} is not allowed (it is read-only)`);
    }
    expectError(
      await refusedPost(doc('requests', {}, { request_metadata: { data: null }, request_type: rel('request_types', ids.sequencing) })),
      400,
      'param_not_allowed',
      '/data/relationships/request_metadata',
    );
    expectError(await refusedPost({ data: { ...requestDoc(base).data, id: '5' } }), 403, 'client_generated_id', '/data/id');
  });
});

describe('PATCH /requests/{id}', () => {
  it('moves the state by the machine, emitting requests.state_changed each time', async () => {
    const request = await createRequest({ asset: well(plate, 10), requestType: ids.sequencing });
    const started = await patchState(request.id, 'started');
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.data.attributes.state).toBe('started');
    expect(started.body.data.relationships.submission.data).toBeNull();
    expect((await patchState(request.id, 'passed')).status).toBe(200);
    expect((await patchState(request.id, 'failed')).status).toBe(200);
    expect(await requestState(request.id)).toBe('failed');
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'requests' && e.resource.id === request.id);
    expect(events.map((e) => e.type).sort()).toEqual(['requests.created', 'requests.state_changed', 'requests.state_changed', 'requests.state_changed']);
    expect(
      events
        .filter((e) => e.type === 'requests.state_changed')
        .map((e) => e.data.attributes.state)
        .sort(),
    ).toEqual(['failed', 'passed', 'started']);
  });

  it('refuses a move the machine does not allow: 422 naming the current, the requested and the reachable states, nothing written', async () => {
    const request = await createRequest({ asset: well(plate, 11), requestType: ids.sequencing });
    const refusedMove = expectError(await refusedPatch(request.id, { state: 'passed' }), 422, 'invalid_transition', '/data/attributes/state');
    expect(refusedMove.detail).toBe('state - a request cannot move from pending to passed; from pending it can move to started, cancelled, blocked, hold');
    const unknown = expectError(await refusedPatch(request.id, { state: 'done' }), 422, 'invalid_transition', '/data/attributes/state');
    expect(unknown.detail).toBe('state - a request has no state done; from pending it can move to started, cancelled, blocked, hold');
    expectError(await refusedPatch(request.id, { state: null }), 422, 'required', '/data/attributes/state');
    expectError(await refusedPatch(request.id, { state: ['started'] }), 422, 'invalid_type', '/data/attributes/state');
    expect(await requestState(request.id)).toBe('pending');
  });

  it('answers a PATCH to the state it has, or of nothing, with the request, writing nothing', async () => {
    const request = await createRequest({ asset: well(plate, 12), requestType: ids.sequencing }, { state: 'blocked' });
    const before = await tableSnapshot();
    const same = await patchState(request.id, 'blocked');
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(request);
    const nothing = await call('PATCH', `/api/v2/requests/${request.id}`, { body: doc('requests', {}, undefined, request.id) });
    expect(nothing.status).toBe(200);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('refuses every field but state (400: set once or read-only), an unknown request (404) and a mismatched id (409)', async () => {
    const { submission, order } = await createOrder(ids.study);
    const request = await createRequest({ asset: well(plate, 13), requestType: ids.sequencing, submission, order }, { role: 'r', priority: 'low' });
    for (const name of ['role', 'priority']) {
      const res = await refusedPatch(request.id, { [name]: 'medium' });
      expect(expectError(res, 400, 'param_not_allowed', `/data/attributes/${name}`).detail).toBe(`${name} is not allowed (it can only be set on create)`);
    }
    expectError(await refusedPatch(request.id, { options: {} }), 400, 'param_not_allowed', '/data/attributes/options');
    const links = await refusedPatch(
      request.id,
      {},
      {
        submission: rel('submissions', submission),
        order: rel('orders', order),
        request_type: rel('request_types', ids.libraryCreation),
        asset: { data: well(plate, 14) },
      },
    );
    for (const name of ['submission', 'order', 'request_type', 'asset']) expectError(links, 400, 'param_not_allowed', `/data/relationships/${name}`);
    expectError(await call('PATCH', '/api/v2/requests/999999', { body: doc('requests', { state: 'started' }, undefined, '999999') }), 404, 'record_not_found');
    expectError(await refused('PATCH', `/api/v2/requests/${request.id}`, doc('requests', { state: 'started' }, undefined, '1')), 409, 'conflict', '/data/id');
  });
});

/** The request transitions among the states the concurrency test asks for (reference-behaviour.md §3.2, written out again). */
const MOVES: Record<string, readonly string[]> = {
  pending: ['started', 'hold', 'blocked', 'cancelled'],
  hold: ['started', 'cancelled', 'pending'],
  started: ['cancelled'],
  blocked: ['pending'],
  cancelled: ['pending'],
};

/** Whether the states in `moves` (each a state moved to) can be ordered into one chain of transitions from `from`, ending in `end`. */
function chains(from: string, moves: string[], end: string): boolean {
  if (moves.length === 0) return from === end;
  return [...new Set(moves)].some((to) => (MOVES[from] ?? []).includes(to) && chains(to, moves.toSpliced(moves.indexOf(to), 1), end));
}

describe('concurrent PATCHes of one request', () => {
  it('20 simultaneous moves from pending to different targets: every answer 200, 409 or 422, and the moves made form one chain to the stored state', async () => {
    const request = await createRequest({ asset: well(plate, 20), requestType: ids.sequencing });
    const targets = ['started', 'hold', 'blocked', 'cancelled'];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => patchState(request.id, targets[i % targets.length])));
    for (const [i, r] of results.entries()) {
      expect([200, 409, 422], JSON.stringify(r.body)).toContain(r.status);
      if (r.status === 200) expect(r.body.data.attributes.state).toBe(targets[i % targets.length]);
      if (r.status === 422) expect(r.body.errors[0].code).toBe('invalid_transition');
    }
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    // Each committed move wrote one state_changed event; each was conditional on the version it read, so
    // together they form one chain from pending, whatever order they committed in.
    const moves = (await outboxEvents())
      .filter((e) => e.type === 'requests.state_changed' && e.resource.id === request.id)
      .map((e) => e.data.attributes.state as string);
    expect(moves.length).toBeGreaterThan(0);
    // The oracle itself tells a chain from two moves out of one state.
    expect(chains('pending', ['started', 'hold'], 'hold')).toBe(false);
    const final = await requestState(request.id);
    expect(chains('pending', moves, final), `moves ${moves.join(', ')} ending in ${final}`).toBe(true);
  });
});

describe('call budget: requests out of the wells of a 96-well plate', () => {
  /** A request on each of the given wells, written straight into the table as the service stores them (one request book). */
  const seedRequests = (plateId: number, slots: number[]) =>
    seedRequestBook(
      { submission: null, labware: plateId },
      slots.map((slot) => ({ state: 'pending', requestType: Number(ids.sequencing), asset: ['wells', slotId(plateId, slot)] })),
    );

  it('GET /plates/{id}?include=wells.requests_as_source costs the same with requests on 3 wells as on all 96', async () => {
    const few = Number((await createPlate()).id);
    const all = Number((await createPlate()).id);
    await seedRequests(few, [1, 40, 96]);
    await seedRequests(
      all,
      Array.from({ length: 96 }, (_, i) => i + 1),
    );
    const a = await direct('GET', `/api/v2/plates/${few}?include=wells.requests_as_source`);
    const b = await direct('GET', `/api/v2/plates/${all}?include=wells.requests_as_source`);
    expect(a.document.included.filter((r: any) => r.type === 'requests')).toHaveLength(3);
    expect(b.document.included.filter((r: any) => r.type === 'requests')).toHaveLength(96);
    const withRequests = b.document.included.filter((r: any) => r.type === 'wells' && r.relationships.requests_as_source.data.length === 1);
    expect(withRequests).toHaveLength(96);
    // 3 calls either way: the plate (1 BatchGet, its wells inside it); the request books' index entries under
    // the plate (1 Query, for all wells at once); the books found (1 BatchGet per 100 books), holding the requests.
    expect(a.counts).toEqual({ BatchGetItem: 2, Query: 1 });
    expect(b.counts).toEqual(a.counts);

    // Through HTTP the same, the API key's lookup cached.
    await warmKeyCache();
    const http = await call('GET', `/api/v2/plates/${all}?include=wells.requests_as_source`);
    expect(http.status).toBe(200);
    expect(http.calls).toBe(3);
  });
});
