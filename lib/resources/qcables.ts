import * as z from '#lib/zod.ts';
import { QCABLE_STATES } from '#lib/domain/machines.ts';
import { initialQcableState } from '#lib/domain/qcables.ts';
import { refOf, type RequestContext } from '#lib/jsonapi/context.ts';
import { errors, type JsonApiError } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, timestamps, toOne, uuidAttribute, uuidFilter, type WriteInput } from '#lib/jsonapi/resource.ts';
import { canonicalBarcode } from '#lib/domain/barcode.ts';
import { labwareBarcodeSchema } from '#lib/resources/labware.ts';
import { findTerms, linkOf, linkedTo, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { qcableOfLabware } from '#lib/operations/state-change.ts';
import { renderedBarcode } from '#lib/operations/qcable-creation.ts';

/**
 * Qcables: labware of a lot that QC must approve before use (interface.md, contract §2). `state` moves
 * only through `state_changes`; `asset` is the deprecated name of `labware` (one stored link).
 */
interface RenderedBarcode {
  ean13_barcode: string | null;
  machine_barcode: string | null;
  human_barcode: string | null;
}

// A qcable keeps its labware's rendered barcode (renderedBarcode) to render `labware_barcode` and to be
// found by `filter[barcode]` without reading its labware.

/** The labware a write names: `labware`, else the deprecated `asset` (`labware` wins when both are sent, even as null). */
function namedLabware(input: WriteInput): { labware: StoredRecord | null | undefined; name: string } {
  const name = 'labware' in input.relationships || !('asset' in input.relationships) ? 'labware' : 'asset';
  return { labware: input.relationships[name] as StoredRecord | null | undefined, name };
}

const linkId = (record: StoredRecord, name: string) => linkOf(record, name)?.id;

/** `lots.qcables`: each lot's qcables in id order, one Query per lot. */
export async function qcablesOfLots(ctx: RequestContext, lots: StoredRecord[]): Promise<Map<StoredRecord, RelValue>> {
  const scope = ctx.registry.indexScope(qcables, 'lot');
  const found = await Promise.all(lots.map((lot) => findTerms(scope, String(lot.id))));
  return new Map(lots.map((lot, i) => [lot, found[i]!.map((hit) => ({ type: hit.type, id: hit.id }))]));
}

export const qcables = defineResource({
  type: 'qcables',
  methods: ['list', 'read', 'create', 'update'],
  attributes: {
    ...uuidAttribute,
    state: attr('R', () => z.enum(QCABLE_STATES)),
    labware_barcode: attr('R', labwareBarcodeSchema),
    // The qcable's place among its lot's stamped qcables (the reference's Qcable#stamp_index): stamps are
    // made through the reference's API v1, which is not served (contract §7.5), so no qcable is stamped.
    stamp_index: attr('R', () => z.number().check(z.int()), { get: () => null }),
    ...timestamps,
  },
  relationships: {
    labware: toOne('labware', 'RW'),
    asset: { ...toOne('labware', 'RW'), resolve: async (_ctx, records) => new Map(records.map((r) => [r, r.rels.labware ?? null])) },
    lot: toOne('lots', 'RW', { required: true }),
    // The creator that made it (lib/operations/qcable-creation.ts); none for a qcable POSTed on its own labware.
    qcable_creator: toOne('qcable_creators', 'R'),
  },
  indexes: {
    // One qcable per labware, also under concurrency: a guard item per labware id.
    labware: { values: (r) => [linkId(r, 'labware')], unique: { field: 'labware', pointer: '/data/relationships/labware' } },
    lot: { values: (r) => [linkId(r, 'lot')] },
    barcode: { values: (r) => [(r.attrs.labware_barcode as RenderedBarcode).human_barcode], normalize: canonicalBarcode, selective: true },
  },
  filters: { uuid: uuidFilter, barcode: { index: 'barcode' } },

  validate: async (ctx, input, current) => {
    const problems: JsonApiError[] = [];
    const { labware, name } = namedLabware(input);
    const pointer = `/data/relationships/${name}`;
    // A qcable always has its labware and its lot (a missing lot on create is the engine's `required`).
    if (labware === null || (labware === undefined && !current)) problems.push(errors.missingRequired(pointer, name));
    if (current && input.relationships.lot === null) problems.push(errors.missingRequired('/data/relationships/lot', 'lot'));
    if (labware) {
      const holder = await qcableOfLabware(ctx, labware);
      if (holder && holder.id !== current?.id) problems.push(errors.notUnique(pointer, name, `${labware.type} ${labware.id}`));
    }
    return problems;
  },

  create: async (ctx, input) => {
    const labware = namedLabware(input).labware!;
    const lot = input.relationships.lot!;
    const lotType = await ctx.loader.one(linkedTo(lot, 'lot_type'));
    return ctx.uow.create('qcables', {
      attrs: { state: initialQcableState(lotType?.attrs.qcable_initial_state), labware_barcode: renderedBarcode(ctx, labware) },
      rels: { labware: refOf(labware), lot: refOf(lot) },
    });
  },

  update: async (ctx, current, input) => {
    const { labware } = namedLabware(input);
    const lot = input.relationships.lot;
    return ctx.uow.update(current, {
      attrs: labware ? { labware_barcode: renderedBarcode(ctx, labware) } : {},
      rels: { ...(labware ? { labware: refOf(labware) } : {}), ...(lot ? { lot: refOf(lot) } : {}) },
    });
  },
});
