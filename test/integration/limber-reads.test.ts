import { beforeAll, describe, expect, it } from 'vitest';
import { call, idOf } from '../support/api.ts';
import { create, createPlate, createRack, createTube, rel, rels, tubeOf } from '../support/fixtures.ts';
import { adminUuid, filledPlate, poolPlate, postTransfer, templateUuid } from '../support/lab.ts';
import { createOrder, createRequest, workIds } from '../support/requests.ts';
import { expectError, idsOf } from '../support/responses.ts';
import { PLATE_PRESENTER_INCLUDES, PRESENTER_FIELDS, TUBE_DEFAULT_INCLUDES, TUBE_RACK_PRESENTER_INCLUDES, limberInclude } from '../support/limber.ts';
import { freshStore } from '../support/store.ts';

/**
 * The reads Limber's pages make (contract §6), sent as its classes send them: include strings, fields and
 * filters copied from its code (sanger/limber, cited per constant), answered with the right records and
 * with empty relationships rendered as empty data, never a 400.
 */

/** app/integrations/sequencescape/api/v2/plate.rb, DEFAULT_INCLUDES. */
const PLATE_DEFAULT_INCLUDES = 'purpose,wells.requests_as_source.primer_panel,wells.aliquots.request.primer_panel,wells.aliquots.request.request_type';
/** app/models/ongoing_plate.rb, search_parameters: every state by default. */
const ONGOING_STATES = 'pending,started,passed,qc_complete,failed,cancelled';

let user: string;
let stock: any;
let childPlate: any;
let grandchild: any;
let tube: any;
let solo: any;
let unused: any;
let submissions: string[];
let multiplexed: string;
const wellIds = new Map<string, Map<string, string>>();

const get = async (path: string) => {
  const res = await call('GET', path);
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 400)}`).toBe(200);
  return res.body;
};
const included = (body: any, type: string) => (body.included ?? []).filter((r: any) => r.type === type);
const stamp = async (source: any, destination: any, template = 'Transfer columns 1-12') => {
  const res = await postTransfer({ template: await templateUuid(template), source: source.attributes.uuid, destination: destination.attributes.uuid, user });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
};
const wellsOf = async (plate: any) =>
  new Map<string, string>((await get(`/api/v2/plates/${plate.id}/wells?page[size]=100`)).data.map((w: any) => [w.attributes.position.name, w.id]));

beforeAll(async () => {
  await freshStore();
  user = await adminUuid();
  const { study, sequencing } = await workIds();
  ({ plate: stock } = await filledPlate(4));
  // Two pools of library requests out of the stock plate, and a lane of sequencing in the first.
  submissions = await poolPlate(stock.id, [
    ['A1', 'B1'],
    ['C1', 'D1'],
  ]);
  const stockWells = await wellsOf(stock);
  const order = (
    await create(
      'orders',
      {},
      { submission: rel('submissions', submissions[0]!), study: rel('studies', study), request_types: rels('request_types', [sequencing]) },
    )
  ).id;
  await createRequest({ submission: submissions[0], order, requestType: sequencing, asset: { type: 'wells', id: stockWells.get('A1')! } });
  // A submission whose order asks for multiplexing (the default `multiplexing` request type is for multiplexing).
  multiplexed = (await createOrder(study, [await idOf('request_types', 'key', 'multiplexing')])).submission;
  // Two generations below the stock plate, then a tube.
  childPlate = await createPlate('Working Dilution');
  await stamp(stock, childPlate);
  grandchild = await createPlate('Library Plate');
  await stamp(childPlate, grandchild);
  // A tube pooled from a plate of one sample (untagged samples could not share it).
  ({ plate: solo } = await filledPlate(1));
  tube = await createTube('Stock Tube');
  await stamp(solo, tube, 'Whole plate to tube');
  unused = await createPlate('Working Dilution');
  for (const plate of [stock, childPlate, grandchild, solo]) wellIds.set(plate.id, await wellsOf(plate));
});

describe("Limber's plate page (v2.rb plate_for_presenter)", () => {
  it('answers PLATE_PRESENTER_INCLUDES with its fields: lineage of wells, requests, submissions, empty relationships as empty data', async () => {
    const body = await get(`/api/v2/plates?filter[uuid]=${childPlate.attributes.uuid}&include=${limberInclude(PLATE_PRESENTER_INCLUDES)}&${PRESENTER_FIELDS}`);
    expect(idsOf({ body } as any)).toEqual([childPlate.id]);
    const plate = body.data[0];
    expect(plate.relationships.child_plates.data).toEqual([{ type: 'plates', id: grandchild.id }]);
    expect(included(body, 'plates').map((p: any) => p.id)).toEqual([grandchild.id]);

    // The plate's own wells (its transfer requests' source wells, in the parent, are included too).
    const own = new Set(plate.relationships.wells.data.map((w: any) => w.id));
    const wells = new Map(
      included(body, 'wells')
        .filter((w: any) => own.has(w.id))
        .map((w: any) => [w.attributes.position.name, w]),
    );
    const a1: any = wells.get('A1');
    // Its transfer request names the stock plate's A1 as source (included too).
    const [transferRequest] = included(body, 'transfer_requests').filter((t: any) =>
      a1.relationships.transfer_requests_as_target.data.some((l: any) => l.id === t.id),
    );
    expect(transferRequest.relationships.source_asset.data).toEqual({ type: 'wells', id: wellIds.get(stock.id)!.get('A1') });
    // The child plate's wells feed the grandchild's, not a tube; no request starts from them.
    expect(a1.relationships.downstream_tubes.data).toEqual([]);
    expect(a1.relationships.requests_as_source.data).toEqual([]);
    // Its aliquots carry the stock well's library request (the outer request), with its submission.
    const aliquots = included(body, 'aliquots');
    expect(aliquots).toHaveLength(4);
    const requests = new Map(included(body, 'requests').map((r: any) => [r.id, r]));
    expect(requests.size).toBe(4);
    for (const request of requests.values() as Iterable<any>) {
      expect(request.relationships.primer_panel.data).toBeNull();
      expect(request.relationships.pre_capture_pool.data).toBeNull();
      expect(request.relationships.poly_metadata.data).toEqual([]);
    }
    // Submissions with exactly the fields asked: the first pool has one lane of sequencing; neither is multiplexed.
    const subs = new Map(included(body, 'submissions').map((s: any) => [s.id, s.attributes]));
    expect(Object.fromEntries(subs)).toEqual({
      [submissions[0]!]: { lanes_of_sequencing: 1, 'multiplexed?': false },
      [submissions[1]!]: { lanes_of_sequencing: 0, 'multiplexed?': false },
    });
    expect(included(body, 'sample_metadata')).toHaveLength(4);
    expect(Object.keys(included(body, 'sample_metadata')[0].attributes).sort()).toEqual(['collected_by', 'sample_common_name', 'sample_description']);
  });

  it("answers the stock plate's page: requests out of its wells, with empty primer panels and pre-capture pools", async () => {
    const body = await get(`/api/v2/plates?filter[uuid]=${stock.attributes.uuid}&include=${limberInclude(PLATE_PRESENTER_INCLUDES)}&${PRESENTER_FIELDS}`);
    const a1 = included(body, 'wells').find((w: any) => w.attributes.position.name === 'A1');
    // A1: a library request and a sequencing request.
    expect(a1.relationships.requests_as_source.data).toHaveLength(2);
    expect(included(body, 'requests')).toHaveLength(5);
    expect(included(body, 'primer_panels')).toEqual([]);
    expect(body.data[0].relationships.child_plates.data).toEqual([{ type: 'plates', id: childPlate.id }]);
  });

  it('serves the multiplexed? of a submission whose order asks for multiplexing', async () => {
    const body = await get(`/api/v2/submissions/${multiplexed}?fields[submissions]=lanes_of_sequencing,multiplexed?`);
    expect(body.data.attributes).toEqual({ lanes_of_sequencing: 0, 'multiplexed?': true });
  });

  it('answers Plate.find_by with DEFAULT_INCLUDES (every plate creator first call)', async () => {
    const body = await get(`/api/v2/plates?filter[uuid]=${grandchild.attributes.uuid}&include=${PLATE_DEFAULT_INCLUDES}`);
    expect(body.data[0].relationships.wells.data).toHaveLength(96);
    expect(included(body, 'requests').every((r: any) => r.relationships.primer_panel.data === null)).toBe(true);
  });
});

describe('wells one transfer away (upstream_* / downstream_*)', () => {
  const include = 'upstream_wells,upstream_plates,upstream_tubes,upstream_assets,downstream_wells,downstream_plates,downstream_tubes,downstream_assets';

  it('a middle well: its source well and plate upstream, its target well and plate downstream', async () => {
    const well = wellIds.get(childPlate.id)!.get('B1')!;
    const body = await get(`/api/v2/wells/${well}?include=${include}`);
    const r = body.data.relationships;
    expect(r.upstream_wells.data).toEqual([{ type: 'wells', id: wellIds.get(stock.id)!.get('B1') }]);
    expect(r.upstream_plates.data).toEqual([{ type: 'plates', id: stock.id }]);
    expect(r.upstream_assets.data).toEqual([{ type: 'plates', id: stock.id }]);
    expect(r.upstream_tubes.data).toEqual([]);
    expect(r.downstream_wells.data).toEqual([{ type: 'wells', id: wellIds.get(grandchild.id)!.get('B1') }]);
    expect(r.downstream_plates.data).toEqual([{ type: 'plates', id: grandchild.id }]);
    expect(r.downstream_tubes.data).toEqual([]);
  });

  it("a plate's filled well feeds the tube pooled from it; an empty well has no neighbours", async () => {
    const wells = wellIds.get(solo.id)!;
    const body = await get(`/api/v2/plates/${solo.id}/wells?include=downstream_tubes.purpose,upstream_plates&page[size]=100`);
    const byPosition = new Map(body.data.map((w: any) => [w.attributes.position.name, w]));
    expect((byPosition.get('A1') as any).relationships.downstream_tubes.data).toEqual([{ type: 'tubes', id: tube.id }]);
    expect((byPosition.get('H12') as any).relationships.downstream_tubes.data).toEqual([]);
    expect((byPosition.get('H12') as any).relationships.upstream_plates.data).toEqual([]);
    expect(included(body, 'tubes').map((t: any) => t.id)).toEqual([tube.id]);
    // A labware's purpose links as `purposes` (contract §7.4).
    expect(included(body, 'purposes')).toHaveLength(1);
    expect(wells.size).toBe(96);
  });

  it('requests_as_target is empty until work completes on the well', async () => {
    const body = await get(`/api/v2/wells/${wellIds.get(childPlate.id)!.get('A1')}?include=requests_as_target`);
    expect(body.data.relationships.requests_as_target.data).toEqual([]);
  });
});

describe('labware relationships Limber reads', () => {
  it('plates: samples, direct_submissions, submission_pools (with plates_in_submission) and transfers_as_destination', async () => {
    const body = await get(`/api/v2/plates/${stock.id}?include=samples,direct_submissions,submission_pools,transfers_as_destination`);
    const r = body.data.relationships;
    expect(r.samples.data).toHaveLength(4);
    expect(r.direct_submissions.data.map((s: any) => s.id).sort()).toEqual([...submissions].sort());
    // The stock plate's pools: the submissions of the requests out of its wells, each out of this plate alone.
    expect(r.submission_pools.data).toEqual(submissions.map((id) => ({ type: 'submission_pools', id })));
    expect(included(body, 'submission_pools').map((p: any) => p.attributes.plates_in_submission)).toEqual([1, 1]);
    expect(r.transfers_as_destination.data).toEqual([]);
    const child = await get(`/api/v2/plates/${childPlate.id}?include=direct_submissions`);
    expect(child.data.relationships.direct_submissions.data).toEqual([]);

    // A second labware with work of the second pool: that pool now spans two (Limber then asks for unique dual indexes).
    const other = await createTube('Stock Tube');
    const receptacle = (await get(`/api/v2/tubes/${other.id}/relationships/receptacle`)).data;
    const { libraryCreation } = await workIds();
    const order = (await get(`/api/v2/submissions/${submissions[1]}/orders`)).data[0].id;
    await createRequest({ submission: submissions[1], order, requestType: libraryCreation, asset: receptacle });
    // TaggedPlateBehaviour and TagCollection read them through the related links (json_api_client without an include):
    // the child plate has no request out of it, so its pools are those its material came in for.
    const pools = await get(`/api/v2/plates/${childPlate.id}/submission_pools`);
    expect(pools.data.map((p: any) => [p.id, p.attributes.plates_in_submission])).toEqual([
      [submissions[0], 1],
      [submissions[1], 2],
    ]);
    expect((await get(`/api/v2/submission_pools/${submissions[0]}/tag_layout_templates`)).data).toEqual([]);

    // Its transfers_as_destination, as the extended CSV export and the multi-pooled plate page read them.
    const into = await get(`/api/v2/plates/${childPlate.id}?include=transfers_as_destination.source,transfers_as_destination.destination`);
    const [transfer] = included(into, 'transfers');
    expect(into.data.relationships.transfers_as_destination.data).toEqual([{ type: 'transfers', id: transfer.id }]);
    expect(transfer.attributes.transfer_type).toBe('Transfer::BetweenPlates');
    expect(transfer.relationships.source.data).toEqual({ type: 'plates', id: stock.id });
    expect(transfer.relationships.destination.data).toEqual({ type: 'plates', id: childPlate.id });
  });

  it('tubes: DEFAULT_INCLUDES, child_tubes and child_plates (none), aliquots with project and tags empty', async () => {
    const body = await get(`/api/v2/tubes?filter[uuid]=${tube.attributes.uuid}&include=${TUBE_DEFAULT_INCLUDES}`);
    expect(included(body, 'aliquots')).toHaveLength(1);
    const rels = await get(`/api/v2/tubes/${tube.id}?include=child_tubes,child_plates,direct_submissions,aliquots.project,aliquots.tag,aliquots.tag2`);
    expect(rels.data.relationships.child_tubes.data).toEqual([]);
    expect(rels.data.relationships.child_plates.data).toEqual([]);
    for (const aliquot of included(rels, 'aliquots')) {
      expect(aliquot.relationships.project.data).toBeNull();
      expect(aliquot.relationships.tag.data).toBeNull();
      expect(aliquot.relationships.tag2.data).toBeNull();
    }
  });

  it('tube racks: TUBE_RACK_PRESENTER_INCLUDES, six levels deep', async () => {
    const racked = tubeOf(await createTube('Stock Tube'));
    const rack = await createRack('Tube Rack 96', { size: 96, tube_locations: { A1: { uuid: racked.uuid } } });
    const body = await get(`/api/v2/tube_racks?filter[uuid]=${rack.attributes.uuid}&include=${TUBE_RACK_PRESENTER_INCLUDES}`);
    expect(included(body, 'tubes').map((t: any) => t.id)).toEqual([racked.id]);
    expect(included(body, 'receptacles')).toHaveLength(1);
  });

  it('the unrecorded types answer empty listings; an include path of 9 levels is a 400 naming the limit of 8', async () => {
    // (projects are reference data now: test/integration/reference-types.test.ts)
    for (const type of ['primer_panels', 'pre_capture_pools', 'tags']) {
      const body = await get(`/api/v2/${type}`);
      expect(body.data, type).toEqual([]);
      expect(body.meta.record_count).toBe(0);
    }
    const deep = await call('GET', `/api/v2/plates/${stock.id}?include=wells.aliquots.request.submission.orders.study.samples.studies.samples`);
    expect(expectError(deep, 400).detail).toContain('at most 8');
  });
});

describe("Limber's searches", () => {
  /** app/controllers/search_controller.rb ongoing_plates → Plate.find_all(OngoingPlate#search_parameters, paginate) */
  const ongoing = (purpose: string, includeUsed: boolean, extra = '') =>
    `/api/v2/plates?filter[state]=${ONGOING_STATES}&filter[purpose_name]=${encodeURIComponent(purpose)}&filter[include_used]=${includeUsed}&include=${PLATE_DEFAULT_INCLUDES}&page[number]=1&page[size]=30${extra}`;

  it('ongoing plates: include_used=false leaves out plates with children; true keeps them', async () => {
    expect(idsOf({ body: await get(ongoing('Working Dilution', false)) } as any)).toEqual([unused.id]);
    const all = await get(ongoing('Working Dilution', true));
    expect(idsOf({ body: all } as any)).toEqual([childPlate.id, unused.id]);
    expect(all.meta.record_count).toBe(2);
  });

  it('filter[state] keeps the labware in the derived state asked for', async () => {
    const pending = await get(`/api/v2/plates?filter[state]=pending&filter[purpose_name]=Working%20Dilution`);
    // Stamped wells' transfer requests start pending; the unused plate has none (its purpose default, pending).
    expect(idsOf({ body: pending } as any)).toEqual([childPlate.id, unused.id]);
    expect((await get(`/api/v2/plates?filter[state]=passed,failed`)).data).toEqual([]);
    expect((await get(`/api/v2/tubes?filter[state]=pending&filter[id]=${tube.id}`)).data.map((t: any) => t.id)).toEqual([tube.id]);
  });

  it('pages a tested listing by page[number] with an exact count (Limber reads total_pages from links.last)', async () => {
    const first = await get(`/api/v2/plates?filter[state]=${ONGOING_STATES}&filter[include_used]=true&page[number]=1&page[size]=2`);
    const plates = [stock.id, childPlate.id, grandchild.id, solo.id, unused.id];
    expect(first.meta.record_count).toBe(5);
    expect(decodeURIComponent(first.links.last)).toContain('page[number]=3');
    const pages = [first];
    for (const n of [2, 3]) pages.push(await get(`/api/v2/plates?filter[state]=${ONGOING_STATES}&filter[include_used]=true&page[number]=${n}&page[size]=2`));
    expect(pages.flatMap((body) => idsOf({ body } as any))).toEqual(plates);
  });

  /** app/controllers/pipeline_work_in_progress_controller.rb retrieve_labware */
  it('pipeline work in progress: labware without children of the purposes, updated since a date, by update time, with ancestors', async () => {
    const since = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const include = limberInclude(['state_changes', 'purpose', 'ancestors.purpose']);
    const query = `filter[without_children]=true&filter[purpose_name]=Working%20Dilution,Library%20Plate&filter[updated_at_gt]=${since}&sort=updated_at&page[size]=500`;
    const body = await get(`/api/v2/labware?include=${include}&${query}`);
    const expected = [unused, grandchild]
      .map((p) => ({ id: p.id, at: p.attributes.updated_at }))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : Number(a.id) - Number(b.id)));
    // The child plate has a child; the grandchild and the unused plate have none (a transfer writes only its destination).
    expect(body.data.map((r: any) => r.id)).toEqual(expected.map((e) => e.id));
    const library = body.data.find((r: any) => r.id === grandchild.id);
    expect(library.relationships.ancestors.data.map((a: any) => a.id).sort()).toEqual([stock.id, childPlate.id].sort());
    expect(
      included(body, 'purposes')
        .map((p: any) => p.attributes.name)
        .sort(),
    ).toEqual(['Library Plate', 'Stock Plate', 'Working Dilution']);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await get(`/api/v2/labware?filter[updated_at_gt]=${tomorrow}&sort=updated_at`)).data).toEqual([]);
    expect((await get(`/api/v2/labware?filter[created_at_gt]=${since}&filter[id]=${tube.id}`)).data.map((r: any) => r.id)).toEqual([tube.id]);
  });

  it('filter[created_at_gt] / filter[updated_at_gt] keep what is strictly later than the instant named: not a plate made at that very instant', async () => {
    const plate = await createPlate('Working Dilution');
    const { created_at: created, updated_at: updated } = plate.attributes;
    const shifted = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    const found = async (filter: string, instant: string) =>
      (await get(`/api/v2/plates?filter[${filter}]=${encodeURIComponent(instant)}&filter[id]=${plate.id}`)).data.map((r: any) => r.id);
    for (const [filter, instant] of [
      ['created_at_gt', created],
      ['updated_at_gt', updated],
    ]) {
      expect(await found(filter, shifted(instant, -1)), `${filter} one millisecond before`).toEqual([plate.id]);
      expect(await found(filter, instant), `${filter} at the very instant`).toEqual([]);
      expect(await found(filter, shifted(instant, 1)), `${filter} one millisecond after`).toEqual([]);
      // The same instant in another zone's offset (as Ruby's Time#to_s writes it) names the same instant.
      const local = new Date(Date.parse(instant) + 3_600_000)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.(\d{3})Z$/, '.$1 +0100');
      expect(await found(filter, local), `${filter} at ${local}`).toEqual([]);
      expect(await found(filter, instant.slice(0, 10)), `${filter} on the day named`).toEqual([plate.id]);
    }
  });

  it("filter[user_uuid]: the labware a user last made, filled or tagged (the reference's plate owner); anyone else's uuid owns none", async () => {
    // The admin stamped the child plate and the grandchild and filled the tube; the stock plates were POSTed without a user.
    expect(idsOf({ body: await get(`/api/v2/plates?filter[user_uuid]=${user}`) } as any)).toEqual([childPlate.id, grandchild.id]);
    expect(idsOf({ body: await get(`/api/v2/tubes?filter[user_uuid]=${user}`) } as any)).toEqual([tube.id]);
    const library = await get(`/api/v2/labware?filter[user_uuid]=${user}&filter[purpose_name]=Library%20Plate`);
    expect(idsOf({ body: library } as any)).toEqual([grandchild.id]);
    expect((await get(`/api/v2/plates?filter[user_uuid]=00000000-0000-4000-8000-000000000000`)).data).toEqual([]);
    expect((await get(`/api/v2/plates?filter[user_uuid]=${stock.attributes.uuid}`)).data).toEqual([]);
  });

  it('exports by filter[id] on any type; ids of another type match nothing', async () => {
    expect(idsOf({ body: await get(`/api/v2/plates?filter[id]=${unused.id},${stock.id}`) } as any)).toEqual([stock.id, unused.id]);
    expect((await get(`/api/v2/tubes?filter[id]=${stock.id}`)).data).toEqual([]);
    expect(idsOf({ body: await get(`/api/v2/labware?filter[id]=${tube.id},${stock.id}`) } as any)).toEqual([stock.id, tube.id]);
    expect(idsOf({ body: await get(`/api/v2/submissions?filter[id]=${submissions[1]}`) } as any)).toEqual([submissions[1]]);
    const well = wellIds.get(stock.id)!.get('A1')!;
    expect(idsOf({ body: await get(`/api/v2/wells?filter[id]=${well}`) } as any)).toEqual([well]);
  });

  it('refuses values that mean nothing with a 400 naming the filter and the value', async () => {
    for (const [query, parameter] of [
      ['filter[id]=abc', 'filter[id]'],
      ['filter[include_used]=maybe', 'filter[include_used]'],
      ['filter[without_children]=yes', 'filter[without_children]'],
      ['filter[updated_at_gt]=yesterday', 'filter[updated_at_gt]'],
      ['filter[created_at_gt]=2026-13-45', 'filter[created_at_gt]'],
      ['filter[user_uuid]=admin', 'filter[user_uuid]'],
    ] as const) {
      const error = expectError(await call('GET', `/api/v2/plates?${query}`), 400);
      expect(error.source, query).toEqual({ parameter });
      expect(error.detail, query).toContain(query.split('=')[1]);
    }
  });
});
