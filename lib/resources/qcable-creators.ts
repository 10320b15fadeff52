import * as z from '#lib/zod.ts';
import { attr, defineResource, timestamps, toMany, toOne, uuidAttribute, uuidFilter } from '#lib/jsonapi/resource.ts';
import { createQcables } from '#lib/operations/qcable-creation.ts';

/** The longest `barcodes` string: a bound of one request's barcodes (MAX_QCABLES_PER_CREATOR) of up to 60 characters each. */
const BARCODES_MAX_LENGTH = 40_000;

/**
 * Qcable creators (the reference's QcableCreator; gatekeeper's tag plate creation, contract §7.5): POST
 * `count` or `barcodes` (comma-separated, as gatekeeper uploads them, or a list), a `lot` and a `user`; it
 * makes the qcables (lib/operations/qcable-creation.ts) and links them as `qcables`.
 */
export const qcableCreators = defineResource({
  type: 'qcable_creators',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    count: attr('RW', () => z.number().check(z.int(), z.positive())),
    barcodes: attr('RW', () => z.union([z.string(), z.array(z.string())]), { maxStringLength: BARCODES_MAX_LENGTH }),
    ...timestamps,
  },
  relationships: {
    lot: toOne('lots', 'RW', { required: true }),
    user: toOne('users', 'RW', { required: true }),
    qcables: toMany('qcables', 'R'),
  },
  filters: { uuid: uuidFilter },
  create: (ctx, input) => createQcables(ctx, input),
});
