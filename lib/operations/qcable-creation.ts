import { initialQcableState, qcablesToMake, type QcablesToMake } from '#lib/domain/qcables.ts';
import { refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { accepted, attributeAt } from '#lib/jsonapi/problems.ts';
import { renderResource } from '#lib/jsonapi/render.ts';
import { checkGivenBarcodes, createLabware, emptyPlateOf, reserveLabware } from '#lib/operations/labware-factory.ts';
import { linkOf, linkedTo, type StoredRecord } from '#lib/store/records.ts';

/**
 * A qcable creator (the reference's QcableCreator, contract §7.5): `count` new qcables of a lot, or one per
 * barcode given, each on a new plate of the lot type's target purpose, all in one write with the creator's
 * own record. 96 tag plates are past one transaction: the store stages them (lib/store/large-write.ts).
 */

/** A labware's barcode as the API renders it: a qcable keeps this copy (labware barcodes never change). */
export const renderedBarcode = (ctx: RequestContext, labware: StoredRecord): unknown => renderResource(ctx, labware, new Map()).attributes.labware_barcode;

/** A qcable creator's write input. */
interface QcableCreatorInput {
  attributes: { count?: number | null; barcodes?: string | readonly string[] | null };
  relationships: { lot?: StoredRecord | null; user?: StoredRecord | null };
}

/** What a creator reads: its lot's type and the purpose the type's qcables are made on (a 422 at `lot` when it names none). */
async function readLotTarget(ctx: WriteContext, lot: StoredRecord): Promise<{ lotType: StoredRecord; purpose: StoredRecord }> {
  const lotType = (await ctx.loader.one(linkedTo(lot, 'lot_type')))!;
  const target = linkOf(lotType, 'target_purpose');
  const purpose = target && (await ctx.loader.one(target));
  if (!purpose)
    throw errors.invalidValue(
      '/data/relationships/lot',
      `lot - lot ${String(lot.attrs.lot_number)} is of lot type ${String(lotType.attrs.name)}, which names no target purpose to make its qcables' labware of`,
    );
  return { lotType, purpose };
}

/** Stages the plates and their qcables, then the creator's record linking them. */
async function writeQcables(ctx: WriteContext, input: QcableCreatorInput, made: QcablesToMake, target: { lotType: StoredRecord; purpose: StoredRecord }) {
  const { lot, user } = input.relationships;
  const [reserved, qcableIds, [creatorId]] = await Promise.all([
    reserveLabware(ctx, made.count, !made.barcodes),
    ctx.uow.allocateIds(ctx.registry.familyOf('qcables'), made.count),
    ctx.uow.allocateIds(ctx.registry.familyOf('qcable_creators'), 1),
  ]);
  const creator = { type: 'qcable_creators', id: creatorId! };
  const state = initialQcableState(target.lotType.attrs.qcable_initial_state);
  const qcables = await Promise.all(
    reserved.map(async (ids, i) => {
      const barcode = made.barcodes?.[i]?.barcode;
      const plate = await createLabware(
        ctx,
        'plates',
        { purpose: target.purpose, ...emptyPlateOf(target.purpose), owner: user!.id, ...(barcode ? { barcode } : {}) },
        ids,
      );
      return ctx.uow.create('qcables', {
        id: qcableIds[i]!,
        attrs: { state, labware_barcode: renderedBarcode(ctx, plate) },
        rels: { labware: refOf(plate), lot: refOf(lot!), qcable_creator: creator },
      });
    }),
  );
  return ctx.uow.create('qcable_creators', {
    id: creator.id,
    attrs: { count: made.count, ...(input.attributes.barcodes != null ? { barcodes: input.attributes.barcodes } : {}) },
    rels: { lot: refOf(lot!), user: refOf(user!), qcables: qcables.map(refOf) },
  });
}

/** Reads the lot's target, plans what to make (refusing past the bound of one request or a barcode given twice or taken), writes it. */
export async function createQcables(ctx: WriteContext, input: QcableCreatorInput): Promise<StoredRecord> {
  const made = accepted(qcablesToMake(input.attributes.count, input.attributes.barcodes), attributeAt);
  const [target] = await Promise.all([readLotTarget(ctx, input.relationships.lot!), made.barcodes && checkGivenBarcodes(ctx, made.barcodes)]);
  return writeQcables(ctx, input, made, target);
}
