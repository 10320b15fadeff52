import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { create, rel, rels } from '../support/fixtures.ts';
import { expectError, idsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * submissions and orders (contract §3): submissions POST with an optional `name` and `user`, `state`
 * read-only and `pending`; orders POST with `submission` and `study` required, optional `user` and
 * to-many `request_types`. Both GET with `filter[uuid]`; neither PATCH. Every refused write is checked to
 * leave the table as it was.
 */

beforeAll(freshStore);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let admin: string;
let study: string;
let sequencing: string;
let multiplexing: string;

beforeAll(async () => {
  admin = await idOf('users', 'login', 'admin');
  study = await idOf('studies', 'name', 'Study A');
  sequencing = await idOf('request_types', 'key', 'sequencing');
  multiplexing = await idOf('request_types', 'key', 'multiplexing');
});

const linkOf = async (type: string, id: string, relationship: string) => (await call('GET', `/api/v2/${type}/${id}/relationships/${relationship}`)).body.data;

describe('submissions', () => {
  it('creates a pending submission with a name and a user; readable by id and uuid', async () => {
    const submission = await create('submissions', { name: 'Run 42' }, { user: rel('users', admin) });
    expect(submission.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      name: 'Run 42',
      state: 'pending',
      // No request yet; `multiplexed?` is rendered only when fields[submissions] names it (lib/resources/submissions.ts).
      lanes_of_sequencing: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await call('GET', `/api/v2/submissions/${submission.id}`)).body.data).toEqual(submission);
    expect(idsOf(await call('GET', `/api/v2/submissions?filter[uuid]=${submission.attributes.uuid}`))).toEqual([submission.id]);
    expect(await linkOf('submissions', submission.id, 'user')).toEqual({ type: 'users', id: admin });
  });

  it('needs nothing: an empty POST makes a pending submission without name or user', async () => {
    const submission = await create('submissions');
    expect(submission.attributes).toMatchObject({ name: null, state: 'pending' });
    expect(await linkOf('submissions', submission.id, 'user')).toBeNull();
  });

  it('emits submissions.created naming the user as actor', async () => {
    const submission = await create('submissions', { name: 'Evented' }, { user: rel('users', admin) });
    const [event] = (await outboxEvents()).filter((e) => e.resource.type === 'submissions' && e.resource.id === submission.id);
    expect(event).toMatchObject({ type: 'submissions.created', actor: { user: { type: 'users', id: admin } } });
  });

  it('refuses state (400, read-only), a bad name (422), an unknown user (404), PATCH (405)', async () => {
    const state = await refused('POST', '/api/v2/submissions', doc('submissions', { state: 'ready' }));
    expect(expectError(state, 400, 'param_not_allowed', '/data/attributes/state').detail).toBe('state is not allowed (it is read-only)');
    expectError(await refused('POST', '/api/v2/submissions', doc('submissions', { name: '' })), 422, 'invalid_value', '/data/attributes/name');
    expectError(await refused('POST', '/api/v2/submissions', doc('submissions', { name: 5 })), 422, 'invalid_type', '/data/attributes/name');
    expectError(
      await refused('POST', '/api/v2/submissions', doc('submissions', {}, { user: rel('users', 999999) })),
      404,
      'record_not_found',
      '/data/relationships/user/data',
    );
    const submission = await create('submissions');
    const patch = await call('PATCH', `/api/v2/submissions/${submission.id}`, { body: doc('submissions', { name: 'x' }, undefined, submission.id) });
    expectError(patch, 405, 'method_not_allowed');
    expectError(await call('GET', '/api/v2/submissions?filter[state]=pending'), 400, 'filter_not_allowed');
  });
});

describe('orders', () => {
  it('creates an order of a submission for a study, with a user and request types; readable back with includes', async () => {
    const submission = await create('submissions', { name: 'With orders' });
    const order = await create(
      'orders',
      {},
      {
        submission: rel('submissions', submission.id),
        study: rel('studies', study),
        user: rel('users', admin),
        request_types: rels('request_types', [multiplexing, sequencing]),
      },
    );
    // request_options are an order's from a template (test/integration/limber-submissions.test.ts); none here.
    expect(order.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      request_options: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const read = await call('GET', `/api/v2/orders/${order.id}?include=submission,study,user,request_types`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const { relationships } = read.body.data;
    expect(relationships.submission.data).toEqual({ type: 'submissions', id: submission.id });
    expect(relationships.study.data).toEqual({ type: 'studies', id: study });
    expect(relationships.user.data).toEqual({ type: 'users', id: admin });
    expect(relationships.request_types.data).toEqual([
      { type: 'request_types', id: multiplexing },
      { type: 'request_types', id: sequencing },
    ]);
    expect(read.body.included.map((r: any) => r.type).sort()).toEqual(['request_types', 'request_types', 'studies', 'submissions', 'users']);
    expect(idsOf(await call('GET', `/api/v2/orders?filter[uuid]=${order.attributes.uuid}`))).toEqual([order.id]);
  });

  it('needs only submission and study', async () => {
    const submission = await create('submissions');
    const order = await create('orders', {}, { submission: rel('submissions', submission.id), study: rel('studies', study) });
    expect(await linkOf('orders', order.id, 'request_types')).toEqual([]);
    expect(await linkOf('orders', order.id, 'user')).toBeNull();
  });

  it('requires submission and study (422 at each), writing nothing', async () => {
    const submission = await create('submissions');
    const none = await refused('POST', '/api/v2/orders', doc('orders', {}));
    expectError(none, 422, 'required', '/data/relationships/submission');
    expectError(none, 422, 'required', '/data/relationships/study');
    expectError(await refused('POST', '/api/v2/orders', doc('orders', {}, { submission: rel('submissions', submission.id) })), 422, 'required');
    expectError(
      await refused('POST', '/api/v2/orders', doc('orders', {}, { submission: { data: null }, study: rel('studies', study) })),
      422,
      'required',
      '/data/relationships/submission',
    );
  });

  it('answers 404 with pointers for unknown references, 400 for wrong linkage types', async () => {
    const submission = await create('submissions');
    const unknown = await refused(
      'POST',
      '/api/v2/orders',
      doc('orders', {}, { submission: rel('submissions', 999999), study: rel('studies', study), request_types: rels('request_types', [sequencing, '999999']) }),
    );
    expectError(unknown, 404, 'record_not_found', '/data/relationships/submission/data');
    expectError(unknown, 404, 'record_not_found', '/data/relationships/request_types/data/1');
    expectError(
      await refused('POST', '/api/v2/orders', doc('orders', {}, { submission: rel('submissions', submission.id), study: rel('users', admin) })),
      400,
      'type_mismatch',
    );
    expectError(
      await refused(
        'POST',
        '/api/v2/orders',
        doc('orders', {}, { submission: rel('submissions', submission.id), study: rel('studies', study), request_types: rel('request_types', sequencing) }),
      ),
      400,
      'invalid_linkage',
    );
  });

  it('refuses unknown attributes (400) and PATCH (405)', async () => {
    const submission = await create('submissions');
    expectError(
      await refused(
        'POST',
        '/api/v2/orders',
        doc('orders', { order_type: 'x' }, { submission: rel('submissions', submission.id), study: rel('studies', study) }),
      ),
      400,
      'param_not_allowed',
    );
    const order = await create('orders', {}, { submission: rel('submissions', submission.id), study: rel('studies', study) });
    expectError(await call('PATCH', `/api/v2/orders/${order.id}`, { body: doc('orders', {}, undefined, order.id) }), 405, 'method_not_allowed');
  });
});
