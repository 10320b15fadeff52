import { beforeAll, describe, expect, it } from 'vitest';
import { call, idOf } from '../support/api.ts';
import { filledPlate, templateUuid, uuidOf } from '../support/lab.ts';
import { PLATE_DEFAULT_INCLUDES, PLATE_FOR_COMPLETION, PLATE_PRESENTER_INCLUDES, PRESENTER_FIELDS, TUBE_DEFAULT_INCLUDES } from '../support/limber.ts';
import { createQcable, moveQcable } from '../support/qc.ts';
import { ADMIN_KEY, freshStore } from '../support/store.ts';

/**
 * A whole pipeline run from Limber's calls (issue 21, item 3): each step is the call Limber's labware
 * creator, state changer or controller makes (sanger/limber, cited per step), sent as its client sends it —
 * `Model.create!(attributes)` POSTs attributes only, by uuid — and each step checks what Limber reads next
 * (states, `aliquots.request`, pools, children, `target_tubes`), read with Limber's own include strings.
 */

beforeAll(freshStore);

let user: string;
let study: string;
const purposeUuids = new Map<string, string>();
const purpose = (name: string) => purposeUuids.get(name)!;

/** The purposes this run uses, registered as Limber's `rake config:generate` registers its own (lib/purpose_config.rb). */
const LIMBER_PURPOSES: [type: string, attributes: Record<string, unknown>][] = [
  ['plate_purposes', { name: 'LB Cherrypick', stock_plate: true, cherrypickable_target: true, input_plate: true, size: 96 }],
  ['plate_purposes', { name: 'LB Shear', stock_plate: false, cherrypickable_target: false, input_plate: false, size: 96 }],
  ['plate_purposes', { name: 'LB Lib PCR', stock_plate: false, cherrypickable_target: false, input_plate: false, size: 96 }],
  ['plate_purposes', { name: 'LB Lib Pool Plate', stock_plate: false, cherrypickable_target: false, input_plate: false, size: 96 }],
  ['tube_purposes', { name: 'LB Lib Pool Norm', target_type: 'MultiplexedLibraryTube', purpose_type: 'IlluminaHtp::MxTubePurpose' }],
  ['tube_purposes', { name: 'LB Lib Pool Norm 2', target_type: 'MultiplexedLibraryTube', purpose_type: 'IlluminaHtp::MxTubePurpose' }],
  ['tube_purposes', { name: 'LB Rack Tube', target_type: 'SampleTube', purpose_type: 'IlluminaHtp::StockTubePurpose' }],
  ['tube_rack_purposes', { name: 'LB Seq Rack', size: 96, target_type: 'TubeRack', purpose_type: 'TubeRack::Purpose' }],
];

beforeAll(async () => {
  user = await uuidOf('users', 'login', 'admin');
  study = await idOf('studies', 'name', 'Study A');
  for (const [type, attributes] of LIMBER_PURPOSES) {
    const res = await call('POST', `/api/v2/${type}`, { body: { data: { type, attributes } }, key: ADMIN_KEY });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    purposeUuids.set(attributes.name as string, res.body.data.attributes.uuid);
  }
});

/** Limber's `Model.create!(attributes)`: a POST of attributes only. Answers the record created. */
async function create(type: string, attributes: Record<string, unknown>): Promise<any> {
  const res = await call('POST', `/api/v2/${type}`, { body: { data: { type, attributes } } });
  expect(res.status, `${type}: ${JSON.stringify(res.body).slice(0, 600)}`).toBe(201);
  return res.body.data;
}

async function get(path: string): Promise<any> {
  const res = await call('GET', path);
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 600)}`).toBe(200);
  return res.body;
}

/** A related record as json_api_client reads it (`creation.child`): the relationship's related link. */
const related = async (record: any, name: string) => (await get(new URL(record.relationships[name].links.related).pathname)).data;

/** A document's included records of a type, by id. */
const includedOf = (body: any, type: string): Map<string, any> => new Map((body.included ?? []).filter((r: any) => r.type === type).map((r: any) => [r.id, r]));

/** `Sequencescape::Api::V2::Plate.find_by(uuid:)` with the default includes (plate.rb): the plate, its wells by position, and what they include. */
async function plateFindBy(uuid: string, include = PLATE_DEFAULT_INCLUDES.join(',')) {
  const body = await get(`/api/v2/plates?filter[uuid]=${uuid}&include=${include}`);
  expect(body.data).toHaveLength(1);
  const plate = body.data[0];
  const wells = includedOf(body, 'wells');
  const byPosition = new Map<string, any>(plate.relationships.wells.data.map((w: any) => [wells.get(w.id).attributes.position.name, wells.get(w.id)]));
  return { plate, body, wells: byPosition };
}

/** The plate page (v2.rb plate_for_presenter): Limber's presenter includes and fields. */
const platePage = (id: string) => get(`/api/v2/plates/${id}?include=${PLATE_PRESENTER_INCLUDES.join(',')}&${PRESENTER_FIELDS}`);

/** The plate's own wells in a plate document (others may be included too: the sources of its transfer requests), those holding material. */
function filledWells(body: any): any[] {
  const wells = includedOf(body, 'wells');
  return body.data.relationships.wells.data.map((w: any) => wells.get(w.id)).filter((w: any) => w.relationships.aliquots.data.length > 0);
}

/** Of a well included in `body`: the requests its aliquots carry (Limber's `aliquots.request`), by id. */
function aliquotRequests(body: any, well: any): string[] {
  const aliquots = includedOf(body, 'aliquots');
  return well.relationships.aliquots.data.map((a: any) => aliquots.get(a.id).relationships.request.data?.id ?? null);
}

/** StateChangers::DefaultStateChanger#move_to! (app/models/state_changers.rb): every attribute it sends. */
const stateChange = (labware: any, targetState: string, extra: { contents?: string[]; reason?: string; customer_accepts_responsibility?: boolean } = {}) =>
  create('state_changes', {
    contents: extra.contents ?? null,
    customer_accepts_responsibility: extra.customer_accepts_responsibility ?? false,
    reason: extra.reason ?? null,
    target_state: targetState,
    target_uuid: labware.attributes.uuid,
    user_uuid: user,
  });

/** SequencescapeSubmission#save (app/models/sequencescape_submission.rb): an order per asset group from a template, then a submission of them, submitted. */
async function submit(template: string, wells: any[], requestOptions: Record<string, unknown>) {
  const order = await create('orders', {
    submission_template_attributes: {
      request_options: requestOptions,
      user_uuid: user,
      asset_uuids: wells.map((w) => w.attributes.uuid),
      autodetect_studies: true,
      autodetect_projects: true,
    },
    submission_template_uuid: await uuidOf('submission_templates', 'name', template),
  });
  return create('submissions', { and_submit: true, order_uuids: [order.attributes.uuid], user_uuid: user });
}

/** The pipeline's library request type: Limber's purposes filter a well's requests by it (`request_type_key` of their creator's config). */
const LIBRARY_REQUEST_TYPE = 'limber_wgs';

/** LabwareCreators::Base#create_plate_from_parent! then StampedPlate#transfer_material_from_parent! (well_filter_behaviour.rb): the child, stamped well to well with each well's outer request. */
async function stampedPlate(parent: any, childPurpose: string) {
  const creation = await create('plate_creations', { child_purpose_uuid: purpose(childPurpose), parent_uuid: parent.attributes.uuid, user_uuid: user });
  const child = await related(creation, 'child');
  const source = await plateFindBy(parent.attributes.uuid, [...PLATE_DEFAULT_INCLUDES, 'wells.requests_as_source.request_type'].join(','));
  const target = await plateFindBy(child.attributes.uuid);
  const requests = includedOf(source.body, 'requests');
  const types = includedOf(source.body, 'request_types');
  const attributes = [...source.wells]
    // WellFilter#well_transfers: empty and failed wells stay behind.
    .filter(([, well]) => well.relationships.aliquots.data.length > 0 && well.attributes.state !== 'failed')
    .map(([position, well]) => {
      // WellFilter#filter_requests: the one active request of the creator's request type out of the well, else the submission of its aliquots' requests.
      const out = well.relationships.requests_as_source.data
        .map((r: any) => requests.get(r.id))
        .filter((r: any) => r.attributes.state !== 'passed' && types.get(r.relationships.request_type.data.id).attributes.key === LIBRARY_REQUEST_TYPE);
      return {
        source_asset: well.attributes.uuid,
        target_asset: target.wells.get(position).attributes.uuid,
        ...(out.length === 1 ? { outer_request: out[0].attributes.uuid } : {}),
      };
    });
  await create('transfer_request_collections', { transfer_requests_attributes: attributes, user_uuid: user });
  return child;
}

describe('a whole pipeline from Limber’s calls', () => {
  it('stock plate → submission from a template → stamped plates → tag plate → pass → charge and pass → MX tubes by submission → pass', {
    timeout: 240_000,
  }, async () => {
    // The stock plate, its samples, and the submission Limber's "Choose workflow" button makes of its wells.
    const { plate: stock } = await filledPlate(4, 'LB Cherrypick', study);
    const stockRead = await plateFindBy(stock.attributes.uuid);
    const filled = [...stockRead.wells.values()].filter((w) => w.relationships.aliquots.data.length > 0);
    const submission = await submit('Limber-Htp - WGS - NovaSeq 6000 Paired end sequencing', filled, {
      library_type: 'Standard',
      fragment_size_required_from: '100',
      fragment_size_required_to: '400',
      read_length: 150,
    });
    expect(submission.attributes.state).toBe('ready');
    const submitted = await platePage(stock.id);
    const typeKeys = new Map([...includedOf(submitted, 'request_types').values()].map((t) => [t.id, t.attributes.key]));
    const libraryRequests = [...includedOf(submitted, 'requests').values()].filter(
      (r) => typeKeys.get(r.relationships.request_type.data.id) === LIBRARY_REQUEST_TYPE,
    );
    expect(libraryRequests.map((r) => r.attributes.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(new Set(libraryRequests.map((r) => r.relationships.submission.data.id))).toEqual(new Set([submission.id]));

    // LB Shear: a plate creation and a stamp with outer requests; the child's aliquots carry them.
    const shear = await stampedPlate(stock, 'LB Shear');
    const shearPage = await platePage(shear.id);
    expect(shearPage.data.attributes.state).toBe('pending');
    expect((await related(shear, 'parents')).map((p: any) => p.id)).toEqual([stock.id]);
    const shearWells = filledWells(shearPage);
    expect(shearWells.flatMap((w) => aliquotRequests(shearPage, w)).sort()).toEqual(libraryRequests.map((r) => r.id).sort());
    await stateChange(shear, 'passed');
    expect((await platePage(shear.id)).data.attributes.state).toBe('passed');
    const started = await get(`/api/v2/submissions/${submission.id}/requests`);
    expect(started.data.filter((r: any) => libraryRequests.some((l) => l.id === r.id)).map((r: any) => r.attributes.state)).toEqual([
      'started',
      'started',
      'started',
      'started',
    ]);

    // LB Lib PCR: LabwareCreators::TaggedPlate — stamp into the tag plate, lay out its tags, exhaust its qcable, convert it.
    const { qcable, plate: tagPlate } = await createQcable('LOT-0002');
    await moveQcable(tagPlate.id, 'pending');
    await moveQcable(tagPlate.id, 'available');
    const scanned = await get(`/api/v2/qcables?filter[barcode]=${tagPlate.attributes.labware_barcode.human_barcode}&include=lot,lot.template`);
    const tagTemplate = [...includedOf(scanned, 'tag_layout_templates').values()][0];
    const stampHash = Object.fromEntries([...(await plateFindBy(shear.attributes.uuid)).wells.keys()].map((position) => [position, position]));
    await create('transfers', {
      destination_uuid: tagPlate.attributes.uuid,
      source_uuid: shear.attributes.uuid,
      transfer_template_uuid: await templateUuid('Custom pooling'),
      transfers: stampHash,
      user_uuid: user,
    });
    await create('tag_layouts', {
      enforce_uniqueness: false,
      plate_uuid: tagPlate.attributes.uuid,
      tag_layout_template_uuid: tagTemplate.attributes.uuid,
      user_uuid: user,
    });
    await create('state_changes', { reason: 'Used in Library creation', target_state: 'exhausted', target_uuid: tagPlate.attributes.uuid, user_uuid: user });
    const conversion = await create('plate_conversions', {
      parent_uuid: shear.attributes.uuid,
      purpose_uuid: purpose('LB Lib PCR'),
      target_uuid: tagPlate.attributes.uuid,
      user_uuid: user,
    });
    const library = await related(conversion, 'target');
    expect((await get(`/api/v2/qcables/${qcable.id}`)).data.attributes.state).toBe('exhausted');
    const libraryPage = await platePage(library.id);
    expect((await related(library, 'purpose')).attributes.name).toBe('LB Lib PCR');
    const libraryWells = filledWells(libraryPage);
    expect(libraryWells).toHaveLength(4);
    const aliquots = includedOf(libraryPage, 'aliquots');
    expect(libraryWells.every((w) => w.relationships.aliquots.data.every((a: any) => aliquots.get(a.id).attributes.tag_index !== null))).toBe(true);
    expect(libraryWells.flatMap((w) => aliquotRequests(libraryPage, w)).sort()).toEqual(libraryRequests.map((r) => r.id).sort());

    // Pass it, then "Charge and pass" (WorkCompletionBehaviour#create): the library requests pass; their sequencing requests move onto the library wells.
    await stateChange(library, 'passed');
    expect((await platePage(library.id)).data.attributes.state).toBe('passed');
    const forCompletion = await get(`/api/v2/plates/${library.id}?include=${PLATE_FOR_COMPLETION}`);
    const inProgress = [...new Set([...includedOf(forCompletion, 'submissions').values()].map((s) => s.attributes.uuid))];
    expect(inProgress).toEqual([submission.attributes.uuid]);
    await create('work_completions', { submission_uuids: inProgress, target_uuid: library.attributes.uuid, user_uuid: user });
    const completed = await platePage(library.id);
    const passed = [...includedOf(completed, 'requests').values()].filter((r) => libraryRequests.some((l) => l.id === r.id));
    expect(passed.map((r) => r.attributes.state)).toEqual(['passed', 'passed', 'passed', 'passed']);
    // The multiplexing requests moved on to the library wells, each well's own.
    const completedTypes = new Map([...includedOf(completed, 'request_types').values()].map((t) => [t.id, t.attributes.key]));
    const completedRequests = includedOf(completed, 'requests');
    const out = filledWells(completed).flatMap((w) =>
      w.relationships.requests_as_source.data.map((r: any) => completedTypes.get(completedRequests.get(r.id).relationships.request_type.data.id)),
    );
    expect(out).toEqual(['limber_multiplexing', 'limber_multiplexing', 'limber_multiplexing', 'limber_multiplexing']);

    // LB Lib Pool Norm: PooledTubesBySubmission — a tube per submission (SpecificTubeCreation, children by name), then every well into it.
    const barcode = library.attributes.labware_barcode.human_barcode;
    const tubeCreation = await create('specific_tube_creations', {
      child_purpose_uuids: [purpose('LB Lib Pool Norm')],
      parent_uuids: [library.attributes.uuid],
      tube_attributes: [{ name: `${barcode} A1:D1` }],
      user_uuid: user,
    });
    const children = await related(tubeCreation, 'children');
    expect(children.map((t: any) => t.attributes.name)).toEqual([`${barcode} A1:D1`]);
    const [tube] = children;
    const pooling = await create('transfer_request_collections', {
      transfer_requests_attributes: libraryWells.map((w) => ({
        source_asset: w.attributes.uuid,
        target_asset: tube.attributes.uuid,
        submission: submission.attributes.uuid,
      })),
      user_uuid: user,
    });
    expect((await related(pooling, 'target_tubes')).map((t: any) => t.id)).toEqual([tube.id]);
    const tubePage = await get(`/api/v2/tubes/${tube.id}?include=${TUBE_DEFAULT_INCLUDES}`);
    expect(tubePage.data.attributes.state).toBe('pending');
    expect([...includedOf(tubePage, 'aliquots').values()]).toHaveLength(4);
    const downstream = await get(`/api/v2/plates/${library.id}?include=wells.downstream_tubes`);
    expect([...includedOf(downstream, 'tubes').keys()]).toEqual([tube.id]);

    // Pass the tube (an MX tube's state changer).
    await stateChange(tube, 'passed');
    expect((await get(`/api/v2/tubes/${tube.id}`)).data.attributes.state).toBe('passed');
  });

  it('a failed well stays behind; two plates pooled into one (pooled plate creation + bulk transfer, a QC file); MX tubes, a tube from a tube; a plate split into a rack of tubes', {
    timeout: 240_000,
  }, async () => {
    // Two stock plates of two samples, each submitted, each stamped and passed.
    const stamped = [];
    const submissions = [];
    for (let i = 0; i < 2; i++) {
      const { plate } = await filledPlate(2, 'LB Cherrypick', study);
      const wells = filledWells(await platePage(plate.id));
      submissions.push(await submit('Limber-Htp - WGS - NovaSeq 6000 Paired end sequencing', wells, { library_type: 'Standard', read_length: 150 }));
      const shear = await stampedPlate(plate, 'LB Shear');
      await stateChange(shear, 'passed');
      stamped.push(shear);
    }
    const [first, second] = stamped;

    // The "fail wells" action (plates_controller.rb): B1 of the first plate failed, the customer accepting responsibility.
    const failing = await stateChange(first, 'failed', { contents: ['B1'], reason: 'Failed library', customer_accepts_responsibility: true });
    expect(failing.attributes.previous_state).toBe('passed');
    const failedPage = await platePage(first.id);
    const [a1, b1] = filledWells(failedPage);
    expect([a1.attributes.state, b1.attributes.state]).toEqual(['passed', 'failed']);
    const failedRequest = includedOf(failedPage, 'requests').get(aliquotRequests(failedPage, b1)[0]!);
    expect(failedRequest.attributes.state).toBe('failed');
    expect(failedPage.data.attributes.state).toBe('passed');

    // The next stamp leaves the failed well behind.
    const lib = await stampedPlate(first, 'LB Lib PCR');
    expect(filledWells(await platePage(lib.id)).map((w) => w.attributes.position.name)).toEqual(['A1']);

    // MultiPlatePool: a pooled plate of two parents, then one bulk transfer of their wells (A1, B1 of each, column by column).
    const pooled = await related(
      await create('pooled_plate_creations', {
        child_purpose_uuid: purpose('LB Lib Pool Plate'),
        parent_uuids: [lib.attributes.uuid, second.attributes.uuid],
        user_uuid: user,
      }),
      'child',
    );
    expect((await related(pooled, 'parents')).map((p: any) => p.id).sort()).toEqual([lib.id, second.id].sort());
    const wellTransfers = [
      ['A1', lib, 'A1'],
      ['A1', second, 'B1'],
      ['B1', second, 'C1'],
    ].map(([from, source, to]) => ({
      source_uuid: (source as any).attributes.uuid,
      source_location: from,
      destination_uuid: pooled.attributes.uuid,
      destination_location: to,
    }));
    await create('bulk_transfers', { user_uuid: user, well_transfers: wellTransfers });
    // Tagged in place (CustomTaggedPlate's TagLayout.create!), so the pools' samples tell apart.
    const template = (await get('/api/v2/lots?filter[lot_number]=LOT-0001&include=template')).included[0];
    await create('tag_layouts', { plate_uuid: pooled.attributes.uuid, tag_layout_template_uuid: template.attributes.uuid, user_uuid: user });
    const pooledPage = await platePage(pooled.id);
    const pooledWells = filledWells(pooledPage);
    expect(pooledWells.map((w) => w.attributes.position.name)).toEqual(['A1', 'B1', 'C1']);
    expect(
      pooledWells.map(
        (w) =>
          includedOf(pooledPage, 'submissions').get(includedOf(pooledPage, 'requests').get(aliquotRequests(pooledPage, w)[0]!).relationships.submission.data.id)
            .id,
      ),
    ).toEqual([submissions[0].id, submissions[1].id, submissions[1].id]);

    // QcFile.create_for_labware! (a creator's CSV), listed on the labware page.
    const qcFile = await call('POST', '/api/v2/qc_files', {
      body: {
        data: {
          type: 'qc_files',
          attributes: { contents: 'Well,Concentration\nA1,12.3\n', filename: 'pooled.csv' },
          relationships: { labware: { data: { id: pooled.id, type: 'labware' } } },
        },
      },
    });
    expect(qcFile.status, JSON.stringify(qcFile.body)).toBe(201);
    expect((await get(`/api/v2/plates/${pooled.id}/qc_files`)).data.map((f: any) => f.attributes.filename)).toEqual(['pooled.csv']);

    // PooledTubesBySubmission: one MX tube per submission, then pass them.
    await stateChange(pooled, 'passed');
    const barcode = pooled.attributes.labware_barcode.human_barcode;
    const tubes = await related(
      await create('specific_tube_creations', {
        child_purpose_uuids: [purpose('LB Lib Pool Norm'), purpose('LB Lib Pool Norm')],
        parent_uuids: [pooled.attributes.uuid],
        tube_attributes: [{ name: `${barcode} A1:A1` }, { name: `${barcode} B1:C1` }],
        user_uuid: user,
      }),
      'children',
    );
    const tubeOf = new Map<string, any>(tubes.map((t: any) => [t.attributes.name, t]));
    const pools = [
      [submissions[0], ['A1'], `${barcode} A1:A1`],
      [submissions[1], ['B1', 'C1'], `${barcode} B1:C1`],
    ] as const;
    const collection = await create('transfer_request_collections', {
      transfer_requests_attributes: pools.flatMap(([submission, positions, name]) =>
        positions.map((position) => ({
          source_asset: pooledWells.find((w) => w.attributes.position.name === position).attributes.uuid,
          target_asset: tubeOf.get(name).attributes.uuid,
          submission: submission.attributes.uuid,
        })),
      ),
      user_uuid: user,
    });
    expect((await related(collection, 'target_tubes')).map((t: any) => t.id).sort()).toEqual(tubes.map((t: any) => t.id).sort());
    for (const [, positions, name] of pools) {
      const tube = tubeOf.get(name);
      const page = await get(`/api/v2/tubes/${tube.id}?include=${TUBE_DEFAULT_INCLUDES}`);
      expect([...includedOf(page, 'aliquots').values()]).toHaveLength(positions.length);
      await stateChange(tube, 'passed');
      expect((await get(`/api/v2/tubes/${tube.id}`)).data.attributes.state).toBe('passed');
    }

    // PooledTubesFromWholeTubes: a tube from a tube, the whole tube moved into it, passed.
    const parentTube = tubeOf.get(`${barcode} B1:C1`);
    const normalised = await related(
      await create('tube_from_tube_creations', { child_purpose_uuid: purpose('LB Lib Pool Norm 2'), parent_uuid: parentTube.attributes.uuid, user_uuid: user }),
      'child',
    );
    await create('transfer_request_collections', {
      transfer_requests_attributes: [{ source_asset: parentTube.attributes.uuid, target_asset: normalised.attributes.uuid }],
      user_uuid: user,
    });
    expect((await get(`/api/v2/tubes/${parentTube.id}?include=child_tubes`)).data.relationships.child_tubes.data.map((t: any) => t.id)).toEqual([
      normalised.id,
    ]);
    const normalisedPage = await get(`/api/v2/tubes/${normalised.id}?include=${TUBE_DEFAULT_INCLUDES}`);
    expect([...includedOf(normalisedPage, 'aliquots').values()]).toHaveLength(2);
    await stateChange(normalised, 'passed');
    expect((await get(`/api/v2/tubes/${normalised.id}`)).data.attributes.state).toBe('passed');

    // PlateSplitToTubeRacks: a rack of new tubes (by the barcodes its scan file names), each well into its tube, the rack passed.
    const rackBarcode = `TR${String(Date.now()).slice(-8)}`;
    const racked = ['A1', 'B1'].map((position, i) => ({
      tube_barcode: `FX${String(Date.now() + i).slice(-8)}`,
      tube_name: `SEQ:${second.attributes.labware_barcode.human_barcode}:${position}`,
      tube_purpose_uuid: purpose('LB Rack Tube'),
      tube_position: position,
      parent_uuids: [second.attributes.uuid],
    }));
    const racks = await related(
      await create('specific_tube_rack_creations', {
        parent_uuids: [second.attributes.uuid],
        tube_rack_attributes: [{ tube_rack_name: 'SEQ', tube_rack_barcode: rackBarcode, tube_rack_purpose_uuid: purpose('LB Seq Rack'), racked_tubes: racked }],
        user_uuid: user,
      }),
      'children',
    );
    expect(racks.map((r: any) => r.attributes.name)).toEqual(['SEQ']);
    const [rack] = racks;
    const rackPage = await get(`/api/v2/tube_racks/${rack.id}?include=racked_tubes.tube`);
    const tubesByBarcode = new Map<string, any>([...includedOf(rackPage, 'tubes').values()].map((t) => [t.attributes.labware_barcode.human_barcode, t]));
    const secondWells = filledWells(await platePage(second.id));
    await create('transfer_request_collections', {
      transfer_requests_attributes: racked.map((tube, i) => ({
        source_asset: secondWells[i].attributes.uuid,
        target_asset: tubesByBarcode.get(tube.tube_barcode).attributes.uuid,
      })),
      user_uuid: user,
    });
    await stateChange(rack, 'passed');
    const passedRack = await get(`/api/v2/tube_racks/${rack.id}?include=racked_tubes.tube`);
    expect(passedRack.data.attributes.state).toBe('passed');
    expect([...includedOf(passedRack, 'tubes').values()].map((t) => t.attributes.state)).toEqual(['passed', 'passed']);
    // The rack's state is its tubes' (read from them), in searches too.
    expect((await get(`/api/v2/labware?filter[state]=passed&filter[uuid]=${rack.attributes.uuid}`)).data.map((r: any) => r.id)).toEqual([rack.id]);
  });
});
