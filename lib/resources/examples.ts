import defaults from '#lib/reference/default.json' with { type: 'json' };
import { registry } from '#lib/resources/index.ts';
import { referenceUuid } from '#lib/store/uuids.ts';
import { requestId } from '#lib/domain/labware-ids.ts';

/**
 * The examples of the API description (lib/jsonapi/openapi.ts): a request body for every POST and PATCH
 * (and action), with the answer it gets, and a query for the GET of a type only read (`labware_audits`). They work as written against a fresh store holding the default
 * reference data (`npm start` on a new data dir), sent in the document's order, which is the registry's:
 * reference records have the ids and uuids the loader gives them (one id per record in the order of
 * lib/reference/default.json, a uuid from the id and the natural key), and every other id named here is
 * one an earlier example created. test/integration/openapi-examples.test.ts replays them in that order.
 */

type Json = Record<string, unknown>;

export interface WriteExample {
  summary: string;
  /** The request document. */
  body: Json;
  /** The status it is answered with. */
  status: number;
  /** What the answer holds: the created or updated record (type, id and some attributes), or the errors' status and code. */
  response: Json;
}

/** A GET of a type's collection: its query parameters, answered 200 with what the response shows. */
export interface ListExample {
  summary: string;
  query: Record<string, string>;
  response: Json;
}

/** A type's examples: of its POST, its PATCH (the body names the record) and each action, in the order they are sent; of its GET for a read-only type. */
export interface TypeExamples {
  list?: ListExample[];
  create?: WriteExample[];
  update?: WriteExample[];
  actions?: Record<string, WriteExample[]>;
}

const NATURAL_KEYS = ['login', 'key', 'lot_number', 'name'] as const;

/** The id a reference record gets on a fresh store: the loader allocates them per id family, in document order. */
function referenceId(type: string, key: string): number {
  const family = registry.familyOf(type);
  let id = 0;
  for (const [t, records] of Object.entries(defaults as Record<string, Record<string, unknown>[]>)) {
    if (registry.familyOf(t) !== family) continue;
    for (const record of records) {
      id++;
      if (t === type && NATURAL_KEYS.some((k) => record[k] === key)) return id;
    }
  }
  throw new Error(`the default reference data has no ${type} ${key}`);
}

const reference = (type: string, key: string) => ({ data: { type, id: String(referenceId(type, key)) } });
const referenceUuidOf = (type: string, key: string) => referenceUuid(registry.familyOf(type), referenceId(type, key), type, key);
const to = (type: string, id: string) => ({ data: { type, id } });

/** A document of one resource object. */
const doc = (type: string, parts: { id?: string; attributes?: Json; relationships?: Json }) => ({ data: { type, ...parts } });

/** A write answered 201 (or `status`) with the record `id`, holding `attributes`. */
const made = (
  summary: string,
  type: string,
  parts: { id?: string; attributes?: Json; relationships?: Json },
  id: string,
  attributes: Json = {},
  status = 201,
) => ({
  summary,
  body: doc(type, parts),
  status,
  response: { data: { type, id, attributes } },
});
/** A PATCH of record `id`, answered 200. */
const changed = (summary: string, type: string, id: string, parts: { attributes?: Json; relationships?: Json }, attributes: Json = {}) =>
  made(summary, type, { id, ...parts }, id, attributes, 200);
/** A write refused with `status` and `code`. */
const refused = (summary: string, body: Json, status: number, code: string) => ({
  summary,
  body,
  status,
  response: { errors: [{ status: String(status), code }] },
});

// Records the examples make, in order (plates, tubes and racks share the labware ids; a well's id is its plate's followed by its number in column order).
const STOCK_PLATE = '1';
const TAG_PLATE = '2';
const QC_PLATE = '3';
const A1 = `${STOCK_PLATE}001`;
const B1 = `${STOCK_PLATE}002`;
/** The first request: the first of the first request book (lib/domain/labware-ids.ts, requestId). */
const REQUEST = String(requestId(1, 0));
const ADMIN = reference('users', 'admin');
/** A uuid of this service's form that names no record. */
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

export const examples: Record<string, TypeExamples> = {
  samples: {
    create: [
      made(
        'A sample in a study',
        'samples',
        { attributes: { name: 'sample-1' }, relationships: { studies: { data: [reference('studies', 'Study A').data] } } },
        '1',
        {
          name: 'sample-1',
        },
      ),
      made('A second sample', 'samples', { attributes: { name: 'sample-2' } }, '2', { name: 'sample-2' }),
      refused('An attribute samples do not have', doc('samples', { attributes: { name: 'sample-3', colour: 'red' } }), 400, 'param_not_allowed'),
    ],
    update: [changed('Its supplier id', 'samples', '1', { attributes: { site_sample_id: 'SITE-1' } }, { site_sample_id: 'SITE-1' })],
  },
  sample_metadata: {
    create: [made('Metadata of no sample yet', 'sample_metadata', { attributes: { supplier_name: 'Supplier A' } }, '3', { supplier_name: 'Supplier A' })],
    update: [
      changed(
        'The first sample’s metadata (made with it)',
        'sample_metadata',
        '1',
        { attributes: { concentration: '12.5', volume: '40' } },
        { concentration: '12.5' },
      ),
    ],
  },
  // Registered as Limber registers its purposes (admin key); the default data holds ten purposes, so these are 11 to 13.
  plate_purposes: {
    create: [
      made(
        'A plate purpose as Limber registers it',
        'plate_purposes',
        { attributes: { name: 'LB Cherrypick', stock_plate: true, cherrypickable_target: true, input_plate: false, size: 96 } },
        '11',
        { name: 'LB Cherrypick', size: 96, asset_shape: 'Standard', barcode_prefix: 'DN' },
      ),
      refused(
        'A size its shape does not come in',
        doc('plate_purposes', { attributes: { name: 'LB Strip', size: 96, asset_shape: 'Shape8x1' } }),
        422,
        'invalid_value',
      ),
    ],
  },
  tube_purposes: {
    create: [
      made(
        'A tube purpose (its type chooses its tubes’ state changes)',
        'tube_purposes',
        { attributes: { name: 'LB Lib Pool', target_type: 'StockMultiplexedLibraryTube', purpose_type: 'IlluminaHtp::InitialStockTubePurpose' } },
        '12',
        { name: 'LB Lib Pool', purpose_type: 'IlluminaHtp::InitialStockTubePurpose', barcode_prefix: 'NT' },
      ),
    ],
  },
  tube_rack_purposes: {
    create: [
      made(
        'A tube rack purpose',
        'tube_rack_purposes',
        { attributes: { name: 'LRC TR Bank Seq', size: 96, target_type: 'TubeRack', purpose_type: 'TubeRack::Purpose' } },
        '13',
        { name: 'LRC TR Bank Seq', size: 96 },
      ),
      refused(
        'A name in use (purpose names are unique across the three kinds, whatever their case)',
        doc('tube_rack_purposes', { attributes: { name: 'stock plate' } }),
        422,
        'not_unique',
      ),
    ],
  },
  plates: {
    create: [
      made(
        'A stock plate',
        'plates',
        { attributes: { barcode: 'EX-STOCK-1' }, relationships: { purpose: reference('plate_purposes', 'Stock Plate') } },
        STOCK_PLATE,
      ),
      made('A tag plate (its barcode generated)', 'plates', { relationships: { purpose: reference('plate_purposes', 'Tag Plate') } }, TAG_PLATE),
      made('A tag plate to QC', 'plates', { relationships: { purpose: reference('plate_purposes', 'Tag Plate') } }, QC_PLATE),
    ],
    actions: {
      // Limber sends {}; `data` naming the plate is accepted too, and names the example's path here.
      register_stock_for_plate: [
        {
          summary: 'The stock plate, before its wells hold anything: nothing to register yet',
          body: { data: { type: 'plates', id: STOCK_PLATE } },
          status: 200,
          response: { data: { type: 'plates', id: STOCK_PLATE } },
        },
        refused('A plate that is not there', { data: { type: 'plates', id: '999999' } }, 404, 'record_not_found'),
      ],
    },
  },
  tubes: {
    create: [
      made('A stock tube', 'tubes', { attributes: { name: 'tube-1' }, relationships: { purpose: reference('tube_purposes', 'Stock Tube') } }, '4', {
        name: 'tube-1',
      }),
    ],
  },
  tube_racks: {
    create: [
      made('An empty rack', 'tube_racks', { attributes: { size: 96 }, relationships: { purpose: reference('tube_rack_purposes', 'Tube Rack 96') } }, '5', {
        size: 96,
      }),
    ],
    update: [changed('Its size, unchanged', 'tube_racks', '5', { attributes: { size: 96 } }, { size: 96 })],
  },
  aliquots: {
    create: [
      made('Sample 1 into well A1 of the stock plate', 'aliquots', { relationships: { receptacle: to('wells', A1), sample: to('samples', '1') } }, '1000001'),
      made(
        'Sample 2 into well B1, as a library made there of inserts up to 350 bases',
        'aliquots',
        { attributes: { insert_size_to: 350 }, relationships: { receptacle: to('wells', B1), sample: to('samples', '2'), library: to('wells', B1) } },
        '1000002',
        { insert_size_to: 350 },
      ),
    ],
  },
  custom_metadatum_collections: {
    create: [
      made(
        'Metadata of the stock plate',
        'custom_metadatum_collections',
        { attributes: { user_id: 1, asset_id: Number(STOCK_PLATE), metadata: { bait: 'v1' } } },
        '1',
        {
          metadata: { bait: 'v1' },
        },
      ),
    ],
    update: [changed('Its metadata replaced', 'custom_metadatum_collections', '1', { attributes: { metadata: { bait: 'v2' } } }, { metadata: { bait: 'v2' } })],
  },
  lots: {
    create: [
      made(
        'A lot of tag plates received, as gatekeeper registers it',
        'lots',
        {
          attributes: {
            lot_number: 'LOT-0101',
            lot_type_uuid: referenceUuidOf('lot_types', 'Tag Plates'),
            template_type: 'TagLayoutTemplate',
            template_id: String(referenceId('tag_layout_templates', 'Test i7 column')),
            received_at: '2026-12-01',
            user_uuid: referenceUuidOf('users', 'admin'),
          },
        },
        String(referenceId('lots', 'LOT-0003') + 1),
        { lot_number: 'LOT-0101', lot_type_name: 'Tag Plates', template_name: 'Test i7 column' },
      ),
    ],
  },
  qcables: {
    create: [
      made('The tag plate to QC, of lot LOT-0001', 'qcables', { relationships: { labware: to('plates', QC_PLATE), lot: reference('lots', 'LOT-0001') } }, '1', {
        state: 'created',
      }),
    ],
    update: [changed('Its lot, unchanged', 'qcables', '1', { relationships: { lot: reference('lots', 'LOT-0001') } }, { state: 'created' })],
  },
  state_changes: {
    create: [
      made(
        'The QC plate to pending',
        'state_changes',
        { attributes: { target_state: 'pending', reason: 'example' }, relationships: { target: to('plates', QC_PLATE), user: ADMIN } },
        '1',
        {
          target_state: 'pending',
        },
      ),
    ],
  },
  qc_assays: {
    create: [
      made(
        'A concentration of well A1, by barcode',
        'qc_assays',
        {
          attributes: {
            lot_number: 'KIT-1',
            qc_results: [
              { barcode: 'EX-STOCK-1', well_location: 'A1', key: 'concentration', value: '12.3', units: 'ng/ul', assay_type: 'ISC', assay_version: 'v1.0' },
            ],
          },
        },
        '1',
        { lot_number: 'KIT-1' },
      ),
    ],
  },
  submissions: {
    create: [
      made('A submission', 'submissions', { attributes: { name: 'submission-1' } }, '1', { name: 'submission-1' }),
      // Limber's: of orders made before, its requests built at once. Orders' uuids are not known before they are made, so the example names one that is not there.
      refused(
        "Limber's: of orders made before, and_submit (here an order that is not there: 404)",
        doc('submissions', { attributes: { and_submit: true, order_uuids: [UNKNOWN_UUID], user_uuid: referenceUuidOf('users', 'admin') } }),
        404,
        'record_not_found',
      ),
    ],
  },
  orders: {
    create: [
      made('An order of it, for Study A', 'orders', { relationships: { submission: to('submissions', '1'), study: reference('studies', 'Study A') } }, '1'),
      // Limber's: from a template, before any submission. Wells' uuids are not known before their plate is made, so the example names one that is not there.
      refused(
        "Limber's: from a submission template, on wells (here a well that is not there: 404)",
        doc('orders', {
          attributes: {
            submission_template_uuid: referenceUuidOf('submission_templates', 'Library Creation - Illumina'),
            submission_template_attributes: {
              request_options: { library_type: 'Standard', read_length: 150 },
              user_uuid: referenceUuidOf('users', 'admin'),
              asset_uuids: [UNKNOWN_UUID],
            },
            study_uuid: referenceUuidOf('studies', 'Study A'),
          },
        }),
        404,
        'record_not_found',
      ),
    ],
  },
  requests: {
    create: [
      made(
        'Library creation out of well A1',
        'requests',
        { relationships: { asset: to('wells', A1), order: to('orders', '1'), request_type: reference('request_types', 'library_creation') } },
        REQUEST,
      ),
    ],
    update: [changed('Started', 'requests', REQUEST, { attributes: { state: 'started' } }, { state: 'started' })],
  },
  work_completions: {
    create: [
      made(
        "Submission 1's work on the stock plate done",
        'work_completions',
        { relationships: { target: to('plates', STOCK_PLATE), submissions: { data: [{ type: 'submissions', id: '1' }] }, user: ADMIN } },
        '1',
      ),
    ],
  },
  request_metadata: {
    create: [
      made('Options of the request', 'request_metadata', { attributes: { number_of_pools: 2 }, relationships: { request: to('requests', REQUEST) } }, '1'),
    ],
    update: [changed('Its request, unchanged', 'request_metadata', '1', { relationships: { request: to('requests', REQUEST) } })],
  },
  poly_metadata: {
    create: [
      made(
        'A key and value on the request',
        'poly_metadata',
        { attributes: { key: 'flowcell', value: 'FC-1' }, relationships: { metadatable: to('requests', REQUEST) } },
        '1',
        {
          key: 'flowcell',
          value: 'FC-1',
        },
      ),
    ],
    update: [changed('Its value', 'poly_metadata', '1', { attributes: { value: 'FC-2' } }, { value: 'FC-2' })],
    actions: {
      bulk_create: [
        {
          summary: 'Two at once',
          body: {
            data: ['lane', 'run'].map((key) => ({
              type: 'poly_metadata',
              attributes: { key, value: `${key}-1` },
              relationships: { metadatable: to('requests', REQUEST) },
            })),
          },
          status: 201,
          response: {
            data: [
              { type: 'poly_metadata', attributes: { key: 'lane' } },
              { type: 'poly_metadata', attributes: { key: 'run' } },
            ],
          },
        },
      ],
    },
  },
  transfers: {
    create: [
      made(
        'Stamp A1 and B1 into the tag plate',
        'transfers',
        {
          attributes: { transfer_template_uuid: referenceUuidOf('transfer_templates', 'Custom pooling'), transfers: { A1: 'A1', B1: 'B1' } },
          relationships: { source: to('plates', STOCK_PLATE), destination: to('plates', TAG_PLATE), user: ADMIN },
        },
        '1',
      ),
    ],
  },
  transfer_request_collections: {
    // Entries name receptacles by uuid, and labware uuids are random: a fresh store's example can only show a refusal.
    create: [
      refused(
        'An empty list of transfer requests',
        doc('transfer_request_collections', { attributes: { transfer_requests_attributes: [], user_uuid: referenceUuidOf('users', 'admin') } }),
        422,
        'invalid_value',
      ),
    ],
  },
  plate_conversions: {
    create: [
      made(
        'The tag plate becomes a library plate, a child of the stock plate',
        'plate_conversions',
        {
          relationships: {
            parent: to('plates', STOCK_PLATE),
            target: to('plates', TAG_PLATE),
            purpose: reference('plate_purposes', 'Library Plate'),
            user: ADMIN,
          },
        },
        '1',
      ),
    ],
  },
  tube_from_plate_creations: {
    create: [
      made(
        'An MX tube from the library plate',
        'tube_from_plate_creations',
        { relationships: { parent: to('plates', TAG_PLATE), child_purpose: reference('tube_purposes', 'MX Tube'), user: ADMIN } },
        '1',
      ),
    ],
  },
  plate_creations: {
    create: [
      made(
        'A library plate from the stock plate, as Limber sends it (its transfer request collection then stamps it)',
        'plate_creations',
        {
          attributes: { child_purpose_uuid: referenceUuidOf('plate_purposes', 'Library Plate'), user_uuid: referenceUuidOf('users', 'admin') },
          relationships: { parent: to('plates', STOCK_PLATE) },
        },
        '1',
      ),
    ],
  },
  pooled_plate_creations: {
    create: [
      made(
        'One library plate from two plates (a multi-stamp)',
        'pooled_plate_creations',
        {
          relationships: {
            parents: { data: [to('plates', STOCK_PLATE).data, to('plates', TAG_PLATE).data] },
            child_purpose: reference('plate_purposes', 'Library Plate'),
            user: ADMIN,
          },
        },
        '1',
      ),
    ],
  },
  tube_from_tube_creations: {
    create: [
      made(
        'An MX tube from the stock tube',
        'tube_from_tube_creations',
        { relationships: { parent: to('tubes', '4'), child_purpose: reference('tube_purposes', 'MX Tube'), user: ADMIN } },
        '1',
      ),
    ],
  },
  specific_tube_creations: {
    create: [
      made(
        'Two pool tubes from the stock plate, named as Limber names them',
        'specific_tube_creations',
        {
          attributes: {
            child_purpose_uuids: [referenceUuidOf('tube_purposes', 'MX Tube'), referenceUuidOf('tube_purposes', 'MX Tube')],
            tube_attributes: [{ name: 'EX-STOCK-1 A1:H1' }, { name: 'EX-STOCK-1 A2:H2' }],
            user_uuid: referenceUuidOf('users', 'admin'),
          },
          relationships: { parents: { data: [to('plates', STOCK_PLATE).data] } },
        },
        '1',
      ),
      refused(
        'Fewer tube_attributes than tubes',
        doc('specific_tube_creations', {
          attributes: { child_purpose_uuids: [referenceUuidOf('tube_purposes', 'MX Tube')], tube_attributes: [], user_uuid: referenceUuidOf('users', 'admin') },
          relationships: { parents: { data: [to('plates', STOCK_PLATE).data] } },
        }),
        422,
        'invalid_value',
      ),
    ],
  },
  specific_tube_rack_creations: {
    create: [
      made(
        'A rack of scanned tubes from the stock plate (Limber’s plate split)',
        'specific_tube_rack_creations',
        {
          attributes: {
            tube_rack_attributes: [
              {
                tube_rack_name: 'SEQ',
                tube_rack_barcode: 'EX-RACK-1',
                tube_rack_purpose_uuid: referenceUuidOf('tube_rack_purposes', 'Tube Rack 96'),
                racked_tubes: [
                  { tube_barcode: 'EX-FX-1', tube_name: 'SEQ:A1', tube_purpose_uuid: referenceUuidOf('tube_purposes', 'MX Tube'), tube_position: 'A1' },
                  { tube_barcode: 'EX-FX-2', tube_name: 'SEQ:B1', tube_purpose_uuid: referenceUuidOf('tube_purposes', 'MX Tube'), tube_position: 'B1' },
                ],
              },
            ],
            user_uuid: referenceUuidOf('users', 'admin'),
          },
          relationships: { parents: { data: [to('plates', STOCK_PLATE).data] } },
        },
        '1',
      ),
    ],
  },
  tag_layouts: {
    create: [
      made(
        'Tags of a group, by column',
        'tag_layouts',
        {
          attributes: { direction: 'column', walking_by: 'wells of plate' },
          relationships: { plate: to('plates', TAG_PLATE), tag_group: reference('tag_groups', 'Test Tags i7'), user: ADMIN },
        },
        '1',
        { direction: 'column' },
      ),
    ],
  },
  bulk_transfers: {
    // Entries name plates by uuid, and labware uuids are random: a fresh store's example can only show a refusal.
    create: [
      refused(
        'An empty list of well transfers',
        doc('bulk_transfers', { attributes: { well_transfers: [], user_uuid: referenceUuidOf('users', 'admin') } }),
        422,
        'invalid_value',
      ),
    ],
  },
  qc_files: {
    create: [
      made(
        'A plate reader’s file on the stock plate, as Limber uploads it',
        'qc_files',
        { attributes: { filename: 'concentrations.csv', contents: 'Well,Concentration\nA1,12.5\n' }, relationships: { labware: to('labware', STOCK_PLATE) } },
        '1',
        { filename: 'concentrations.csv', size: 27, content_type: 'text/csv' },
      ),
    ],
  },
  qcable_creators: {
    create: [
      made(
        'Two tag plates of lot LOT-0001, with their qcables',
        'qcable_creators',
        { attributes: { count: 2 }, relationships: { lot: reference('lots', 'LOT-0001'), user: ADMIN } },
        '1',
        {
          count: 2,
        },
      ),
    ],
  },
  bait_library_layouts: {
    create: [
      made(
        'The QC plate, none of whose wells is pooled: an empty layout',
        'bait_library_layouts',
        { relationships: { plate: to('plates', QC_PLATE), user: ADMIN } },
        '1',
        { layout: {} },
      ),
    ],
    actions: {
      // The reference's preview takes its parameters unwrapped (Limber's custom endpoint); plate uuids are random, so a refusal.
      preview: [
        {
          summary: 'No plate_uuid',
          body: { user_uuid: referenceUuidOf('users', 'admin') },
          status: 400,
          response: { errors: [{ status: '400', code: 'missing_member' }] },
        },
      ],
    },
  },
  labware_audits: {
    // The newest entry of the stock plate's trail is that of the last example before this one that touched it: the comment on it.
    list: [
      {
        summary: "The stock plate's audit trail, newest first, a page of one: the write that touched it last, the comment on it",
        query: { 'filter[labware]': STOCK_PLATE, 'page[size]': '1' },
        response: {
          data: [
            {
              type: 'labware_audits',
              attributes: {
                who: 'admin',
                user_login: 'admin',
                action: 'comments.created',
                changes: { 'comments.created': 1 },
                subjects: [{ type: 'comments', attributes: { title: 'Feedback', description: 'Well A1 looked cloudy' } }],
              },
              relationships: { labware: { data: { type: 'plates', id: STOCK_PLATE } } },
            },
          ],
        },
      },
    ],
  },
  asset_audits: {
    // asset_audits names the labware by `asset_uuid`; labware uuids are random, so the example names it by relationship.
    create: [
      made(
        'A process performed on the stock plate, as asset_audits records one',
        'asset_audits',
        {
          attributes: { key: 'slf_receive_plates', message: "Process 'Receive plates' performed on instrument Bench", created_by: 'admin', metadata: null },
          relationships: { asset: to('plates', STOCK_PLATE) },
        },
        '1',
        { key: 'slf_receive_plates', created_by: 'admin' },
      ),
      refused(
        'A uuid that names no labware',
        doc('asset_audits', { attributes: { key: 'slf_receive_plates', asset_uuid: UNKNOWN_UUID } }),
        404,
        'record_not_found',
      ),
    ],
  },
  volume_updates: {
    create: [
      made(
        'A working dilution took 2.5 µl out of every well of the stock plate',
        'volume_updates',
        { attributes: { created_by: 'admin', volume_change: -2.5 }, relationships: { target: to('plates', STOCK_PLATE) } },
        '1',
        { created_by: 'admin', volume_change: -2.5 },
      ),
    ],
  },
  comments: {
    create: [
      made(
        'A note on the stock plate',
        'comments',
        { attributes: { title: 'Feedback', description: 'Well A1 looked cloudy' }, relationships: { commentable: to('plates', STOCK_PLATE), user: ADMIN } },
        '1',
        { title: 'Feedback', description: 'Well A1 looked cloudy' },
      ),
      made(
        'A note on the first request',
        'comments',
        { attributes: { title: 'Feedback', description: 'Sequence again' }, relationships: { commentable: to('requests', REQUEST), user: ADMIN } },
        '2',
        { title: 'Feedback', description: 'Sequence again' },
      ),
    ],
  },
  heron: {
    actions: {
      // lighthouse's plate reception (lighthouse/helpers/plates.py, create_post_body); its answer is the reference's, as a `heron` resource object.
      plates: [
        {
          summary: 'A plate received with a sample in A1, in Study A',
          body: doc('plates', {
            attributes: {
              barcode: 'HERON-EXAMPLE-1',
              purpose_uuid: referenceUuidOf('plate_purposes', 'Stock Plate'),
              study_uuid: referenceUuidOf('studies', 'Study A'),
              wells: { A01: { content: { phenotype: 'positive', supplier_name: 'COG-1', sample_description: 'ROOT-1' } } },
            },
          }),
          status: 201,
          response: { data: { type: 'heron', id: 'plates', attributes: { purpose_name: 'Stock Plate', study_names: ['Study A'] } } },
        },
        refused(
          'A well that is no coordinate of the plate',
          doc('plates', { attributes: { barcode: 'HERON-EXAMPLE-2', purpose_uuid: referenceUuidOf('plate_purposes', 'Stock Plate'), wells: { Z99: {} } } }),
          422,
          'invalid_value',
        ),
      ],
      tube_racks: [
        {
          summary: 'A rack received with a tube in A1',
          body: doc('tube_racks', {
            attributes: {
              barcode: 'HERON-EXAMPLE-3',
              purpose_uuid: referenceUuidOf('tube_rack_purposes', 'Tube Rack 96'),
              study_uuid: referenceUuidOf('studies', 'Study A'),
              tubes: { A1: { barcode: 'HERON-EXAMPLE-4', content: { supplier_name: 'COG-2' } } },
            },
          }),
          status: 201,
          response: { data: { type: 'heron', id: 'tube_racks', attributes: { purpose_name: 'Tube Rack 96', study_names: ['Study A'] } } },
        },
      ],
      tube_rack_statuses: [
        {
          summary: "A rack's status as lighthouse reports it",
          body: doc('tube_rack_statuses', {
            attributes: { tube_rack_status: { tube_rack: { barcode: 'HERON-EXAMPLE-5', status: 'validation_failed', messages: ['A1 is empty'] } } },
          }),
          status: 201,
          response: { data: { type: 'tube_rack_statuses', attributes: { barcode: 'HERON-EXAMPLE-5', status: 'validation_failed' } } },
        },
      ],
    },
  },
  pick_lists: {
    create: [
      made(
        'Well A1 cherrypicked for Study A and Project A: its submission built at once',
        'pick_lists',
        {
          attributes: {
            asynchronous: false,
            pick_attributes: [
              { source_receptacle_id: Number(A1), study_id: referenceId('studies', 'Study A'), project_id: referenceId('projects', 'Project A') },
            ],
          },
        },
        '1',
        { state: 'built', asynchronous: false },
      ),
      refused(
        'A receptacle that is not there',
        doc('pick_lists', { attributes: { pick_attributes: [{ source_receptacle_id: 999_999_001, project_id: referenceId('projects', 'Project A') }] } }),
        404,
        'record_not_found',
      ),
    ],
  },
  work_orders: {
    // Work orders are made by a submission of GridION requests built from orders, whose uuids the examples cannot know.
    update: [
      refused('No work order 1 on a fresh store', doc('work_orders', { id: '1', attributes: { state: 'started', at_risk: true } }), 404, 'record_not_found'),
    ],
  },
};
