import * as z from '#lib/zod.ts';
import { stockToRegister, type StockResource } from '#lib/domain/stock-registration.ts';
import { refKey, type WriteContext } from '#lib/jsonapi/context.ts';
import { parseWriteDocument } from '#lib/jsonapi/document.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { renderResource } from '#lib/jsonapi/render.ts';
import { lazySchema, type MemberActionDef } from '#lib/jsonapi/resource.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import type { Ref, StoredRecord } from '#lib/store/records.ts';

/**
 * `POST /api/v2/plates/{id}/register_stock_for_plate` (contract §7.4; the reference's
 * PlatesController#register_stock_for_plate, which Limber's StampedPlateAddingRandomisedControls calls
 * after adding its controls): each well holding aliquots is registered as a stock resource — an event
 * `wells.stock_registered` per well, carrying its samples — and the plate records what it registered
 * (`plates.stock_registered`), all in one write. A registration that would repeat the plate's last one
 * registers nothing and writes nothing (lib/domain/stock-registration.ts): of concurrent registrations of
 * one plate exactly one registers, the others answer as it does once they read its write.
 */

/** The change's name: `plates.stock_registered`, and each well's `wells.stock_registered`. */
export const STOCK_REGISTERED = 'stock_registered';

/**
 * The stock resource a well's event carries in `data.meta.stock_resource`: the reference's
 * WellStockResourceIo message, but for the well attributes (concentration, volumes, counts) this service
 * does not record.
 */
export const stockResourceSchema = lazySchema(() =>
  z.object({
    stock_resource_uuid: z.string(),
    stock_resource_id: z.number(),
    labware_type: z.literal('well'),
    machine_barcode: z.nullable(z.string()),
    human_barcode: z.string(),
    labware_coordinate: z.string(),
    samples: z.array(z.object({ sample_uuid: z.string(), study_uuid: z.nullable(z.string()) })),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);

/** The body: Limber's `{}` (json_api_client's member endpoint sends no parameters), or `data` naming the plate, as a PATCH's must. */
function checkBody(ctx: WriteContext, body: unknown, plate: StoredRecord): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.invalidMember('', 'the request body must be a JSON object: {} or a data member naming the plate');
  // A resource object of no attributes or relationships: plates take none but on creation, so any is a 400.
  if ('data' in body) parseWriteDocument(ctx.registry, ctx.registry.require('plates'), body, 'update', plate.id);
}

/** One event per registered well: the well as the API renders it, its stock resource in `meta`. */
async function recordStockEvents(ctx: WriteContext, plate: StoredRecord, resources: readonly StockResource[]): Promise<void> {
  const named: Ref[] = resources.flatMap((r) =>
    r.samples.flatMap((s): Ref[] => [{ type: 'samples', id: s.sample }, ...(s.study === null ? [] : [{ type: 'studies', id: s.study }])]),
  );
  const records = await ctx.loader.load(named);
  const uuidOf = (ref: Ref) => records.get(refKey(ref))?.uuid ?? null;
  const wells = ctx.registry.viewsOf(ctx.registry.require('wells'), plate);
  const { machine_barcode, human_barcode } = labwareAttrs(plate).barcode;
  for (const { slot, samples } of resources) {
    const well = wells[slot - 1]!;
    const stockResource: z.infer<ReturnType<typeof stockResourceSchema>> = {
      stock_resource_uuid: well.uuid,
      stock_resource_id: well.id,
      labware_type: 'well',
      machine_barcode,
      human_barcode,
      labware_coordinate: (well.attrs.position as { name: string }).name,
      samples: samples.map((s) => ({
        sample_uuid: uuidOf({ type: 'samples', id: s.sample })!,
        study_uuid: s.study === null ? null : uuidOf({ type: 'studies', id: s.study }),
      })),
      created_at: well.createdAt,
      updated_at: well.updatedAt,
    };
    ctx.uow.addEvent({
      type: `wells.${STOCK_REGISTERED}`,
      resource: { type: 'wells', id: String(well.id), uuid: well.uuid, version: well.version },
      data: { ...renderResource(ctx, well, new Map()), meta: { stock_resource: stockResource } },
      // An action names no acting user (docs/decisions.md, "Actions, messages and store errors").
      actor: { api_key: ctx.apiKey?.name ?? null, user: null },
    });
  }
}

export const registerStockForPlate: MemberActionDef = {
  method: 'POST',
  on: 'member',
  run: async (ctx, body, plate) => {
    checkBody(ctx, body, plate);
    const attrs = labwareAttrs(plate);
    const { resources, digest } = stockToRegister(attrs.receptacles, attrs.stockRegistered);
    if (resources.length === 0) return { status: 200, data: plate };
    const registered = ctx.uow.update(plate, { attrs: { stockRegistered: digest } }, { event: STOCK_REGISTERED });
    await recordStockEvents(ctx, registered, resources);
    return { status: 200, data: registered };
  },
};
