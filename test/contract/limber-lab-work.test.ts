import { beforeAll, expect, it } from 'vitest';
import { call } from '../support/api.ts';
import { createPlate } from '../support/fixtures.ts';
import { adminUuid, filledPlate, poolPlate } from '../support/lab.ts';
import { faradayQuery, limberInclude, PLATE_DEFAULT_INCLUDES, PLATE_FOR_COMPLETION, PLATE_PRESENTER_INCLUDES } from '../support/limber.ts';
import { freshStore } from '../support/store.ts';

/**
 * Limber moving lab work on, replayed call by call as its classes send them (test/support/limber.ts says how
 * its client puts them on the wire): it opens the stock plate, stamps it into a child plate with a transfer request
 * collection (LabwareCreators::StampedPlate#transfer_material_from_parent!), opens the child, passes it
 * (StateChangers::PlateStateChanger#move_to!), fails a well (PlatesController#fail_wells), charges and
 * passes the work (StateChangers::AutomaticBehaviour#complete_outstanding_requests → WorkCompletion), reads
 * the plate for completion, and finds it in its searches (SearchController#ongoing_plates via
 * Plate.find_all, PipelineWorkInProgressController#retrieve_labware). The stock plate, its samples, the
 * submission's requests and the empty child plate are made with this service's own calls: Limber makes the
 * child with a plate creation (the next issue's creators), and the rest comes from other lab systems.
 */

/** A GET as Limber's client sends it. */
const limberGet = (type: string, params: Parameters<typeof faradayQuery>[0]) => call('GET', `/api/v2/${type}?${faradayQuery(params)}`);
/** `Model.create!(attributes)`: a POST of the attributes only, nil ones as null. */
const limberCreate = (type: string, attributes: Record<string, unknown>) => call('POST', `/api/v2/${type}`, { body: { data: { type, attributes } } });

const byKey = (document: any) => new Map<string, any>((document.included ?? []).map((r: any) => [`${r.type}:${r.id}`, r]));
const linked = (included: Map<string, any>, linkage: any) => (Array.isArray(linkage) ? linkage : [linkage]).map((l: any) => included.get(`${l.type}:${l.id}`));

let user: string;
let stock: any;
let child: any;
let submission: string;

beforeAll(async () => {
  await freshStore();
  user = await adminUuid();
  ({ plate: stock } = await filledPlate(4));
  submission = (await poolPlate(stock.id, [['A1', 'B1', 'C1', 'D1']]))[0]!;
  child = await createPlate('Library Plate');
});

/** `Plate.find_by(uuid:)`: v2.rb plate_for_presenter, the page Limber opens after every scan. */
async function plateForPresenter(uuid: string) {
  const res = await limberGet('plates', {
    include: limberInclude(PLATE_PRESENTER_INCLUDES),
    fields: { submissions: 'lanes_of_sequencing,multiplexed?', sample_metadata: 'sample_common_name,collected_by,sample_description' },
    filter: { uuid },
  });
  expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
  expect(res.body.data).toHaveLength(1);
  return { plate: res.body.data[0], included: byKey(res.body) };
}

const wellsOf = ({ plate, included }: Awaited<ReturnType<typeof plateForPresenter>>) =>
  new Map<string, any>(linked(included, plate.relationships.wells.data).map((w: any) => [w.attributes.position.name, w]));

it('encodes queries as Faraday does (brackets, commas and ? escaped, keys sorted)', () => {
  expect(faradayQuery({ include: 'a,b.c', filter: { uuid: 'x' }, fields: { submissions: 'multiplexed?' } })).toBe(
    'fields%5Bsubmissions%5D=multiplexed%3F&filter%5Buuid%5D=x&include=a%2Cb.c',
  );
});

it('moves lab work on as Limber does: stamp, pass, fail a well, complete the work, search', async () => {
  // The stock plate as every plate creator first reads it (Plate.find_all with DEFAULT_INCLUDES), then the presenter's page.
  const defaults = await limberGet('plates', { include: limberInclude(PLATE_DEFAULT_INCLUDES), filter: { uuid: stock.attributes.uuid } });
  expect(defaults.status, JSON.stringify(defaults.body.errors)).toBe(200);
  const stockPage = await plateForPresenter(stock.attributes.uuid);
  const stockWells = wellsOf(stockPage);
  const libraryRequests = new Map<string, any>(
    ['A1', 'B1', 'C1', 'D1'].map((name) => [name, linked(stockPage.included, stockWells.get(name).relationships.requests_as_source.data)[0]]),
  );
  for (const request of libraryRequests.values()) expect(request.attributes.state).toBe('pending');

  // StampedPlate: one transfer request per filled well, source and target by uuid.
  const childWells = wellsOf(await plateForPresenter(child.attributes.uuid));
  const stamp = await limberCreate('transfer_request_collections', {
    transfer_requests_attributes: ['A1', 'B1', 'C1', 'D1'].map((name) => ({
      source_asset: stockWells.get(name).attributes.uuid,
      target_asset: childWells.get(name).attributes.uuid,
    })),
    user_uuid: user,
  });
  expect(stamp.status, JSON.stringify(stamp.body.errors)).toBe(201);

  // The child's page: each well's aliquot carries its library request, its transfer request names the stock well.
  let childPage = await plateForPresenter(child.attributes.uuid);
  expect(childPage.plate.attributes.state).toBe('pending');
  for (const [name, well] of wellsOf(childPage)) {
    if (!libraryRequests.has(name)) continue;
    const [aliquot] = linked(childPage.included, well.relationships.aliquots.data);
    expect(aliquot.relationships.request.data.id).toBe(libraryRequests.get(name).id);
    const [transferRequest] = linked(childPage.included, well.relationships.transfer_requests_as_target.data);
    expect(transferRequest.relationships.source_asset.data.id).toBe(stockWells.get(name).id);
  }

  // Pass the plate: PlateStateChanger#move_to!(state) — contents nil outside FILTER_FAILS_ON states.
  const passed = await limberCreate('state_changes', {
    contents: null,
    customer_accepts_responsibility: false,
    reason: null,
    target_state: 'passed',
    target_uuid: child.attributes.uuid,
    user_uuid: user,
  });
  expect(passed.status, JSON.stringify(passed.body.errors)).toBe(201);
  expect(passed.body.data.attributes.previous_state).toBe('pending');
  childPage = await plateForPresenter(child.attributes.uuid);
  expect(childPage.plate.attributes.state).toBe('passed');
  // Passing a pending transfer request started its outer request.
  const started = (await call('GET', `/api/v2/requests/${libraryRequests.get('A1').id}`)).body.data;
  expect(started.attributes.state).toBe('started');

  // PlatesController#fail_wells: the selected positions, failed, with the customer's choice.
  const failed = await limberCreate('state_changes', {
    contents: ['B1'],
    customer_accepts_responsibility: '1',
    reason: 'Individual Well Failure',
    target_state: 'failed',
    target_uuid: child.attributes.uuid,
    user_uuid: user,
  });
  expect(failed.status, JSON.stringify(failed.body.errors)).toBe(201);
  childPage = await plateForPresenter(child.attributes.uuid);
  expect(childPage.plate.attributes.state).toBe('passed');
  expect(wellsOf(childPage).get('B1').attributes.state).toBe('failed');
  expect(wellsOf(childPage).get('A1').attributes.state).toBe('passed');
  expect((await call('GET', `/api/v2/requests/${libraryRequests.get('B1').id}`)).body.data.attributes.state).toBe('failed');

  // Charge and pass: a work completion for the plate's submissions.
  const completed = await limberCreate('work_completions', {
    submission_uuids: [(await call('GET', `/api/v2/submissions/${submission}`)).body.data.attributes.uuid],
    target_uuid: child.attributes.uuid,
    user_uuid: user,
  });
  expect(completed.status, JSON.stringify(completed.body.errors)).toBe(201);
  const forCompletion = await limberGet('plates', { include: PLATE_FOR_COMPLETION, filter: { uuid: child.attributes.uuid } });
  expect(forCompletion.status).toBe(200);
  const requestStates = new Map<string, string>();
  for (const well of linked(byKey(forCompletion.body), forCompletion.body.data[0].relationships.wells.data)) {
    for (const aliquot of linked(byKey(forCompletion.body), well.relationships.aliquots.data)) {
      const [request] = linked(byKey(forCompletion.body), aliquot.relationships.request.data);
      requestStates.set(well.attributes.position.name, request.attributes.state);
    }
  }
  expect(Object.fromEntries(requestStates)).toEqual({ A1: 'passed', B1: 'failed', C1: 'passed', D1: 'passed' });

  // SearchController#ongoing_plates: Plate.find_all(purpose_name:, include_used:, state:) paged, DEFAULT_INCLUDES.
  const ongoing = await limberGet('plates', {
    filter: { purpose_name: 'Library Plate', include_used: 'false', state: 'pending,started,passed,qc_complete,failed,cancelled' },
    include: limberInclude(PLATE_DEFAULT_INCLUDES),
    page: { number: '1', size: '30' },
  });
  expect(ongoing.status, JSON.stringify(ongoing.body.errors)).toBe(200);
  expect(ongoing.body.data.map((p: any) => p.id)).toContain(child.id);

  // PipelineWorkInProgressController#retrieve_labware: labware without children, updated since, by updated_at.
  const wip = await limberGet('labware', {
    fields: {
      plates: 'uuid,purpose,labware_barcode,state_changes,updated_at,ancestors',
      tubes: 'uuid,purpose,labware_barcode,state_changes,updated_at,ancestors',
    },
    filter: { without_children: 'true', purpose_name: 'Library Plate', updated_at_gt: '2000-01-01T00:00:00Z' },
    include: 'state_changes,purpose,ancestors.purpose',
    sort: 'updated_at',
    page: { number: '1', size: '500' },
  });
  expect(wip.status, JSON.stringify(wip.body.errors)).toBe(200);
  const found = wip.body.data.find((l: any) => l.id === child.id);
  expect(found.relationships.state_changes.data).toHaveLength(2);
});
