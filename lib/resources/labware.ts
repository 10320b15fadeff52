import * as z from '#lib/zod.ts';
import { canonicalBarcode } from '#lib/domain/barcode.ts';
import { labwareState } from '#lib/domain/labware.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import { layoutForSize } from '#lib/domain/geometry.ts';
import {
  attr,
  computed,
  defineResource,
  lowerCase,
  reverse,
  timestamps,
  toOne,
  uuidAttribute,
  uuidFilter,
  type FilterDef,
  type IndexDef,
  type WriteInput,
  lazySchema,
} from '#lib/jsonapi/resource.ts';
import { findTerms, linkOf, type StoredRecord } from '#lib/store/records.ts';
import { createLabware, emptyPlateOf, emptyTube } from '#lib/operations/labware-factory.ts';
import { aliquotRefs, qcResultRefs, renderBarcode, transferRequestRefs } from '#lib/resources/labware-views.ts';
import { labwareAttrs, receptacleRefs } from '#lib/operations/labware-records.ts';
import { transferRequestsAsSourceRelationship } from '#lib/resources/transfer-requests.ts';
import { childPlates, childrenOfType, lineageRelationships, parentIndex } from '#lib/resources/lineage.ts';
import { directSubmissions, labwareSamples } from '#lib/resources/labware-work.ts';
import { submissionPoolsOfPlate } from '#lib/resources/submission-pools.ts';
import { labwareLifecycleFilters } from '#lib/resources/labware-filters.ts';
import { registerStockForPlate } from '#lib/operations/stock-registration.ts';

/** What plates, tubes and tube racks share: barcodes, purpose, family links, custom metadata. */
export const LABWARE_TYPES = ['plates', 'tubes', 'tube_racks'] as const;

export const barcodeIndex: IndexDef = {
  scope: 'barcode',
  slot: 1,
  selective: true,
  values: (r) => [labwareAttrs(r).barcode?.human_barcode],
  normalize: canonicalBarcode,
};
export const purposeIndex: IndexDef = { scope: 'purpose', slot: 2, counted: true, values: (r) => [linkOf(r, 'purpose')?.id] };
/**
 * Every barcode, in any of its forms, belongs to one labware: a guard item per barcode, created with the
 * labware. A barcode the client gave that is taken is a 422; a generated one that is taken (a migrated
 * labware brought it) makes the write start again with the next number of the sequence.
 */
const barcodeGuard = (external: boolean): IndexDef => ({
  scope: 'barcode-guard',
  values: (r) => [labwareAttrs(r).barcode?.external === external ? labwareAttrs(r).barcode.human_barcode : undefined],
  normalize: canonicalBarcode,
  unique: external ? { field: 'barcode', pointer: '/data/attributes/barcode' } : 'retry',
});

/** `purpose_name` → the ids of purposes with those names (purpose names are one name space). */
const purposeNameFilter: FilterDef = {
  index: 'purpose',
  translate: async (_ctx, names) => (await Promise.all(names.map((n) => findTerms('purposes.name', lowerCase(n))))).flat().map((hit) => String(hit.id)),
};

export const labwareIndexes = {
  barcode: barcodeIndex,
  purpose: purposeIndex,
  barcode_guard: barcodeGuard(true),
  generated_barcode_guard: barcodeGuard(false),
  parents: parentIndex,
};
export const labwareFilters: Record<string, FilterDef> = {
  uuid: uuidFilter,
  barcode: { index: 'barcode' },
  purpose_id: { index: 'purpose' },
  purpose_name: purposeNameFilter,
  ...labwareLifecycleFilters,
};

/** A labware's barcode in its three forms, as rendered (contract §2). */
export const labwareBarcodeSchema = lazySchema(() =>
  z.object({ ean13_barcode: z.nullable(z.string()), machine_barcode: z.nullable(z.string()), human_barcode: z.string() }),
);
const count = lazySchema(() => z.number().check(z.int(), z.positive()));

export const labwareAttributes = {
  ...uuidAttribute,
  name: attr('R', () => z.string()),
  labware_barcode: attr('R', labwareBarcodeSchema, { get: renderBarcode }),
  // Plates and tubes: the common state of the transfer requests into them (lib/domain/labware.ts); racks: their tubes' (or empty, or mixed).
  state: attr('R', () => z.string(), { get: (r) => labwareState(labwareAttrs(r)) }),
  ...timestamps,
};

/** A labware's purpose links as `purposes`, the reference's `class_name: 'Purpose'` (contract §7.4); a write names one of `purposeType`. */
export const labwareRelationships = (purposeType: string) => ({
  purpose: toOne(purposeType, 'WO', { required: true, linkedAs: 'purposes' }),
  ...lineageRelationships,
  custom_metadatum_collection: toOne('custom_metadatum_collections', 'R'),
  poly_metadata: reverse('poly_metadata', 'metadatable'),
  // Files attached to it (lib/resources/qc-files.ts), one Query.
  qc_files: reverse('qc_files', 'labware'),
  // Comments about it (lib/resources/comments.ts), one Query.
  comments: reverse('comments', 'commentable'),
  // Listed in the labware's aggregate as they are made (lib/operations/state-change.ts): no read to resolve.
  state_changes: computed('many', 'state_changes', (r) => (labwareAttrs(r).stateChanges ?? []).map((id) => ({ type: 'state_changes', id }))),
});

/** A barcode given on create: any text of these characters; in this service's own format (migrated labware) in any of its forms. */
export const barcodeInput = lazySchema(() =>
  z.string().check(z.trim(), z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9._:-]+$/, 'may contain letters, digits, ".", "_", ":" and "-"')),
);

/** The purpose and client-given barcode of a POST. */
const labwareInput = (input: WriteInput) => ({
  purpose: input.relationships.purpose as StoredRecord | undefined,
  barcode: input.attributes.barcode as string | undefined,
});

const gridAttributes = {
  size: attr('R', count),
  number_of_rows: attr('R', count, { get: (r) => layoutForSize(Number(r.attrs.size))?.rows ?? null }),
  number_of_columns: attr('R', count, { get: (r) => layoutForSize(Number(r.attrs.size))?.columns ?? null }),
};

/** Every QC result in a labware: measured on it or on its receptacles (stored there, so no read). */
const qcResultsOfLabware = computed('many', 'qc_results', (r) => qcResultRefs(r));

/** traction-ui asks for this field; retention is not tracked yet, so it is always null. */
const retentionInstruction = { retention_instruction: attr('R', () => z.null(), { get: () => null }) };

export const plates = defineResource({
  type: 'plates',
  family: 'labware',
  supertypes: ['labware'],
  methods: ['list', 'read', 'create'],
  attributes: {
    ...labwareAttributes,
    ...gridAttributes,
    ...retentionInstruction,
    barcode: attr('W', barcodeInput, { transient: true, acceptOnCreate: true }),
  },
  relationships: {
    ...labwareRelationships('plate_purposes'),
    wells: computed('many', 'wells', receptacleRefs),
    receptacles: computed('many', 'wells', receptacleRefs),
    child_plates: childPlates,
    qc_results: qcResultsOfLabware,
    samples: labwareSamples,
    direct_submissions: directSubmissions,
    submission_pools: submissionPoolsOfPlate,
    // Listed in the plate's aggregate by the transfers into it (lib/operations/transfer.ts): no read to resolve.
    transfers_as_destination: computed('many', 'transfers', (r) => (labwareAttrs(r).transfersAsDestination ?? []).map((id) => ({ type: 'transfers', id }))),
  },
  indexes: labwareIndexes,
  filters: labwareFilters,
  create: (ctx, input) => createLabware(ctx, 'plates', { ...labwareInput(input), ...emptyPlateOf(input.relationships.purpose!) }),
  actions: { register_stock_for_plate: registerStockForPlate },
});

export const tubes = defineResource({
  type: 'tubes',
  family: 'labware',
  supertypes: ['labware'],
  methods: ['list', 'read', 'create'],
  attributes: {
    ...labwareAttributes,
    ...retentionInstruction,
    name: attr('R', () => z.string().check(z.minLength(1)), { acceptOnCreate: true }),
    barcode: attr('W', barcodeInput, { transient: true, acceptOnCreate: true }),
  },
  relationships: {
    ...labwareRelationships('tube_purposes'),
    receptacle: computed('one', 'receptacles', (r) => ({ type: 'receptacles', id: slotId(r.id, 1) })),
    receptacles: computed('many', 'receptacles', receptacleRefs),
    aliquots: computed('many', 'aliquots', (r) => aliquotRefs(r)),
    qc_results: qcResultsOfLabware,
    child_plates: childPlates,
    child_tubes: childrenOfType('tubes'),
    direct_submissions: directSubmissions,
    tube_rack: toOne('tube_racks', 'R'),
    // The transfer requests into and out of its receptacle (lib/resources/transfer-requests.ts).
    transfer_requests_as_target: computed('many', 'transfer_requests', (r) => transferRequestRefs(r)),
    transfer_requests_as_source: transferRequestsAsSourceRelationship,
    racked_tube: computed('one', 'racked_tubes', (r) => {
      const rack = linkOf(r, 'tube_rack');
      const slot = labwareAttrs(r).rackSlot;
      return rack && slot ? { type: 'racked_tubes', id: slotId(rack.id, slot) } : null;
    }),
  },
  // One pool tube per submission: two transfers making it at once cannot both, the second runs again and fills it.
  indexes: { ...labwareIndexes, pool_tube: { values: (r) => [labwareAttrs(r).poolTube], unique: 'retry' } },
  filters: labwareFilters,
  create: (ctx, input) => createLabware(ctx, 'tubes', { ...labwareInput(input), name: input.attributes.name ?? null, ...emptyTube() }),
});

/**
 * Labware of any kind: items render as plates, tubes or tube_racks (Limber tells them apart by type). A
 * receptacle's `labware` links as `labware` (the reference's non-polymorphic `has_one :labware`, contract
 * §7.4): that record renders as this type, with what every labware has.
 */
export const labware = defineResource({
  type: 'labware',
  family: 'labware',
  members: LABWARE_TYPES,
  methods: ['list', 'read'],
  attributes: { ...labwareAttributes, ...retentionInstruction },
  relationships: {
    ...labwareRelationships('purposes'),
    // Polymorphic as the reference's (`shared_behaviour/labware.rb`): a plate's wells, a tube's receptacle, a rack's none.
    // traction-ui walks a library's labware to its receptacles (SequencescapeMultiplexedLibraries.js).
    receptacles: computed('many', ['wells', 'receptacles'], receptacleRefs),
  },
  indexes: { barcode: barcodeIndex },
  // The purpose filters too: related collections of labware (`/plates/{id}/ancestors?filter[purpose_name]=…`) filter as labware.
  filters: labwareFilters,
});
