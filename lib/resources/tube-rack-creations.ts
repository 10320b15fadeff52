import * as z from '#lib/zod.ts';
import {
  attr,
  defineResource,
  lazySchema,
  toMany,
  toOne,
  timestamps,
  uuidAttribute,
  uuidFilter,
  uuidsOfAttribute,
  uuidOfAttribute,
} from '#lib/jsonapi/resource.ts';
import { createTubeRacks } from '#lib/operations/tube-rack-creation.ts';
import { barcodeInput } from '#lib/resources/labware.ts';

/**
 * Specific tube rack creations (Limber's plate split to tube racks; contract §6, the reference's
 * SpecificTubeRackCreation): new racks of new tubes, each tube at its position with the barcode already on
 * it (the lab scans racks of barcoded tubes). The racks are children of the parents; the tubes are the
 * racks', and get their material from the transfer request collection Limber sends next, as in the
 * reference, so nothing moves here. The operation is lib/operations/tube-rack-creation.ts.
 */

/** One tube of a rack, as Limber sends it. Its `parent_uuids` (the well it is to be filled from) are accepted and, as in the reference, not used: the transfer that follows links the tube to its source. */
const rackedTube = () =>
  z.strictObject({
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
        racked_tubes: z.array(rackedTube()),
      }),
    )
    .check(z.minLength(1, 'must name at least one rack')),
);
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
    parents: toMany('labware', 'RW', { required: true, linkedAs: 'labware' }),
    user: toOne('users', 'RW', { required: true }),
  },
  filters: { uuid: uuidFilter },

  create: (ctx, input) => createTubeRacks(ctx, input),
});
