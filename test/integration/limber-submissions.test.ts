import { beforeAll, describe, expect, it } from 'vitest';
import { auditedTransactionItems, mostInOneTransaction, TRANSACTION_ITEM_LIMIT, writtenItems } from '#lib/domain/budgets.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { bookOfRequest, slotUuid } from '#lib/domain/labware-ids.ts';
import { MAX_ASSETS_PER_ORDER, maxSubmissionRequests, submissionItems } from '#lib/domain/submissions.ts';
import { call, doc, idOf } from '../support/api.ts';
import { addAliquot, createPlate, createSample, createTube, inBatches } from '../support/fixtures.ts';
import { adminUuid, uuidOf } from '../support/lab.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { expectError } from '../support/responses.ts';
import { seedEmptyPlates } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused } from '../support/table.ts';
import { changeState, postWorkCompletion, requestsOfSubmission } from '../support/work.ts';

/**
 * Submissions from templates (contract §6), as Limber's SequencescapeSubmission makes them: `orders` from a
 * submission template (`submission_template_uuid`, `submission_template_attributes` with `request_options`,
 * `user_uuid`, `asset_uuids`) before any submission, then `submissions` with `order_uuids`, `user_uuid`
 * and `and_submit` — which builds each order's requests on its assets, chained (a library request, then
 * its sequencing request out of the same well) and leaves the submission `ready` (contract §7.3). Refused
 * writes leave the table as it was.
 */

beforeAll(freshStore);

const LIBRARY = 'Library Creation - Illumina';
const LIMBER_WGS = 'Limber-Htp - WGS - NovaSeq 6000 Paired end sequencing';
const OPTIONS = { library_type: 'Standard', read_length: 150, fragment_size_required_from: '300', fragment_size_required_to: '500' };

let user: string;
let study: string;

beforeAll(async () => {
  user = await adminUuid();
  study = await uuidOf('studies', 'name', 'Study A');
});

const templateUuid = (name: string) => uuidOf('submission_templates', 'name', name);
const wellUuids = (plate: any, count: number) => Array.from({ length: count }, (_, i) => slotUuid(plate.attributes.uuid, i + 1));

/** Limber's Order.create!: the template, its attributes, optionally a project or study. */
const orderDoc = (template: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  doc('orders', { submission_template_uuid: template, submission_template_attributes: { request_options: OPTIONS, user_uuid: user, ...attributes }, ...extra });

async function createOrder(template: string, assets: string[], extra: Record<string, unknown> = {}, options: Record<string, unknown> = OPTIONS): Promise<any> {
  const res = await call('POST', '/api/v2/orders', { body: orderDoc(template, { asset_uuids: assets, request_options: options }, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

const submissionDoc = (orders: string[], andSubmit = true) => doc('submissions', { and_submit: andSubmit, order_uuids: orders, user_uuid: user });

async function submit(orders: string[], andSubmit = true): Promise<any> {
  const res = await call('POST', '/api/v2/submissions', { body: submissionDoc(orders, andSubmit) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** A stock plate whose first `count` wells each hold a sample of a study (Study A unless named). */
async function stockPlate(count: number, studyName = 'Study A'): Promise<any> {
  const plate = await createPlate('Stock Plate');
  const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=100`)).body.data.slice(0, count);
  const studyId = await idOf('studies', 'name', studyName);
  await inBatches(wells.length, 8, async (i) => addAliquot({ type: 'wells', id: wells[i].id }, (await createSample()).id, { study: studyId }));
  return plate;
}

/** The submission's requests with their request type's key, asset and target asset. */
async function requestsWithLinks(submission: string) {
  const res = await call('GET', `/api/v2/submissions/${submission}/requests?include=request_type&page[size]=500`);
  const keys = new Map<string, string>((res.body.included ?? []).map((t: any) => [t.id, t.attributes.key]));
  return res.body.data.map((r: any) => ({
    id: r.id as string,
    uuid: r.attributes.uuid as string,
    key: keys.get(r.relationships.request_type.data.id)!,
    state: r.attributes.state as string,
    options: r.attributes.options,
    order: r.relationships.order.data?.id,
  }));
}

const linkOf = async (type: string, id: string, relationship: string) => (await call('GET', `/api/v2/${type}/${id}/relationships/${relationship}`)).body.data;

describe('orders from a submission template, then a submission with and_submit', () => {
  let plate: any;
  let order: any;
  let submission: any;

  beforeAll(async () => {
    plate = await stockPlate(4);
    order = await createOrder(await templateUuid(LIBRARY), wellUuids(plate, 4));
    submission = await submit([order.attributes.uuid]);
  });

  it('makes the order before any submission: its options, request types, study (from the aliquots) and user', async () => {
    expect(order.attributes).toMatchObject({ uuid: expect.any(String), request_options: OPTIONS });
    const types = await call('GET', `/api/v2/orders/${order.id}/request_types`);
    expect(types.body.data.map((t: any) => t.attributes.key)).toEqual(['library_creation', 'sequencing']);
    expect(await linkOf('orders', order.id, 'study')).toEqual({ type: 'studies', id: await idOf('studies', 'name', 'Study A') });
    expect(await linkOf('orders', order.id, 'user')).toEqual({ type: 'users', id: await idOf('users', 'login', 'admin') });
    expect(await linkOf('orders', order.id, 'project')).toBeNull();
  });

  it('and_submit builds a library and a sequencing request per well, chained out of the same well; the submission is ready', async () => {
    expect(submission.attributes).toMatchObject({ state: 'ready', lanes_of_sequencing: 4 });
    expect((await call('GET', `/api/v2/submissions/${submission.id}`)).body.data.attributes.state).toBe('ready');
    expect(await linkOf('submissions', submission.id, 'orders')).toEqual([{ type: 'orders', id: order.id }]);
    expect(await linkOf('submissions', submission.id, 'user')).toEqual({ type: 'users', id: await idOf('users', 'login', 'admin') });
    expect(await linkOf('orders', order.id, 'submission')).toEqual({ type: 'submissions', id: submission.id });
    const requests = await requestsWithLinks(submission.id);
    expect(requests.map((r: any) => r.key)).toEqual([...Array(4).fill('library_creation'), ...Array(4).fill('sequencing')]);
    for (const r of requests) expect(r).toMatchObject({ state: 'pending', options: OPTIONS, order: order.id });
    // Each well's requests_as_source: its library request, then its sequencing request.
    const well = await call('GET', `/api/v2/plates/${plate.id}/wells?include=requests_as_source&page[size]=1`);
    expect(well.body.data[0].relationships.requests_as_source.data.map((r: any) => r.id)).toEqual([requests[0].id, requests[4].id]);
    const library = await call('GET', `/api/v2/requests/${requests[0].id}?fields[requests]=library_type`);
    expect(library.body.data.attributes).toEqual({ library_type: 'Standard' });
  });

  it('emits orders.created, submissions.created and a state_changed per state it passed through, orders.updated and one requests.created per request', async () => {
    const events = await outboxEvents();
    const of = (type: string, id: string) => events.filter((e) => e.type === type && e.resource.id === id);
    expect(of('orders.created', order.id)).toHaveLength(1);
    // building → pending → processing → ready: a version each, in version order, each event showing its state.
    const passage = events.filter((e) => e.resource.type === 'submissions' && e.resource.id === submission.id);
    expect(passage.map((e) => [e.type, e.resource.version, e.data.attributes.state])).toEqual([
      ['submissions.created', 1, 'building'],
      ['submissions.state_changed', 2, 'pending'],
      ['submissions.state_changed', 3, 'processing'],
      ['submissions.state_changed', 4, 'ready'],
    ]);
    expect(of('orders.updated', order.id)).toHaveLength(1);
    const ids = (await requestsWithLinks(submission.id)).map((r: any) => r.id);
    expect(events.filter((e) => e.type === 'requests.created' && ids.includes(e.resource.id))).toHaveLength(8);
  });

  it('work completion finds the chained next requests: library requests pass, sequencing requests move to the new wells', async () => {
    const requests = await requestsWithLinks(submission.id);
    const child = await createPlate('Working Dilution');
    // Limber's stamp: one transfer request per well, each naming the library request it carries on.
    const stamp = await call('POST', '/api/v2/transfer_request_collections', {
      body: doc('transfer_request_collections', {
        user_uuid: user,
        transfer_requests_attributes: [0, 1, 2, 3].map((i) => ({
          source_asset: slotUuid(plate.attributes.uuid, i + 1),
          target_asset: slotUuid(child.attributes.uuid, i + 1),
          outer_request: requests[i].uuid,
        })),
      }),
    });
    expect(stamp.status, JSON.stringify(stamp.body)).toBe(201);
    await changeState(child, 'passed');
    const completed = await postWorkCompletion(child, [submission.id]);
    expect(completed.status, JSON.stringify(completed.body)).toBe(201);

    const childWells = (await call('GET', `/api/v2/plates/${child.id}/wells?page[size]=4`)).body.data.map((w: any) => w.id);
    const after = await requestsOfSubmission(submission.id);
    const links = await Promise.all(
      after.map(async (r: any) => ({ asset: (await linkOf('requests', r.id, 'asset'))?.id, target: (await linkOf('requests', r.id, 'target_asset'))?.id })),
    );
    for (let i = 0; i < 4; i++) {
      expect(after[i].attributes.state).toBe('passed');
      expect(links[i]!.target).toBe(childWells[i]);
      expect(after[i + 4].attributes.state).toBe('pending');
      expect(links[i + 4]!.asset).toBe(childWells[i]);
    }
  });

  it('without and_submit the submission is building and has no requests; its orders are in it', async () => {
    const other = await createOrder(await templateUuid(LIBRARY), wellUuids(await stockPlate(1), 1));
    const building = await submit([other.attributes.uuid], false);
    expect(building.attributes.state).toBe('building');
    expect(await requestsOfSubmission(building.id)).toEqual([]);
    expect(await linkOf('orders', other.id, 'submission')).toEqual({ type: 'submissions', id: building.id });
  });

  it("Limber's building_in_progress? is false right after the POST, so its submission buttons and MultiStampTubes go on at once", async () => {
    // sanger/limber app/integrations/sequencescape/api/v2/submission.rb, lines 21-23, re-implemented:
    //   pending? || processing? || (ready? && updated_at > ready_buffer.ago)
    // MultiStampTubes#submission_built? (app/models/labware_creators/multi_stamp_tubes.rb) reads the submission
    // by uuid and asks it with no buffer; Presenters::SubmissionBehaviour#pending_submissions? with 20 s.
    const buildingInProgress = (attributes: { state: string; updated_at: string }, readyBufferMs: number, now: number) =>
      attributes.state === 'pending' ||
      attributes.state === 'processing' ||
      (attributes.state === 'ready' && Date.parse(attributes.updated_at) > now - readyBufferMs);
    const other = await createOrder(await templateUuid(LIBRARY), wellUuids(await stockPlate(1), 1));
    const made = await submit([other.attributes.uuid]);
    const read = await call('GET', `/api/v2/submissions?filter[uuid]=${made.attributes.uuid}`);
    const attributes = read.body.data[0].attributes;
    expect(buildingInProgress(attributes, 0, Date.now())).toBe(false);
    // Within the presenter's 20 s a ready submission still counts as settling, as in the reference; past it, not.
    expect(buildingInProgress(attributes, 20_000, Date.parse(attributes.updated_at))).toBe(true);
    expect(buildingInProgress(attributes, 20_000, Date.parse(attributes.updated_at) + 20_001)).toBe(false);
    // The check can fail: a submission left pending (as before contract §7.3) would be building forever.
    expect(buildingInProgress({ ...attributes, state: 'pending' }, 0, Date.now())).toBe(true);
  });

  it('a multiplexed template: one library and one pooling request per well, the sequencing after the pool once, with no asset yet', async () => {
    const pooled = await createOrder(await templateUuid(LIMBER_WGS), wellUuids(await stockPlate(2), 2), { study_uuid: study });
    expect(pooled.attributes.request_options).toEqual({ ...OPTIONS, library_type: 'Standard' });
    // Without a library type of its own, the order takes the template's.
    const { library_type: _, ...withoutLibraryType } = OPTIONS;
    const second = await createOrder(await templateUuid(LIMBER_WGS), wellUuids(await stockPlate(2), 2), {}, withoutLibraryType);
    expect(second.attributes.request_options).toEqual({ ...withoutLibraryType, library_type: 'Standard' });
    const mx = await submit([pooled.attributes.uuid, second.attributes.uuid]);
    const requests = await requestsWithLinks(mx.id);
    const count = (key: string) => requests.filter((r: any) => r.key === key).length;
    expect([count('limber_wgs'), count('limber_multiplexing'), count('illumina_htp_novaseq_6000_paired_end_sequencing')]).toEqual([4, 4, 1]);
    const sequencing = requests.find((r: any) => r.key === 'illumina_htp_novaseq_6000_paired_end_sequencing');
    expect(await linkOf('requests', sequencing.id, 'asset')).toBeNull();
    const read = await call('GET', `/api/v2/submissions/${mx.id}?fields[submissions]=multiplexed?,lanes_of_sequencing`);
    expect(read.body.data.attributes).toEqual({ 'multiplexed?': true, lanes_of_sequencing: 1 });
  });
});

describe('tubes', () => {
  it("a tube's uuid names its receptacle, as the reference's Order#assets= takes it", async () => {
    const tube = await createTube();
    const order = await createOrder(await templateUuid(LIBRARY), [tube.attributes.uuid], { study_uuid: study });
    const submission = await submit([order.attributes.uuid]);
    const [library] = await requestsWithLinks(submission.id);
    const receptacle = (await call('GET', `/api/v2/tubes/${tube.id}/receptacle`)).body.data;
    expect(await linkOf('requests', library.id, 'asset')).toEqual({ type: 'receptacles', id: receptacle.id });
  });
});

describe('multipliers', () => {
  it('request_options.multiplier gives each well that many requests of a type: two sequencing requests after one library request', async () => {
    const options = { ...OPTIONS, multiplier: { sequencing: 2 } };
    const order = await createOrder(await templateUuid(LIBRARY), wellUuids(await stockPlate(1), 1), {}, options);
    const submission = await submit([order.attributes.uuid]);
    expect((await requestsWithLinks(submission.id)).map((r: any) => r.key)).toEqual(['library_creation', 'sequencing', 'sequencing']);
    expect(submission.attributes.lanes_of_sequencing).toBe(2);
  });
});

describe('bad input: precise 4xx, nothing written', () => {
  let plate: any;
  let library: string;

  beforeAll(async () => {
    plate = await stockPlate(2);
    library = await templateUuid(LIBRARY);
  });

  const postOrder = (body: unknown) => refused('POST', '/api/v2/orders', body);
  const postSubmission = (body: unknown) => refused('POST', '/api/v2/submissions', body);

  it('orders: unknown template, user, asset, project; a plate for a well; no assets; no attributes; request types with a template', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const assets = wellUuids(plate, 2);
    expectError(await postOrder(orderDoc(unknown, { asset_uuids: assets })), 404, 'record_not_found', '/data/attributes/submission_template_uuid');
    expectError(
      await postOrder(orderDoc(library, { asset_uuids: assets, user_uuid: unknown })),
      404,
      'record_not_found',
      '/data/attributes/submission_template_attributes/user_uuid',
    );
    const asset = expectError(
      await postOrder(orderDoc(library, { asset_uuids: [assets[0], unknown] })),
      404,
      'record_not_found',
      '/data/attributes/submission_template_attributes/asset_uuids/1',
    );
    expect(asset.detail).toContain(unknown);
    expectError(
      await postOrder(orderDoc(library, { asset_uuids: [plate.attributes.uuid] })),
      422,
      'invalid_value',
      '/data/attributes/submission_template_attributes/asset_uuids/0',
    );
    expectError(
      await postOrder(orderDoc(library, { asset_uuids: [assets[0], assets[0]] })),
      422,
      'invalid_value',
      '/data/attributes/submission_template_attributes/asset_uuids/1',
    );
    expectError(await postOrder(orderDoc(library, { asset_uuids: [] })), 422, 'invalid_value', '/data/attributes/submission_template_attributes/asset_uuids');
    expectError(
      await postOrder(orderDoc(library, { asset_uuids: assets }, { project_uuid: unknown })),
      404,
      'record_not_found',
      '/data/attributes/project_uuid',
    );
    expectError(await postOrder(doc('orders', { submission_template_uuid: library })), 422, 'required', '/data/attributes/submission_template_attributes');
    const conflict = doc('orders', orderDoc(library, { asset_uuids: assets }).data.attributes, {
      request_types: { data: [{ type: 'request_types', id: await idOf('request_types', 'key', 'sequencing') }] },
    });
    expectError(await postOrder(conflict), 400, 'template_conflict', '/data/relationships/request_types');
    expect((await postOrder(orderDoc(library, { asset_uuids: assets, colour: 'red' }))).status).toBe(422);
  });

  it('orders: assets of two studies, none detectable, a multiplied pooling step', async () => {
    const mixed = await stockPlate(1, 'Study B');
    const twoStudies = [...wellUuids(plate, 1), ...wellUuids(mixed, 1)];
    const detail = expectError(await postOrder(orderDoc(library, { asset_uuids: twoStudies })), 422, 'invalid_value', '/data/attributes/study_uuid').detail;
    expect(detail).toContain('different studies');
    const empty = await createPlate('Stock Plate');
    expectError(await postOrder(orderDoc(library, { asset_uuids: wellUuids(empty, 1) })), 422, 'invalid_value', '/data/attributes/study_uuid');
    for (const times of [0, 1.5, 'two', 1e9]) {
      const bad = orderDoc(library, { asset_uuids: wellUuids(plate, 1), request_options: { multiplier: { sequencing: times } } });
      expectError(await postOrder(bad), 422, 'invalid_value', '/data/attributes/submission_template_attributes/request_options/multiplier/sequencing');
    }
    const multiplied = orderDoc(await templateUuid(LIMBER_WGS), {
      asset_uuids: wellUuids(plate, 1),
      request_options: { multiplier: { limber_multiplexing: 2 } },
    });
    expectError(
      await postOrder(multiplied),
      422,
      'invalid_value',
      '/data/attributes/submission_template_attributes/request_options/multiplier/limber_multiplexing',
    );
  });

  it('submissions: unknown order, an order in a submission already, no orders, and_submit without orders, incompatible orders', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const order = await createOrder(library, wellUuids(plate, 1));
    expectError(await postSubmission(submissionDoc([order.attributes.uuid, unknown])), 404, 'record_not_found', '/data/attributes/order_uuids/1');
    expectError(await postSubmission(submissionDoc([order.attributes.uuid, order.attributes.uuid])), 422, 'invalid_value', '/data/attributes/order_uuids/1');
    expectError(await postSubmission(submissionDoc([])), 422, 'invalid_value', '/data/attributes/order_uuids');
    expectError(await postSubmission(doc('submissions', { and_submit: true, user_uuid: user })), 422, 'required', '/data/attributes/order_uuids');
    const other = await createOrder(library, wellUuids(plate, 1), {}, { ...OPTIONS, read_length: 100 });
    const incompatible = expectError(
      await postSubmission(submissionDoc([order.attributes.uuid, other.attributes.uuid])),
      422,
      'invalid_value',
      '/data/attributes/order_uuids',
    );
    expect(incompatible.detail).toContain('read lengths');
    // A request of an order still waiting for its submission has no submission to be of.
    const wellId = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=1`)).body.data[0].id;
    const early = doc(
      'requests',
      {},
      {
        asset: { data: { type: 'wells', id: wellId } },
        order: { data: { type: 'orders', id: order.id } },
        request_type: { data: { type: 'request_types', id: await idOf('request_types', 'key', 'library_creation') } },
      },
    );
    expect(expectError(await refused('POST', '/api/v2/requests', early), 422, 'invalid_value', '/data/relationships/order').detail).toContain(
      'no submission yet',
    );
    await submit([order.attributes.uuid]);
    const again = expectError(await postSubmission(submissionDoc([order.attributes.uuid])), 422, 'invalid_value', '/data/attributes/order_uuids/0');
    expect(again.detail).toContain('already');
  });
});

describe('budgets', () => {
  /** A submission that must be made, and the items of its transaction. */
  async function submitCounted(orders: string[]): Promise<{ submission: any; items: number }> {
    const { result: submission, transactions } = await observeCalls(() => submit(orders));
    expect(transactions).toHaveLength(1);
    return { submission, items: transactions[0]! };
  }

  const allRequests = async (submission: string) => [
    ...(await requestsOfSubmission(submission)),
    ...(await call('GET', `/api/v2/submissions/${submission}/requests?page[size]=500&page[number]=2`)).body.data,
  ];

  // A submission of one order over plates (a request book each), with an audit entry for each plate (docs/decisions.md, "Audit trail").
  const overPlates = (plates: number) => auditedTransactionItems(submissionItems(1, plates), plates);

  it(`a 384-well plate ordered for library creation and sequencing: 768 requests in one book, ${overPlates(1)} items in one transaction`, async () => {
    const plate = await createPlate('Stock Plate 384');
    const order = await createOrder(await templateUuid(LIBRARY), wellUuids(plate, 384), { study_uuid: study });
    const { submission, items } = await submitCounted([order.attributes.uuid]);
    const requests = await allRequests(submission.id);
    expect(requests).toHaveLength(768);
    const books = new Set(requests.map((r: any) => bookOfRequest(Number(r.id))));
    expect(books.size).toBe(1);
    expect(items).toBe(overPlates(1));
  });

  const FITS = mostInOneTransaction(overPlates);
  it(`one order over many plates: ${FITS} plates (a request book each) are one transaction; ${FITS + 1}, one write of several`, async () => {
    const fits = FITS;
    expect(overPlates(fits + 1)).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    const plates = await inBatches(fits + 1, 8, () => createPlate('Stock Plate'));
    const assets = plates.flatMap((p) => wellUuids(p, 1));
    const largest = await createOrder(await templateUuid(LIBRARY), assets.slice(0, fits), { study_uuid: study });
    expect((await submitCounted([largest.attributes.uuid])).items).toBe(overPlates(fits));
    const past = await createOrder(await templateUuid(LIBRARY), assets, { study_uuid: study });
    const { result: submission, transactions } = await observeCalls(() => submit([past.attributes.uuid]));
    expect(transactions.length).toBeGreaterThan(1);
    expect(await requestsOfSubmission(submission.id)).toHaveLength(2 * (fits + 1));
  });
});

describe('orders and submissions over 100 plates (contract §7.1)', () => {
  let plates: StoredRecord[];
  beforeAll(async () => {
    plates = await seedEmptyPlates(101, Number(await idOf('plate_purposes', 'name', 'Stock Plate')));
  });
  const wellsOf = (count: number) => plates.flatMap((p) => Array.from({ length: count }, (_, i) => slotUuid(p.uuid, i + 1)));

  it('an order of every well of 101 plates (9,696 wells): 201, one order', async () => {
    const order = await createOrder(await templateUuid(LIBRARY), wellsOf(96), { study_uuid: study });
    expect(order.attributes.uuid).toBeDefined();
  });

  it(`a submission over 101 plates (24 wells each): 4,848 requests in 101 books, one write of ${writtenItems(submissionItems(1, 101))} records and index entries; every request readable`, {
    timeout: 300_000,
  }, async () => {
    const order = await createOrder(await templateUuid(LIBRARY), wellsOf(24), { study_uuid: study });
    const { result: submission, transactions } = await observeCalls(() => submit([order.attributes.uuid]));
    expect(transactions.length).toBeGreaterThan(1);
    const requests = await call('GET', `/api/v2/submissions/${submission.id}/requests?page[size]=1`);
    expect(requests.body.meta.record_count).toBe(2 * 24 * 101);
    // The last plate's last well of the order: its library request, then its sequencing request.
    const well = await call('GET', `/api/v2/plates/${plates.at(-1)!.id}/wells?page[size]=24&include=requests_as_source`);
    expect(well.body.data.map((w: any) => w.relationships.requests_as_source.data.length)).toEqual(Array(24).fill(2));
  });

  it(`an order names at most ${MAX_ASSETS_PER_ORDER} assets: one more is a 422 naming the limit`, async () => {
    const plate = await createPlate('Stock Plate');
    const assets = Array.from({ length: MAX_ASSETS_PER_ORDER + 1 }, (_, i) => slotUuid(plate.attributes.uuid, (i % 96) + 1));
    const res = await refused('POST', '/api/v2/orders', orderDoc(await templateUuid(LIBRARY), { asset_uuids: assets }, { study_uuid: study }));
    expect(expectError(res, 422, 'too_large', '/data/attributes/submission_template_attributes/asset_uuids').detail).toBe(
      `submission_template_attributes.asset_uuids - ${MAX_ASSETS_PER_ORDER + 1} assets; one order may name at most ${MAX_ASSETS_PER_ORDER}`,
    );
  });
});

describe('requests counted before they are made', () => {
  it(`a 384-well order whose multipliers compound (100 library requests a well, 100 sequencing requests each) is refused before any is made: over ${maxSubmissionRequests(1)}, more than one request can write`, async () => {
    const plate = await createPlate('Stock Plate 384');
    const multiplier = { library_creation: 100, sequencing: 100 };
    const order = await createOrder(await templateUuid(LIBRARY), wellUuids(plate, 384), { study_uuid: study }, { ...OPTIONS, multiplier });
    const refusal = expectError(
      await refused('POST', '/api/v2/submissions', submissionDoc([order.attributes.uuid])),
      422,
      'too_large',
      '/data/attributes/order_uuids',
    );
    expect(refusal.detail).toBe(`order_uuids - these orders ask for more than ${maxSubmissionRequests(1)} requests, more than one request can write`);
  });
});

describe('50 at once', () => {
  it('50 orders from one template, then 50 and_submit submissions of them, each on its own plate: none conflicts', async () => {
    const plates = await inBatches(50, 10, () => createPlate('Stock Plate'));
    const template = await templateUuid(LIBRARY);
    const orders = await Promise.all(
      plates.map((p) => call('POST', '/api/v2/orders', { body: orderDoc(template, { asset_uuids: wellUuids(p, 4) }, { study_uuid: study }) })),
    );
    expect(orders.map((r) => r.status)).toEqual(Array(50).fill(201));
    const submissions = await Promise.all(orders.map((r) => call('POST', '/api/v2/submissions', { body: submissionDoc([r.body.data.attributes.uuid]) })));
    expect(submissions.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(submissions.map((r) => r.body.data.attributes.state)).toEqual(Array(50).fill('ready'));
    const counts = await Promise.all(submissions.map(async (r) => (await requestsOfSubmission(r.body.data.id)).length));
    expect(counts).toEqual(Array(50).fill(8));
  });
});

describe('20 at once on ONE order', () => {
  it('20 and_submit submissions of the same order: exactly one 201, the others refused (422, or 409 past their retries); its requests are made once', {
    timeout: 180_000,
  }, async () => {
    const plate = await stockPlate(2);
    const order = await createOrder(await templateUuid(LIBRARY), wellUuids(plate, 2));
    const results = await Promise.all(Array.from({ length: 20 }, () => call('POST', '/api/v2/submissions', { body: submissionDoc([order.attributes.uuid]) })));
    const won = results.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201 && r.status !== 422 && r.status !== 409).map((r) => r.status)).toEqual([]);
    expect((await call('GET', `/api/v2/orders/${order.id}/submission`)).body.data.id).toBe(won[0]!.body.data.id);
    expect(await requestsOfSubmission(won[0]!.body.data.id)).toHaveLength(4);
  });
});
