import { beforeAll, describe, expect, it } from 'vitest';
import { slotUuid } from '#lib/domain/labware-ids.ts';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { purposeId, rel } from '../support/fixtures.ts';
import { adminUuid, uuidOf } from '../support/lab.ts';
import { expectError, statuses } from '../support/responses.ts';
import { seedPlates, seedSamples } from '../support/seed.ts';
import { withRequestBudget } from '../support/request-budget.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * work_orders (contract §7.5; the reference's WorkOrderResource, WorkOrder, WorkOrder::Factory and
 * Request::Traction::GridIon): one per source receptacle when a submission of `traction_grid_ion` requests
 * is built, over that receptacle's requests; PATCH `state` and `at_risk` change the work order and each of
 * its requests. Bad input refused at its member with nothing written; 50 PATCHes at once.
 */

beforeAll(freshStore);

const WORK_ORDERS = '/api/v2/work_orders';
let study: string;
let project: string;
beforeAll(async () => {
  [study, project] = await Promise.all([idOf('studies', 'name', 'Study A'), idOf('projects', 'name', 'Project A')]);
});

let plates = 0;
/** A plate of `wells` filled wells (one sample each, of Study A) submitted with a template and options; answers the plate and the submission's id. */
async function submitted(
  wells: number,
  template: string,
  requestOptions: Record<string, unknown>,
): Promise<{ plate: { id: number; uuid: string }; submission: string }> {
  const name = `WO-${Date.now()}-${++plates}`;
  const samples = await seedSamples(wells, name);
  const purpose = Number(await purposeId('plate_purposes', 'Stock Plate'));
  const [plate] = await seedPlates(1, purpose, `${name}-`, 96, (_, slot) => (slot <= wells ? [{ sample: samples[slot - 1]!.id, study: Number(study) }] : []));
  const user = await adminUuid();
  const order = await call('POST', '/api/v2/orders', {
    body: doc(
      'orders',
      {
        submission_template_uuid: await uuidOf('submission_templates', 'name', template),
        submission_template_attributes: {
          request_options: requestOptions,
          user_uuid: user,
          asset_uuids: Array.from({ length: wells }, (_, i) => slotUuid(plate!.uuid, i + 1)),
        },
      },
      { project: rel('projects', project) },
    ),
  });
  expect(order.status, JSON.stringify(order.body)).toBe(201);
  const submission = await call('POST', '/api/v2/submissions', {
    body: doc('submissions', { and_submit: true, order_uuids: [order.body.data.attributes.uuid], user_uuid: user }),
  });
  expect(submission.status, JSON.stringify(submission.body)).toBe(201);
  return { plate: plate!, submission: submission.body.data.id };
}

const GRID_ION = 'Traction - GridION';
const OPTIONS = { library_type: 'Rapid', data_type: 'basecalls' };

/** The work orders of a plate's wells, by source receptacle id (filtered by the listing, then by receptacle). */
async function workOrdersOf(plate: { id: number }): Promise<Map<number, any>> {
  const res = await call('GET', `${WORK_ORDERS}?page[size]=100&include=source_receptacle`);
  expect(res.status).toBe(200);
  return new Map(
    res.body.data
      .map((w: any) => [Number(w.relationships.source_receptacle.data.id), w] as const)
      .filter(([receptacle]: [number]) => Math.floor(receptacle / 1000) === plate.id),
  );
}

/** The requests of a submission, by id (their assets' linkage included). */
async function requestsOf(submission: string): Promise<Map<string, any>> {
  const res = await call('GET', `/api/v2/submissions/${submission}/requests?page[size]=500&include=asset`);
  return new Map(res.body.data.map((r: any) => [r.id, r]));
}

const patch = (id: string, attributes: Record<string, unknown>) => doc('work_orders', attributes, undefined, id);
const ok = (res: CallResult) => {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

describe('work orders made with a GridION submission', () => {
  it('one per source receptacle, over its requests, for its order study and project, with its samples and options', async () => {
    const { plate, submission } = await submitted(3, GRID_ION, { ...OPTIONS, multiplier: { traction_grid_ion: 2 } });
    const made = await workOrdersOf(plate);
    expect([...made.keys()].sort()).toEqual([1, 2, 3].map((slot) => plate.id * 1000 + slot));
    const requests = await requestsOf(submission);
    expect(requests.size).toBe(6);
    for (const [receptacle, workOrder] of made) {
      expect(workOrder.attributes).toMatchObject({
        at_risk: false,
        order_type: 'traction_grid_ion',
        quantity: { number: 2, unit_of_measurement: 'flowcells' },
        state: 'pending',
        options: expect.objectContaining(OPTIONS),
      });
      const read = await call('GET', `${WORK_ORDERS}/${workOrder.id}?include=study,project,samples,source_receptacle`);
      expect(read.body.data.relationships.study.data).toEqual({ type: 'studies', id: study });
      expect(read.body.data.relationships.project.data).toEqual({ type: 'projects', id: project });
      expect(read.body.data.relationships.samples.data).toHaveLength(1);
      expect(read.body.data.relationships.source_receptacle.data).toEqual({ type: 'wells', id: String(receptacle) });
    }
    const created = (await outboxEvents()).filter((e) => e.type === 'work_orders.created');
    expect(created.map((e) => e.resource.id).sort()).toEqual([...made.values()].map((w) => w.id).sort());
  });

  it('filters by order_type and state; none for a submission of other request types', async () => {
    const { plate } = await submitted(2, 'Library Creation - Illumina', {});
    expect((await workOrdersOf(plate)).size).toBe(0);
    const gridIon = await submitted(1, GRID_ION, OPTIONS);
    const [workOrder] = (await workOrdersOf(gridIon.plate)).values();
    const ids = async (query: string) => (await call('GET', `${WORK_ORDERS}?${query}&page[size]=100`)).body.data.map((w: any) => w.id);
    expect(await ids('filter[order_type]=traction_grid_ion')).toContain(workOrder.id);
    expect(await ids('filter[order_type]=cherrypick')).toEqual([]);
    expect(await ids('filter[state]=pending')).toContain(workOrder.id);
    expect(await ids('filter[state]=passed')).not.toContain(workOrder.id);
    expectError(await call('GET', `${WORK_ORDERS}?filter[state]=flying`), 400);
  });
});

describe('PATCH /work_orders/{id}', () => {
  it("changes state and at_risk on the work order and on each of its requests (the reference's WorkOrder#state=, #at_risk=)", async () => {
    const { plate, submission } = await submitted(2, GRID_ION, { ...OPTIONS, multiplier: { traction_grid_ion: 2 } });
    const [first, second] = [...(await workOrdersOf(plate)).values()];
    const res = await call('PATCH', `${WORK_ORDERS}/${first.id}`, { body: patch(first.id, { state: 'started', at_risk: true }) });
    const changed = ok(res);
    // The work order, its requests' books (one batch), one transaction, the API key: at most 4.
    expect(res.calls).toBeLessThanOrEqual(4);
    expect(changed.attributes).toMatchObject({ state: 'started', at_risk: true, options: expect.objectContaining({ customer_accepts_responsibility: true }) });
    const requests = [...(await requestsOf(submission)).values()];
    const of = (w: any) => requests.filter((r) => r.relationships.asset.data.id === w.relationships.source_receptacle.data.id);
    expect(of(first).map((r) => [r.attributes.state, r.attributes.options.customer_accepts_responsibility])).toEqual([
      ['started', true],
      ['started', true],
    ]);
    // The other work order's requests are untouched.
    expect(of(second).map((r) => r.attributes.state)).toEqual(['pending', 'pending']);
    const read = await call('GET', `${WORK_ORDERS}/${first.id}`);
    expect(read.body.data.attributes).toMatchObject({ state: 'started', at_risk: true });
    // Back off the risk alone.
    expect(ok(await call('PATCH', `${WORK_ORDERS}/${first.id}`, { body: patch(first.id, { at_risk: false }) })).attributes).toMatchObject({
      state: 'started',
      at_risk: false,
    });
  });

  it('refuses each bad value at its member, writing nothing', async () => {
    const { plate } = await submitted(1, GRID_ION, OPTIONS);
    const [workOrder] = (await workOrdersOf(plate)).values();
    const path = `${WORK_ORDERS}/${workOrder.id}`;
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ state: 'flying' }, 422, 'invalid_value', '/data/attributes/state'],
      [{ state: 3 }, 422, 'invalid_value', '/data/attributes/state'],
      [{ state: null }, 422, 'required', '/data/attributes/state'],
      [{ at_risk: 'yes' }, 422, 'invalid_type', '/data/attributes/at_risk'],
      [{ at_risk: null }, 422, 'required', '/data/attributes/at_risk'],
      [{ order_type: 'cherrypick' }, 400, '', '/data/attributes/order_type'],
      [{ quantity: { number: 3, unit_of_measurement: 'flowcells' } }, 400, '', '/data/attributes/quantity'],
      [{ options: {} }, 400, '', '/data/attributes/options'],
    ];
    for (const [attributes, status, code, pointer] of cases) {
      const res = await refused('PATCH', path, patch(workOrder.id, attributes));
      const error = expectError(res, status, undefined, pointer);
      if (code) expect(error.code, JSON.stringify(res.body)).toBe(code);
    }
    expectError(await refused('PATCH', `${WORK_ORDERS}/999999`, patch('999999', { state: 'started' })), 404);
    expectError(await refused('POST', WORK_ORDERS, doc('work_orders', { state: 'pending' })), 405);
  });
});

describe('50 PATCHes at once', () => {
  const WRITERS = 50;
  const BURST_BUDGET_MS = 240_000;
  withRequestBudget(BURST_BUDGET_MS);

  it('50 work orders changed at once and 50 changes of one: 100 × 200, each work order agreeing with its requests', {
    timeout: BURST_BUDGET_MS + 60_000,
  }, async () => {
    const { plate, submission } = await submitted(WRITERS + 1, GRID_ION, OPTIONS);
    const made = [...(await workOrdersOf(plate)).values()];
    expect(made).toHaveLength(WRITERS + 1);
    const shared = made[WRITERS]!;
    const results = await Promise.all([
      ...made.slice(0, WRITERS).map((w) => call('PATCH', `${WORK_ORDERS}/${w.id}`, { body: patch(w.id, { state: 'started' }) })),
      ...Array.from({ length: WRITERS }, (_, i) =>
        call('PATCH', `${WORK_ORDERS}/${shared.id}`, { body: patch(shared.id, i % 2 === 0 ? { state: 'started' } : { at_risk: true }) }),
      ),
    ]);
    expect(statuses(results)).toEqual([`200 × ${2 * WRITERS}`]);
    const requests = [...(await requestsOf(submission)).values()];
    // All 51 receptacles' requests started (one each), and the shared one at risk: no change lost.
    expect(requests.map((r) => r.attributes.state)).toEqual(requests.map(() => 'started'));
    const sharedRead = (await call('GET', `${WORK_ORDERS}/${shared.id}`)).body.data.attributes;
    expect(sharedRead).toMatchObject({ state: 'started', at_risk: true });
    expect(requests.filter((r) => r.attributes.options.customer_accepts_responsibility === true)).toHaveLength(1);
  });
});
