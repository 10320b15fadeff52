import * as z from '#lib/zod.ts';
import { maxTubesPerRackCreation, rackCreationItems, TRANSACTION_ITEM_LIMIT } from '#lib/domain/budgets.ts';
import { layoutForSize } from '#lib/domain/geometry.ts';
import type { Problem } from '#lib/domain/problems.ts';
import { planPlacements, rackSlot, rackState } from '#lib/domain/racks.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import {
  attr,
  defineResource,
  lazySchema,
  toMany,
  toOne,
  timestamps,
  uuidAttribute,
  uuidFilter,
  uuidOfAttribute,
  uuidsOfAttribute,
} from '#lib/jsonapi/resource.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { barcodeInput, checkGivenBarcodes, createLabware, emptyTube, reserveLabware } from '#lib/resources/labware.ts';
import { attributeAt, problemErrors, sentAt } from '#lib/resources/problems.ts';

/**
 * Specific tube rack creations (Limber's plate split to tube racks; contract §6, the reference's
 * SpecificTubeRackCreation): new racks of new tubes, each tube at its position with the barcode already on
 * it (the lab scans racks of barcoded tubes). The racks are children of the parents; the tubes are the
 * racks', and get their material from the transfer request collection Limber sends next, as in the
 * reference, so nothing moves here.
 */

/** One tube of a rack, as Limber sends it. Its `parent_uuids` (the well it is to be filled from) are accepted and, as in the reference, not used: the transfer that follows links the tube to its source. */
const rackedTube = z.strictObject({
  tube_barcode: barcodeInput(),
  tube_name: z.optional(z.nullable(z.string())),
  tube_purpose_uuid: z.string(),
  tube_position: z.string(),
  parent_uuids: z.optional(z.nullable(z.array(z.string()))),
});

const tubeRackAttributes = lazySchema(() =>
  z
    .array(
      z.strictObject({
        tube_rack_name: z.optional(z.nullable(z.string())),
        tube_rack_barcode: z.optional(z.nullable(barcodeInput())),
        tube_rack_purpose_uuid: z.string(),
        racked_tubes: z.array(rackedTube),
      }),
    )
    .check(z.minLength(1, 'must name at least one rack')),
);
type RackAttributes = z.infer<ReturnType<typeof tubeRackAttributes>>;

const FIELD = 'tube_rack_attributes';
const rackAt = (i: number, ...rest: (string | number)[]) => [FIELD, String(i), ...rest.map(String)];
const tubeAt = (i: number, j: number, member: string) => rackAt(i, 'racked_tubes', j, member);

/** The purposes the entries name, each found among `type` (one batched read), else a 404 at every entry naming it. */
async function purposesNamed(ctx: WriteContext, named: { uuid: string; input: string[] }[], type: string): Promise<StoredRecord[]> {
  const found = await ctx.loader.byUuids(
    named.map((n) => n.uuid),
    [type],
  );
  const missing = named.flatMap(({ uuid, input }, k) =>
    found[k] ? [] : [errors.notFound(`${FIELD} - no ${type} with uuid ${show(uuid)}`, { pointer: pointer('data', 'attributes', ...input) })],
  );
  if (missing.length > 0) throw JsonApiError.all(missing);
  return found as StoredRecord[];
}

/** Each rack's tubes at coordinates of the rack's size (its purpose's), each coordinate once: every problem a 422 at its position. */
function checkPositions(racks: RackAttributes, rackPurposes: readonly StoredRecord[]): string[][] {
  const problems: Problem[] = [];
  const coordinates = racks.map((rack, i) => {
    // Tubes are told apart by barcode across the whole creation (checkGivenBarcodes), so here only their positions count.
    const planned = planPlacements(
      layoutForSize(Number(rackPurposes[i]!.attrs.size ?? 96))!,
      rack.racked_tubes.map((tube, j) => ({ key: tube.tube_position, uuid: String(j) })),
      { coordinate: (j) => tubeAt(i, j, 'tube_position'), tube: (j) => tubeAt(i, j, 'tube_barcode') },
    );
    if (!planned.ok) problems.push(...planned.problems);
    return planned.ok ? planned.value.map((p) => p.coordinate) : [];
  });
  if (problems.length > 0) throw JsonApiError.all(problemErrors(problems, attributeAt));
  return coordinates;
}

export const specificTubeRackCreations = defineResource({
  type: 'specific_tube_rack_creations',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    parent_uuids: uuidsOfAttribute('parents'),
    tube_rack_attributes: attr('W', tubeRackAttributes, { transient: true, acceptOnCreate: true, required: true }),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    children: toMany('tube_racks', 'R'),
    parents: toMany('labware', 'RW', { required: true }),
    user: toOne('users', 'RW', { required: true }),
  },
  filters: { uuid: uuidFilter },

  create: async (ctx, input) => {
    const { parents, user } = input.relationships;
    const racks = input.attributes.tube_rack_attributes!;
    const tubes = racks.flatMap((rack, i) => rack.racked_tubes.map((tube, j) => ({ tube, at: (member: string) => tubeAt(i, j, member) })));
    const items = rackCreationItems(racks.length, tubes.length, parents!.length);
    if (items > TRANSACTION_ITEM_LIMIT) {
      const { field } = sentAt(input, 'parents', 'parent_uuids');
      throw errors.tooLarge(
        pointer('data', 'attributes', FIELD),
        `${FIELD} - ${racks.length} rack(s) of ${tubes.length} new tubes in all, from ${parents!.length} parent(s) (${field}), would write ${items} items; one request may write at most ${TRANSACTION_ITEM_LIMIT} (a DynamoDB transaction), which holds at most ${maxTubesPerRackCreation(racks.length, parents!.length)} new tubes in ${racks.length} rack(s) from ${parents!.length} parent(s)`,
      );
    }
    const [rackPurposes, tubePurposes] = await Promise.all([
      purposesNamed(
        ctx,
        racks.map((rack, i) => ({ uuid: rack.tube_rack_purpose_uuid, input: rackAt(i, 'tube_rack_purpose_uuid') })),
        'tube_rack_purposes',
      ),
      purposesNamed(
        ctx,
        tubes.map(({ tube, at }) => ({ uuid: tube.tube_purpose_uuid, input: at('tube_purpose_uuid') })),
        'tube_purposes',
      ),
    ]);
    const coordinates = checkPositions(racks, rackPurposes);
    await checkGivenBarcodes(ctx, [
      ...racks.flatMap((rack, i) => (rack.tube_rack_barcode ? [{ barcode: rack.tube_rack_barcode, input: rackAt(i, 'tube_rack_barcode') }] : [])),
      ...tubes.map(({ tube, at }) => ({ barcode: tube.tube_barcode, input: at('tube_barcode') })),
    ]);

    const reserved = await reserveLabware(ctx, tubes.length, false);
    const newTube = emptyTube();
    const made: StoredRecord[] = [];
    let k = 0;
    for (const [i, rack] of racks.entries()) {
      const first = k;
      k += rack.racked_tubes.length;
      const racked = coordinates[i]!.map((coordinate, j) => ({ coordinate, tube: reserved[first + j]!.id }));
      const child = await createLabware(ctx, 'tube_racks', {
        purpose: rackPurposes[i]!,
        ...(rack.tube_rack_barcode ? { barcode: rack.tube_rack_barcode } : {}),
        name: rack.tube_rack_name ?? null,
        size: Number(rackPurposes[i]!.attrs.size ?? 96),
        state: rackState(racked.map(() => newTube.state)),
        receptacles: [],
        racked,
        parents: parents!.map(refOf),
        owner: user!.id,
      });
      made.push(child);
      for (const [j, { coordinate }] of racked.entries()) {
        const tube = rack.racked_tubes[j]!;
        await createLabware(
          ctx,
          'tubes',
          {
            purpose: tubePurposes[first + j],
            barcode: tube.tube_barcode,
            name: tube.tube_name ?? null,
            ...newTube,
            rackSlot: rackSlot(coordinate),
            tubeRack: refOf(child),
            owner: user!.id,
          },
          reserved[first + j],
        );
      }
    }
    return ctx.uow.create('specific_tube_rack_creations', {
      attrs: {},
      rels: { children: made.map(refOf), parents: parents!.map(refOf), user: refOf(user!) },
    });
  },
});
