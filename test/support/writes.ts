import { expect } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import { routes } from '#lib/routes.ts';
import { slotUuid } from '#lib/domain/labware-ids.ts';
import { call, doc, idOf, type CallResult } from './api.ts';
import { aliquotDoc, create, createPlate, createRack, createSample, createTube, purposeId, rel, rels, tubeOf, uniqueName } from './fixtures.ts';
import { adminUuid, filledPlate, poolPlate, templateUuid, uuidOf } from './lab.ts';
import { createQcable, lotId } from './qc.ts';
import { createOrder, createRequest, requestDoc, workIds } from './requests.ts';
import { ADMIN_KEY } from './store.ts';

/**
 * One fresh, valid write of every kind the API serves, for tests that must cover them all (faults,
 * conflicts, replays). Keyed by "METHOD type" ("POST type/action" for an action), with a variant in
 * parentheses where one type writes in more than one way; `routeWrites()` lists the keys the route table
 * calls for, so a write route added without an entry here fails the tests that use the table.
 */

export interface Write {
  method: 'POST' | 'PATCH';
  path: string;
  body: unknown;
  /** The API key it needs when a write key is not enough (purposes: an admin key). */
  key?: string;
  /** What it answers when it succeeds, when not a POST's 201 or a PATCH's 200 (an action that changes a record: 200). */
  status?: 200;
}

/** The status a write answers when it succeeds. */
export const successOf = (write: Write): number => write.status ?? (write.method === 'POST' ? 201 : 200);

export interface WriteCase {
  /** Makes the records the write needs and returns the write (which would succeed). */
  make: () => Promise<Write>;
  /**
   * True when the write changes a record that existed before it (every PATCH, and POSTs that change their
   * labware or request): only then can a concurrent writer fail its version condition.
   */
  changesExisting: boolean;
}

/** "METHOD type" of every POST and PATCH of the route table, and "METHOD type/action" of every action that writes (not those that only answer, as a preview). */
export function routeWrites(): string[] {
  return routes.flatMap((route) =>
    route.types.flatMap((type) => [
      // A type that only acts (heron: its actions alone answer POST) has no plain POST of its own.
      ...route.methods
        .filter(
          (m) => (m === 'POST' && registry.require(type).methods.includes('create')) || (m === 'PATCH' && registry.require(type).methods.includes('update')),
        )
        .map((m) => `${m} ${type}`),
      ...route.actions.filter((a) => !registry.require(type).actions?.[a.name]?.answer).map((a) => `${a.method} ${type}/${a.name}`),
    ]),
  );
}

/** The route write a case key stands for (its variant dropped). */
export const writeOf = (key: string): string => key.replace(/ \(.*\)$/, '');

const post = (type: string, body: unknown): Write => ({ method: 'POST', path: `/api/v2/${type}`, body });
const patch = (type: string, id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>): Write => ({
  method: 'PATCH',
  path: `/api/v2/${type}/${id}`,
  body: doc(type, attributes, relationships, id),
});
const CMC = 'custom_metadatum_collections';

/** A well of a new plate (its first, A1), as a relationship names it. */
const wellOf = (plate: { id: string }) => ({ type: 'wells', id: String(Number(plate.id) * 1000 + 1) });

/** A new request out of a new well, in an order of Study A. */
async function newRequest(): Promise<string> {
  const { study, sequencing } = await workIds();
  const { submission, order } = await createOrder(study, [sequencing]);
  return (await createRequest({ asset: wellOf(await createPlate()), requestType: sequencing, submission, order })).id;
}

const metadatum = (key: string, metadatable: { type: string; id: string }) => ({
  type: 'poly_metadata',
  attributes: { key, value: 'v' },
  relationships: { metadatable: { data: metadatable } },
});

/** An order's attributes as Limber sends them: a submission template and the first well of `plate` (its sample's study detected). */
async function templateOrder(plate: { attributes: { uuid: string } }, requestOptions: Record<string, unknown> = {}, template = 'Library Creation - Illumina') {
  return {
    submission_template_uuid: await uuidOf('submission_templates', 'name', template),
    submission_template_attributes: {
      request_options: { library_type: 'Standard', ...requestOptions },
      user_uuid: await adminUuid(),
      asset_uuids: [slotUuid(plate.attributes.uuid, 1)],
    },
  };
}

/**
 * Attributes a write answers with that a later read renders null: qc_assays' `qc_results`, the upload's
 * account of the results it created, which is not stored on the assay (docs/decisions.md, "QC assays and results"); a read finds them through the `qc_results` relationship.
 */
const WRITE_ONLY_ANSWERS: Record<string, readonly string[]> = { qc_assays: ['qc_results'] };

/** A written resource as a later read renders it. */
export function asStored(resource: { type: string; attributes?: Record<string, unknown> }) {
  const writeOnly = WRITE_ONLY_ANSWERS[resource.type] ?? [];
  const stored = (name: string, value: unknown) => (writeOnly.includes(name) ? null : value);
  return { ...resource, attributes: Object.fromEntries(Object.entries(resource.attributes ?? {}).map(([name, value]) => [name, stored(name, value)])) };
}

/** Sends a write, with extra headers (an `Idempotency-Key`). */
export const send = (write: Write, headers?: Record<string, string>): Promise<CallResult> =>
  call(write.method, write.path, { body: write.body, ...(write.key ? { key: write.key } : {}), ...(headers ? { headers } : {}) });

/** A purpose registered as Limber registers one (with an admin key). */
const purposeWrite = (type: string, attributes: Record<string, unknown>): Write => ({
  ...post(type, doc(type, { name: uniqueName('purpose'), ...attributes })),
  key: ADMIN_KEY,
});

/** Dual tags from a template on a plate's wells. */
const tagLayout = async (plate: { attributes: { uuid: string } }): Promise<Write> =>
  post(
    'tag_layouts',
    doc('tag_layouts', {
      plate_uuid: plate.attributes.uuid,
      tag_layout_template_uuid: await uuidOf('tag_layout_templates', 'name', 'Test dual column'),
      enforce_uniqueness: true,
      user_uuid: await adminUuid(),
    }),
  );

/** A state change of a labware (not a qcable's) by its uuid, as Limber sends it. */
const stateChange = async (labware: { attributes: { uuid: string } }, target_state: string): Promise<Write> =>
  post('state_changes', doc('state_changes', { target_uuid: labware.attributes.uuid, target_state, user_uuid: await adminUuid() }));

/** Work in progress: a plate stamped from a stock well with a library request of a submission; passed when asked (which starts the request). */
async function stampedWork(passed: boolean): Promise<{ child: any; submission: string }> {
  const [{ plate: stock }, child] = [await filledPlate(1), await createPlate('Library Plate')];
  const [submission] = await poolPlate(stock.id, [['A1']]);
  expect((await send(await transfer('Transfer columns 1-12', stock, child))).status).toBe(201);
  if (passed) expect((await send(await stateChange(child, 'passed'))).status).toBe(201);
  return { child, submission: submission! };
}

/** A transfer by a template's name from one labware into another. */
const transfer = async (template: string, source: { attributes: { uuid: string } }, destination: { attributes: { uuid: string } }): Promise<Write> =>
  post(
    'transfers',
    doc('transfers', {
      transfer_template_uuid: await templateUuid(template),
      source_uuid: source.attributes.uuid,
      destination_uuid: destination.attributes.uuid,
      user_uuid: await adminUuid(),
    }),
  );

export const WRITES: Record<string, WriteCase> = {
  'POST samples': {
    changesExisting: false,
    make: async () => post('samples', doc('samples', { name: uniqueName() }, { studies: rels('studies', [await idOf('studies', 'name', 'Study A')]) })),
  },
  'PATCH samples': {
    changesExisting: true,
    make: async () => {
      const sample = await createSample();
      return patch('samples', sample.id, { site_sample_id: uniqueName('site') });
    },
  },
  'POST sample_metadata': { changesExisting: false, make: async () => post('sample_metadata', doc('sample_metadata', { cohort: uniqueName('cohort') })) },
  'PATCH sample_metadata': {
    changesExisting: true,
    make: async () => {
      const sample = await createSample();
      const metadata = (await call('GET', `/api/v2/samples/${sample.id}/sample_metadata`)).body.data.id;
      return patch('sample_metadata', metadata, { cohort: uniqueName('cohort') });
    },
  },
  'POST plates': {
    changesExisting: false,
    make: async () => post('plates', doc('plates', {}, { purpose: rel('plate_purposes', await purposeId('plate_purposes', 'Stock Plate')) })),
  },
  'POST tubes': {
    changesExisting: false,
    make: async () => post('tubes', doc('tubes', {}, { purpose: rel('tube_purposes', await purposeId('tube_purposes', 'Stock Tube')) })),
  },
  'POST aliquots': {
    changesExisting: true,
    make: async () => {
      const [plate, sample] = [await createPlate(), await createSample()];
      return post('aliquots', aliquotDoc(wellOf(plate), sample.id, { study: await idOf('studies', 'name', 'Study A') }));
    },
  },
  'POST tube_racks': {
    changesExisting: true,
    make: async () => {
      const [a, b] = [tubeOf(await createTube()), tubeOf(await createTube())];
      const purpose = rel('tube_rack_purposes', await purposeId('tube_rack_purposes', 'Tube Rack 96'));
      return post('tube_racks', doc('tube_racks', { size: 96, tube_locations: { A1: { uuid: a.uuid }, B1: { uuid: b.uuid } } }, { purpose }));
    },
  },
  'PATCH tube_racks': { changesExisting: true, make: async () => patch('tube_racks', (await createRack()).id, { size: 48 }) },
  'POST custom_metadatum_collections': {
    changesExisting: true,
    make: async () => {
      const [user, plate] = [await idOf('users', 'login', 'admin'), await createPlate()];
      return post(CMC, doc(CMC, { user_id: user, asset_id: plate.id, metadata: { robot: 'bed-1' } }));
    },
  },
  'PATCH custom_metadatum_collections': {
    changesExisting: true,
    make: async () => {
      const collection = await create(CMC, {
        user_id: await idOf('users', 'login', 'admin'),
        asset_id: (await createPlate()).id,
        metadata: { robot: 'bed-1' },
      });
      return patch(CMC, collection.id, { metadata: { robot: 'bed-2' } });
    },
  },
  'POST qcables': {
    changesExisting: false,
    make: async () => {
      const plate = await createPlate('Tag Plate');
      return post('qcables', doc('qcables', {}, { labware: rel('plates', plate.id), lot: rel('lots', await lotId('LOT-0001')) }));
    },
  },
  'PATCH qcables': {
    changesExisting: true,
    make: async () => {
      const { qcable } = await createQcable('LOT-0001');
      return patch('qcables', qcable.id, {}, { labware: rel('plates', (await createPlate('Tag Plate')).id) });
    },
  },
  'POST lots': {
    changesExisting: false,
    make: async () =>
      post(
        'lots',
        doc('lots', {
          lot_number: uniqueName('LOT'),
          lot_type_uuid: await uuidOf('lot_types', 'name', 'Tag Plates'),
          template_type: 'TagLayoutTemplate',
          template_id: await idOf('tag_layout_templates', 'name', 'Test i7 column'),
          received_at: '2026-12-01',
          user_uuid: await adminUuid(),
        }),
      ),
  },
  'POST qcable_creators': {
    changesExisting: false,
    make: async () =>
      post(
        'qcable_creators',
        doc('qcable_creators', { count: 2 }, { lot: rel('lots', await lotId('LOT-0001')), user: rel('users', await idOf('users', 'login', 'admin')) }),
      ),
  },
  'POST state_changes': {
    changesExisting: true,
    make: async () => {
      const { plate } = await createQcable('LOT-0001');
      const user = rel('users', await idOf('users', 'login', 'admin'));
      return post('state_changes', doc('state_changes', { target_state: 'pending', reason: 'faults' }, { target: rel('plates', plate.id), user }));
    },
  },
  'POST state_changes (a plate by its transfer requests)': {
    changesExisting: true,
    make: async () => stateChange((await stampedWork(false)).child, 'passed'),
  },
  'POST work_completions': {
    changesExisting: true,
    make: async () => {
      const { child, submission } = await stampedWork(true);
      const submissionUuid = (await call('GET', `/api/v2/submissions/${submission}`)).body.data.attributes.uuid;
      return post(
        'work_completions',
        doc('work_completions', { target_uuid: child.attributes.uuid, submission_uuids: [submissionUuid], user_uuid: await adminUuid() }),
      );
    },
  },
  'POST qc_assays': {
    changesExisting: true,
    make: async () => {
      const barcode = (await createPlate()).attributes.labware_barcode.human_barcode;
      const result = (well: string) => ({ barcode, well_location: well, key: 'concentration', value: '12.3', units: 'ng/ul', assay_type: 'ISC' });
      return post('qc_assays', { data: { type: 'qc_assays', attributes: { lot_number: 'KIT-1', qc_results: [result('A1'), result('B1')] } } });
    },
  },
  'POST submissions': { changesExisting: false, make: async () => post('submissions', doc('submissions')) },
  'POST orders': {
    changesExisting: false,
    make: async () => {
      const submission = (await create('submissions')).id;
      const study = (await workIds()).study;
      return post('orders', doc('orders', {}, { submission: rel('submissions', submission), study: rel('studies', study) }));
    },
  },
  'POST orders (from a submission template, as Limber makes them)': {
    changesExisting: false,
    make: async () => post('orders', doc('orders', await templateOrder((await filledPlate(1, 'Stock Plate', (await workIds()).study)).plate))),
  },
  'POST submissions (of orders, and_submit)': {
    changesExisting: false,
    make: async () => {
      const order = await create('orders', await templateOrder((await filledPlate(1, 'Stock Plate', (await workIds()).study)).plate));
      return post('submissions', doc('submissions', { order_uuids: [order.attributes.uuid], and_submit: true, user_uuid: await adminUuid() }));
    },
  },
  'POST pick_lists': {
    changesExisting: false,
    make: async () => {
      const { plate } = await filledPlate(1, 'Stock Plate', (await workIds()).study);
      const project = Number(await idOf('projects', 'name', 'Project A'));
      return post(
        'pick_lists',
        doc('pick_lists', { asynchronous: false, pick_attributes: [{ source_receptacle_id: Number(plate.id) * 1000 + 1, project_id: project }] }),
      );
    },
  },
  'PATCH work_orders': {
    changesExisting: true,
    make: async () => {
      const { plate } = await filledPlate(1, 'Stock Plate', (await workIds()).study);
      const order = await create('orders', await templateOrder(plate, { library_type: 'Rapid', data_type: 'basecalls' }, 'Traction - GridION'));
      await create('submissions', { order_uuids: [order.attributes.uuid], and_submit: true, user_uuid: await adminUuid() });
      // The newest work orders: one of them is the first well's (its only one).
      const recent = await call('GET', '/api/v2/work_orders?sort=-id&page[size]=20&include=source_receptacle');
      const well = wellOf(plate);
      const workOrder = recent.body.data.find((w: any) => w.relationships.source_receptacle.data.id === well.id);
      return patch('work_orders', workOrder.id, { state: 'started', at_risk: true });
    },
  },
  'POST bulk_transfers': {
    changesExisting: true,
    make: async () => {
      const [{ plate: source }, destination] = [await filledPlate(1), await createPlate()];
      const transfer = {
        source_uuid: source.attributes.uuid,
        source_location: 'A1',
        destination_uuid: destination.attributes.uuid,
        destination_location: 'A1',
      };
      return post('bulk_transfers', doc('bulk_transfers', { user_uuid: await adminUuid(), well_transfers: [transfer] }));
    },
  },
  'POST qc_files': {
    changesExisting: false,
    make: async () =>
      post(
        'qc_files',
        doc('qc_files', { contents: 'Well,Concentration\nA1,12.3\n', filename: 'qc.csv' }, { labware: rel('plates', (await createPlate()).id) }),
      ),
  },
  'POST asset_audits': {
    changesExisting: false,
    make: async () =>
      post('asset_audits', doc('asset_audits', { key: 'slf_receive_plates', created_by: 'admin', asset_uuid: (await createPlate()).attributes.uuid })),
  },
  'POST volume_updates': {
    changesExisting: true,
    make: async () =>
      post('volume_updates', doc('volume_updates', { created_by: 'admin', volume_change: -1.5, target_uuid: (await createPlate()).attributes.uuid })),
  },
  'POST comments': {
    changesExisting: false,
    make: async () => post('comments', doc('comments', { title: 'Feedback', description: 'cloudy' }, { commentable: rel('tubes', (await createTube()).id) })),
  },
  'POST bait_library_layouts': {
    changesExisting: true,
    make: async () => {
      // A plate whose well's material is bound for a request asking for a bait library: ordered from a template, and_submit, stamped.
      const { plate: stock } = await filledPlate(1, 'Stock Plate', (await workIds()).study);
      const order = await create('orders', await templateOrder(stock, { bait_library_name: 'Human all exon 50MB' }));
      const user = await adminUuid();
      const submission = await create('submissions', { order_uuids: [order.attributes.uuid], and_submit: true, user_uuid: user });
      const plate = await createPlate();
      const entry = {
        source_asset: slotUuid(stock.attributes.uuid, 1),
        target_asset: slotUuid(plate.attributes.uuid, 1),
        submission: submission.attributes.uuid,
      };
      await create('transfer_request_collections', { transfer_requests_attributes: [entry], user_uuid: user });
      return post('bait_library_layouts', doc('bait_library_layouts', { plate_uuid: plate.attributes.uuid, user_uuid: user }));
    },
  },
  'POST requests': {
    changesExisting: false,
    make: async () => {
      const { study, sequencing } = await workIds();
      const { submission, order } = await createOrder(study, [sequencing]);
      return post('requests', requestDoc({ asset: wellOf(await createPlate()), requestType: sequencing, submission, order }));
    },
  },
  'PATCH requests': { changesExisting: true, make: async () => patch('requests', await newRequest(), { state: 'started' }) },
  'POST request_metadata': {
    changesExisting: true,
    make: async () => post('request_metadata', doc('request_metadata', { number_of_pools: 2 }, { request: rel('requests', await newRequest()) })),
  },
  'PATCH request_metadata': {
    changesExisting: true,
    make: async () => {
      const metadata = await create('request_metadata', { number_of_pools: 2 }, { request: rel('requests', await newRequest()) });
      return patch('request_metadata', metadata.id, {}, { request: rel('requests', await newRequest()) });
    },
  },
  'POST poly_metadata': {
    changesExisting: false,
    make: async () => post('poly_metadata', { data: metadatum(uniqueName('key'), { type: 'plates', id: (await createPlate()).id }) }),
  },
  'PATCH poly_metadata': {
    changesExisting: true,
    make: async () => {
      const plate = { type: 'plates', id: (await createPlate()).id };
      const res = await call('POST', '/api/v2/poly_metadata', { body: { data: metadatum(uniqueName('key'), plate) } });
      return patch('poly_metadata', res.body.data.id, { value: 'new' });
    },
  },
  'POST plates/register_stock_for_plate': {
    changesExisting: true,
    make: async () => {
      const { plate } = await filledPlate(2);
      // As Limber's json_api_client sends a member endpoint's call: no parameters, so `{}`.
      return { method: 'POST', path: `/api/v2/plates/${plate.id}/register_stock_for_plate`, body: {}, status: 200 };
    },
  },
  'POST heron/plates': {
    changesExisting: false,
    make: async () => {
      const [purpose_uuid, study_uuid] = await Promise.all([uuidOf('plate_purposes', 'name', 'Stock Plate'), uuidOf('studies', 'name', 'Study A')]);
      const wells = { A01: { content: { supplier_name: uniqueName('heron') } }, B01: { content: { phenotype: 'positive' } } };
      return post('heron/plates', { data: { type: 'plates', attributes: { barcode: uniqueName('HP'), purpose_uuid, study_uuid, wells } } });
    },
  },
  'POST heron/tube_racks': {
    changesExisting: false,
    make: async () => {
      const [purpose_uuid, study_uuid] = await Promise.all([uuidOf('tube_rack_purposes', 'name', 'Tube Rack 96'), uuidOf('studies', 'name', 'Study A')]);
      const tubes = { A1: { barcode: uniqueName('HT'), content: { supplier_name: uniqueName('heron') } } };
      return post('heron/tube_racks', { data: { type: 'tube_racks', attributes: { barcode: uniqueName('HR'), purpose_uuid, study_uuid, tubes } } });
    },
  },
  'POST heron/tube_rack_statuses': {
    changesExisting: false,
    make: async () =>
      post('heron/tube_rack_statuses', {
        data: {
          type: 'tube_rack_statuses',
          attributes: { tube_rack_status: { tube_rack: { barcode: uniqueName('HR'), status: 'created', messages: ['ok'] } } },
        },
      }),
  },
  'POST poly_metadata/bulk_create': {
    changesExisting: false,
    make: async () => {
      const plate = { type: 'plates', id: (await createPlate()).id };
      return post('poly_metadata/bulk_create', { data: [metadatum(uniqueName('key'), plate), metadatum(uniqueName('key'), plate)] });
    },
  },
  'POST transfer_request_collections': {
    changesExisting: true,
    make: async () => {
      const [{ plate: source }, destination] = [await filledPlate(1), await createPlate()];
      const entry = { source_asset: slotUuid(source.attributes.uuid, 1), target_asset: slotUuid(destination.attributes.uuid, 1) };
      return post('transfer_request_collections', doc('transfer_request_collections', { transfer_requests_attributes: [entry], user_uuid: await adminUuid() }));
    },
  },
  'POST transfers (a stamp)': {
    changesExisting: true,
    make: async () => {
      const [{ plate: source }, destination] = [await filledPlate(2), await createPlate()];
      return transfer('Transfer columns 1-12', source, destination);
    },
  },
  'POST transfers (a pool into a tube)': {
    changesExisting: true,
    make: async () => {
      const [{ plate: source }, tube] = [await filledPlate(2), await createTube()];
      // Two samples share a tube only with distinct tags.
      expect((await send(await tagLayout(source))).status).toBe(201);
      return transfer('Whole plate to tube', source, tube);
    },
  },
  'POST plate_conversions': {
    changesExisting: true,
    make: async () => {
      const [{ plate: parent }, target] = [await filledPlate(1), await createPlate()];
      return post(
        'plate_conversions',
        doc('plate_conversions', {
          parent_uuid: parent.attributes.uuid,
          purpose_uuid: await uuidOf('plate_purposes', 'name', 'Library Plate'),
          target_uuid: target.attributes.uuid,
          user_uuid: await adminUuid(),
        }),
      );
    },
  },
  'POST plate_purposes': { changesExisting: false, make: async () => purposeWrite('plate_purposes', { stock_plate: true, size: 96 }) },
  'POST tube_purposes': {
    changesExisting: false,
    make: async () => purposeWrite('tube_purposes', { target_type: 'MultiplexedLibraryTube', purpose_type: 'IlluminaHtp::MxTubePurpose' }),
  },
  'POST tube_rack_purposes': { changesExisting: false, make: async () => purposeWrite('tube_rack_purposes', { size: 48 }) },
  'POST tube_from_plate_creations': {
    changesExisting: false,
    make: async () => {
      const { plate } = await filledPlate(1);
      const purpose = await uuidOf('tube_purposes', 'name', 'Library Tube');
      return post(
        'tube_from_plate_creations',
        doc('tube_from_plate_creations', { child_purpose_uuid: purpose, parent_uuid: plate.attributes.uuid, user_uuid: await adminUuid() }),
      );
    },
  },
  'POST plate_creations': {
    changesExisting: false,
    make: async () =>
      post(
        'plate_creations',
        doc('plate_creations', {
          child_purpose_uuid: await uuidOf('plate_purposes', 'name', 'Library Plate'),
          parent_uuid: (await createPlate()).attributes.uuid,
          user_uuid: await adminUuid(),
        }),
      ),
  },
  'POST pooled_plate_creations': {
    changesExisting: false,
    make: async () =>
      post(
        'pooled_plate_creations',
        doc('pooled_plate_creations', {
          child_purpose_uuid: await uuidOf('plate_purposes', 'name', 'Library Plate'),
          parent_uuids: [(await createPlate()).attributes.uuid, (await createTube()).attributes.uuid],
          user_uuid: await adminUuid(),
        }),
      ),
  },
  'POST tube_from_tube_creations': {
    changesExisting: false,
    make: async () =>
      post(
        'tube_from_tube_creations',
        doc('tube_from_tube_creations', {
          child_purpose_uuid: await uuidOf('tube_purposes', 'name', 'MX Tube'),
          parent_uuid: (await createTube()).attributes.uuid,
          user_uuid: await adminUuid(),
        }),
      ),
  },
  'POST specific_tube_creations': {
    changesExisting: false,
    make: async () => {
      const mx = await uuidOf('tube_purposes', 'name', 'MX Tube');
      return post(
        'specific_tube_creations',
        doc('specific_tube_creations', {
          child_purpose_uuids: [mx, mx],
          parent_uuids: [(await createPlate()).attributes.uuid],
          tube_attributes: [{ name: uniqueName('pool') }, { name: uniqueName('pool') }],
          user_uuid: await adminUuid(),
        }),
      );
    },
  },
  'POST specific_tube_rack_creations': {
    changesExisting: false,
    make: async () =>
      post(
        'specific_tube_rack_creations',
        doc('specific_tube_rack_creations', {
          parent_uuids: [(await createPlate()).attributes.uuid],
          tube_rack_attributes: [
            {
              tube_rack_name: 'SEQ',
              tube_rack_barcode: uniqueName('FR'),
              tube_rack_purpose_uuid: await uuidOf('tube_rack_purposes', 'name', 'Tube Rack 96'),
              racked_tubes: [
                {
                  tube_barcode: uniqueName('FX'),
                  tube_name: 'SEQ:A1',
                  tube_purpose_uuid: await uuidOf('tube_purposes', 'name', 'MX Tube'),
                  tube_position: 'A1',
                },
              ],
            },
          ],
          user_uuid: await adminUuid(),
        }),
      ),
  },
  'POST tag_layouts': {
    changesExisting: true,
    make: async () => tagLayout((await filledPlate(2)).plate),
  },
};
