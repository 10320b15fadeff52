import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { createPlate, createRack, createTube, inBatches, rel } from '../support/fixtures.ts';
import { createOrder, createRequest, workIds } from '../support/requests.ts';
import { expectError, idsOf, statuses } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * comments (contract §7.5; the reference's CommentResource): a title and a description about a labware or
 * a request, by a user; each labware and request lists its own (`comments`, includable). Bad input refused
 * at its field with nothing written; 50 at once on distinct records and on one.
 */

beforeAll(freshStore);

const COMMENTS = '/api/v2/comments';
let admin: string;
beforeAll(async () => {
  admin = await idOf('users', 'login', 'admin');
});

const comment = (commentable: { type: string; id: string } | null, attributes: Record<string, unknown> = {}, user = true) =>
  doc(
    'comments',
    { title: 'Feedback', description: 'Looks cloudy', ...attributes },
    { commentable: { data: commentable }, ...(user ? { user: rel('users', admin) } : {}) },
  );

const created = (res: CallResult) => {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
};

async function newRequest(): Promise<{ type: string; id: string }> {
  const { study, sequencing } = await workIds();
  const { submission, order } = await createOrder(study, [sequencing]);
  const plate = await createPlate();
  const request = await createRequest({ asset: { type: 'wells', id: String(Number(plate.id) * 1000 + 1) }, requestType: sequencing, submission, order });
  return { type: 'requests', id: request.id };
}

describe('POST /comments', () => {
  it('comments on a plate, a tube, a rack and a request; each lists its own, includable', async () => {
    const targets = [await createPlate(), await createTube(), await createRack()].map((l) => ({ type: l.type, id: l.id }));
    targets.push(await newRequest());
    for (const target of targets) {
      const res = await call('POST', COMMENTS, { body: comment(target, { title: `About ${target.type}` }) });
      const data = created(res);
      expect(data.attributes).toMatchObject({ title: `About ${target.type}`, description: 'Looks cloudy' });
      expect(data.relationships.commentable.data).toEqual(target);
      // The commentable and the user read by id, the id, one transaction.
      expect(res.calls).toBeLessThanOrEqual(4);
      const listed = await call('GET', `/api/v2/${target.type}/${target.id}/comments`);
      expect(idsOf(listed)).toEqual([data.id]);
      const included = await call('GET', `/api/v2/${target.type}/${target.id}?include=comments`);
      expect(included.body.data.relationships.comments.data).toEqual([{ type: 'comments', id: data.id }]);
      expect(included.body.included.map((r: any) => r.attributes.title)).toEqual([`About ${target.type}`]);
      const user = await call('GET', `${COMMENTS}/${data.id}/user`);
      expect(user.body.data).toMatchObject({ type: 'users', id: admin });
    }
  });

  it('takes a comment without a user (the reference does not require one)', async () => {
    const plate = await createPlate();
    const data = created(await call('POST', COMMENTS, { body: comment({ type: 'plates', id: plate.id }, {}, false) }));
    expect((await call('GET', `${COMMENTS}/${data.id}/user`)).body.data).toBeNull();
  });

  it('writes a comments.created event that names what it is about', async () => {
    const plate = await createPlate();
    const data = created(await call('POST', COMMENTS, { body: comment({ type: 'plates', id: plate.id }) }));
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'comments' && e.resource.id === data.id);
    expect(events.map((e) => e.type)).toEqual(['comments.created']);
    expect(events[0]!.data.relationships.commentable.data).toEqual({ type: 'plates', id: plate.id });
    expect(events[0]!.actor).toMatchObject({ user: { type: 'users', id: admin } });
  });

  it('refuses each bad value at its field, writing nothing', async () => {
    const plate = { type: 'plates', id: (await createPlate()).id };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ title: undefined }, 'required', '/data/attributes/title'],
      [{ title: ' ' }, 'invalid_value', '/data/attributes/title'],
      [{ title: 1 }, 'invalid_type', '/data/attributes/title'],
      [{ description: undefined }, 'required', '/data/attributes/description'],
      [{ description: null }, 'required', '/data/attributes/description'],
      [{ description: ['x'] }, 'invalid_type', '/data/attributes/description'],
    ];
    for (const [change, code, pointer] of cases) expectError(await refused('POST', COMMENTS, comment(plate, change)), 422, code, pointer);
    expectError(await refused('POST', COMMENTS, comment(null)), 422, 'required', '/data/relationships/commentable');
    const unknown = expectError(
      await refused('POST', COMMENTS, comment({ type: 'plates', id: '999999' })),
      404,
      'record_not_found',
      '/data/relationships/commentable/data',
    );
    expect(unknown.detail).toContain('999999');
    const noUser = doc('comments', { title: 't', description: 'd' }, { commentable: { data: plate }, user: rel('users', '999999') });
    expectError(await refused('POST', COMMENTS, noUser), 404, 'record_not_found', '/data/relationships/user/data');
    // A sample is not commented on here: the linkage's type is refused.
    const res = await refused('POST', COMMENTS, comment({ type: 'samples', id: '1' }));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source.pointer).toBe('/data/relationships/commentable/data/type');
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

  it('50 comments on 50 tubes and 50 on one plate: 100 × 201, each listed with its labware', { timeout: BURST_BUDGET_MS + 60_000 }, async () => {
    const tubes = await inBatches(WRITERS, 10, () => createTube());
    const plate = await createPlate();
    const results = await Promise.all([
      ...tubes.map((t) => call('POST', COMMENTS, { body: comment({ type: 'tubes', id: t.id }) })),
      ...Array.from({ length: WRITERS }, (_, i) => call('POST', COMMENTS, { body: comment({ type: 'plates', id: plate.id }, { title: `note ${i}` }) })),
    ]);
    expect(statuses(results)).toEqual([`201 × ${2 * WRITERS}`]);
    const listed = await call('GET', `/api/v2/plates/${plate.id}/comments?page[size]=100`);
    expect(listed.body.data.map((c: any) => c.attributes.title).sort()).toEqual(Array.from({ length: WRITERS }, (_, i) => `note ${i}`).sort());
    for (const t of tubes.slice(0, 5)) expect(idsOf(await call('GET', `/api/v2/tubes/${t.id}/comments`))).toHaveLength(1);
  });
});
