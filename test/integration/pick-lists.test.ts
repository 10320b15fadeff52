import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { createPlate, inBatches, purposeId } from '../support/fixtures.ts';
import { filledPlate } from '../support/lab.ts';
import { expectError, statuses } from '../support/responses.ts';
import { seedPlates, seedSamples } from '../support/seed.ts';
import { withRequestBudget } from '../support/request-budget.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';

/**
 * pick_lists POST (contract §7.5; the reference's PickListResource, PickList, PickList::Pick and
 * PickList::RecordCache, spec/requests/api/v2/pick_lists_spec.rb): receptacles by id or every filled
 * receptacle of labware by id or barcode, grouped into one order per study and project of a submission of
 * `cherrypick` requests, built in the same write; `built` when the POST answers. Bad input refused at its
 * member with nothing written; a full 384-well plate in one request; 50 at once.
 */

beforeAll(freshStore);

const PICK_LISTS = '/api/v2/pick_lists';
let studyA: number;
let studyB: number;
let project: number;
let cherrypick: string;
beforeAll(async () => {
  [studyA, studyB, project] = (
    await Promise.all([idOf('studies', 'name', 'Study A'), idOf('studies', 'name', 'Study B'), idOf('projects', 'name', 'Project A')])
  ).map(Number) as [number, number, number];
  cherrypick = await idOf('request_types', 'key', 'cherrypick');
});

const pickList = (attributes: Record<string, unknown>) => doc('pick_lists', attributes);
const created = (res: CallResult) => {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
};
/** The well ids of a plate's first `count` wells (column order). */
const wellIds = (plate: { id: string }, count: number) => Array.from({ length: count }, (_, i) => Number(plate.id) * 1000 + i + 1);

/** The requests of a submission, each as [request type id, asset id, order id]. */
async function requestsOf(submission: string): Promise<[string, string, string][]> {
  const res = await call('GET', `/api/v2/submissions/${submission}/requests?page[size]=500&include=asset,request_type`);
  expect(res.status).toBe(200);
  return res.body.data.map((r: any) => [r.relationships.request_type.data.id, r.relationships.asset.data.id, r.relationships.order.data.id]);
}

describe('POST /pick_lists', () => {
  it('picks receptacles by id into one order per study and project, built in the write, with its links', async () => {
    const { plate } = await filledPlate(3, 'Stock Plate', String(studyA));
    const [a1, b1, c1] = wellIds(plate, 3);
    const res = await call('POST', PICK_LISTS, {
      body: pickList({
        asynchronous: false,
        pick_attributes: [
          { source_receptacle_id: a1, study_id: studyA, project_id: project },
          { source_receptacle_id: b1, study_id: studyB, project_id: project },
          // Its study from its aliquots (Study A): the same order as A1.
          { source_receptacle_id: c1, project_id: project },
        ],
      }),
    });
    const data = created(res);
    // Measured: 9 (its reads batched, its ids reserved at once, one transaction).
    expect(res.calls).toBeLessThanOrEqual(9);
    expect(data.attributes).toMatchObject({ state: 'built', asynchronous: false });
    expect(data.attributes.pick_attributes).toEqual([
      { source_receptacle_id: a1, study_id: studyA, project_id: project },
      { source_receptacle_id: c1, study_id: studyA, project_id: project },
      { source_receptacle_id: b1, study_id: studyB, project_id: project },
    ]);
    const [own, submissionLink] = data.attributes.links;
    expect(own).toEqual({ name: `Pick-list ${data.id}`, url: `https://lts.test/api/v2/pick_lists/${data.id}` });
    const submission = submissionLink.url.split('/').pop();
    expect(submissionLink.name).toBe(`Submission ${submission}`);
    expect((await call('GET', `/api/v2/submissions/${submission}`)).body.data.attributes.state).toBe('ready');
    const requests = await requestsOf(submission);
    expect(requests.map(([type, asset]) => [type, asset]).sort()).toEqual([a1, b1, c1].map((id) => [cherrypick, String(id)]).sort());
    // Two orders: Study A's (A1, C1) and Study B's (B1).
    expect(new Set(requests.map(([, , order]) => order)).size).toBe(2);
    // Read back as it answered.
    const read = await call('GET', `${PICK_LISTS}/${data.id}`);
    expect(read.body.data.attributes).toEqual(data.attributes);
  });

  it('passes pending → built with an event each, and its submission building → ready', async () => {
    const { plate } = await filledPlate(1, 'Stock Plate', String(studyA));
    const data = created(
      await call('POST', PICK_LISTS, { body: pickList({ pick_attributes: [{ source_receptacle_id: wellIds(plate, 1)[0], project_id: project }] }) }),
    );
    // asynchronous defaults to true, as the reference's; the pick list is built in its write either way.
    expect(data.attributes).toMatchObject({ state: 'built', asynchronous: true });
    const events = (await outboxEvents()).filter((e) => e.resource.type === 'pick_lists' && e.resource.id === data.id);
    expect(events.map((e) => [e.type, e.data.attributes.state])).toEqual([
      ['pick_lists.created', 'pending'],
      ['pick_lists.state_changed', 'built'],
    ]);
    const submission = data.attributes.links[1].url.split('/').pop();
    const states = (await outboxEvents()).filter((e) => e.resource.type === 'submissions' && e.resource.id === submission).map((e) => e.data.attributes.state);
    expect(states).toEqual(['building', 'pending', 'processing', 'ready']);
  });

  it('picks every filled receptacle of labware named by id or barcode; a pool of two studies is a cross-study order', async () => {
    const { plate } = await filledPlate(2, 'Stock Plate', String(studyA));
    const samples = await seedSamples(2, `POOL-${Date.now()}`);
    const purpose = Number(await purposeId('plate_purposes', 'Stock Plate'));
    // A1 a pool of two studies, B1 empty.
    const [pool] = await seedPlates(1, purpose, `POOL-${Date.now()}-`, 96, (_, slot) =>
      slot === 1 ? samples.map((s, i) => ({ sample: s.id, study: [studyA, studyB][i]! })) : [],
    );
    const data = created(
      await call('POST', PICK_LISTS, {
        body: pickList({
          labware_pick_attributes: [
            { source_labware_barcode: plate.attributes.labware_barcode.human_barcode, project_id: project },
            { source_labware_id: pool!.id, project_id: project },
          ],
        }),
      }),
    );
    expect(data.attributes.pick_attributes).toEqual([
      ...wellIds(plate, 2).map((id) => ({ source_receptacle_id: id, study_id: studyA, project_id: project })),
      { source_receptacle_id: pool!.id * 1000 + 1, study_id: null, project_id: project },
    ]);
  });

  it('refuses each bad value at its member, writing nothing', async () => {
    const { plate } = await filledPlate(1, 'Stock Plate', String(studyA));
    const [a1, empty] = [wellIds(plate, 1)[0]!, Number(plate.id) * 1000 + 2];
    const pick = (change: Record<string, unknown>) =>
      pickList({ pick_attributes: [{ source_receptacle_id: a1, study_id: studyA, project_id: project, ...change }] });
    const byLabware = (entry: Record<string, unknown>) => pickList({ labware_pick_attributes: [{ project_id: project, ...entry }] });
    const PICK = '/data/attributes/pick_attributes/0';
    const LABWARE = '/data/attributes/labware_pick_attributes/0';
    const cases: [unknown, number, string, string][] = [
      [pickList({}), 422, 'required', '/data/attributes/pick_attributes'],
      [pickList({ pick_attributes: [] }), 422, 'required', '/data/attributes/pick_attributes'],
      [pickList({ pick_attributes: 'A1' }), 422, 'invalid_type', '/data/attributes/pick_attributes'],
      [pickList({ pick_attributes: [{ study_id: studyA }] }), 422, 'invalid_type', `${PICK}/source_receptacle_id`],
      [pick({ source_receptacle_id: 'A1' }), 422, 'invalid_type', `${PICK}/source_receptacle_id`],
      [pick({ source_receptacle_id: 1.5 }), 422, 'invalid_type', `${PICK}/source_receptacle_id`],
      [pick({ study_id: 'Study A' }), 422, 'invalid_type', `${PICK}/study_id`],
      [pick({ project_id: true }), 422, 'invalid_type', `${PICK}/project_id`],
      // An unknown member is refused at its entry, the detail naming it.
      [pick({ well: 'A1' }), 422, 'invalid_value', PICK],
      [pick({ source_receptacle_id: 999_999_001 }), 404, 'record_not_found', `${PICK}/source_receptacle_id`],
      [pick({ source_receptacle_id: Number(plate.id) * 1000 + 97 }), 404, 'record_not_found', `${PICK}/source_receptacle_id`],
      [pick({ study_id: 999_999 }), 404, 'record_not_found', `${PICK}/study_id`],
      [pick({ project_id: 999_999 }), 404, 'record_not_found', `${PICK}/project_id`],
      [pick({ source_receptacle_id: empty }), 422, 'invalid_value', `${PICK}/source_receptacle_id`],
      // No project named, and the aliquots carry none.
      [pick({ project_id: null }), 422, 'invalid_value', `${PICK}/project_id`],
      [
        pickList({ pick_attributes: [{ source_receptacle_id: a1, project_id: project }], asynchronous: 'no' }),
        422,
        'invalid_type',
        '/data/attributes/asynchronous',
      ],
      [byLabware({}), 422, 'required', `${LABWARE}/source_labware_id`],
      [byLabware({ source_labware_barcode: 'NOPE-1' }), 404, 'record_not_found', `${LABWARE}/source_labware_barcode`],
      [byLabware({ source_labware_id: 999_999 }), 404, 'record_not_found', `${LABWARE}/source_labware_id`],
      [byLabware({ source_labware_id: Number((await createPlate()).id) }), 422, 'invalid_value', `${LABWARE}/source_labware_id`],
      [byLabware({ source_labware_barcode: 7 }), 422, 'invalid_type', `${LABWARE}/source_labware_barcode`],
      [pickList({ pick_attributes: [{ source_receptacle_id: a1, project_id: project }], state: 'built' }), 400, '', '/data/attributes/state'],
    ];
    for (const [body, status, code, pointer] of cases) {
      const res = await refused('POST', PICK_LISTS, body);
      expect(res.status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).toBe(status);
      const error = expectError(res, status, undefined, pointer);
      if (code) expect(error.code, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).toBe(code);
      expect(error.detail.length).toBeGreaterThan(0);
    }
  });

  it('picks a full 384-well plate by barcode in one request', { timeout: 120_000 }, async () => {
    const [sample] = await seedSamples(1, `PICK384-${Date.now()}`);
    const purpose = Number(await purposeId('plate_purposes', 'Stock Plate 384'));
    const [plate] = await seedPlates(1, purpose, `PICK384-${Date.now()}-`, 384, () => [{ sample: sample!.id, study: studyA }]);
    const res = await call('POST', PICK_LISTS, {
      body: pickList({
        asynchronous: false,
        labware_pick_attributes: [{ source_labware_barcode: (plate!.attrs as any).barcode.human_barcode, project_id: project }],
      }),
    });
    const data = created(res);
    // As many calls as a pick list of three wells: one transaction, not a write past one.
    expect(res.calls).toBeLessThanOrEqual(9);
    expect(data.attributes.pick_attributes).toHaveLength(384);
    const submission = data.attributes.links[1].url.split('/').pop();
    const requests = await requestsOf(submission);
    expect(requests).toHaveLength(384);
    expect(new Set(requests.map(([, asset]) => asset)).size).toBe(384);
  });
});

describe('50 pick lists at once', () => {
  const WRITERS = 50;
  const BURST_BUDGET_MS = 240_000;
  withRequestBudget(BURST_BUDGET_MS);

  it('50 of distinct plates and 50 of one plate: 100 × 201, each with its own submission and requests', { timeout: BURST_BUDGET_MS + 60_000 }, async () => {
    const [sample] = await seedSamples(1, `PICK50-${Date.now()}`);
    const purpose = Number(await purposeId('plate_purposes', 'Stock Plate'));
    const plates = await seedPlates(WRITERS + 1, purpose, `PICK50-${Date.now()}-`, 96, (_, slot) => (slot <= 2 ? [{ sample: sample!.id, study: studyA }] : []));
    const shared = plates[WRITERS]!;
    const body = (plate: { id: number }) =>
      pickList({ pick_attributes: [1, 2].map((slot) => ({ source_receptacle_id: plate.id * 1000 + slot, project_id: project })) });
    const results = await Promise.all(
      [...plates.slice(0, WRITERS), ...Array.from({ length: WRITERS }, () => shared)].map((p) => call('POST', PICK_LISTS, { body: body(p) })),
    );
    expect(statuses(results)).toEqual([`201 × ${2 * WRITERS}`]);
    const submissions = results.map((r) => r.body.data.attributes.links[1].url.split('/').pop());
    expect(new Set(submissions).size).toBe(2 * WRITERS);
    const counts = await inBatches(submissions.length, 10, async (i) => (await requestsOf(submissions[i]!)).length);
    expect(counts).toEqual(submissions.map(() => 2));
  });
});
