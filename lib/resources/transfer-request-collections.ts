import * as z from '#lib/zod.ts';
import { attr, defineResource, lazySchema, timestamps, toMany, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { submissionId, uuidText } from '#lib/operations/material-moves.ts';
import { createTransferRequestCollection } from '#lib/operations/transfer-request-collection.ts';

/**
 * Transfer request collections (contract §6, reference's TransferRequestCollection): material moved
 * between arbitrary receptacles, one transfer request per entry, as Limber's labware creators send them
 * (`transfer_requests_attributes` by uuid). The operation (lib/operations/transfer-request-collection.ts)
 * reads the uuids in one batched read, makes each entry a move of the one planner
 * (lib/domain/material-moves.ts), and changes each target labware by one conditional write, all in one
 * transaction (lib/domain/budgets.ts counts it).
 */

/** Microlitres: Limber sends them as numbers or as decimal strings (`volume: x.to_s`). */
const volume = lazySchema(() =>
  z
    .union([z.number(), z.pipe(z.string().check(z.regex(/^\s*\d+(\.\d+)?\s*$/, 'must be a number')), z.transform(Number))])
    .check(z.refine((n) => Number.isFinite(n) && n >= 0, 'must be a number of microlitres, 0 or more')),
);
const entry = lazySchema(() =>
  z.strictObject({
    source_asset: uuidText(),
    target_asset: uuidText(),
    outer_request: z.optional(z.nullable(uuidText())),
    submission: z.optional(z.nullable(uuidText())),
    submission_id: z.optional(z.nullable(submissionId())),
    volume: z.optional(z.nullable(volume())),
    merge_equivalent_aliquots: z.optional(z.nullable(z.boolean())),
    // Sent by Limber's blended-tube and pooling creators; accepted, not applied (docs/decisions.md).
    list_of_aliquot_attributes_to_consider_a_duplicate: z.optional(z.nullable(z.array(z.string()))),
    keep_this_aliquot_when_deduplicating: z.optional(z.nullable(z.boolean())),
    aliquot_attributes: z.optional(z.nullable(z.strictObject({ tag_depth: z.optional(z.nullable(z.union([z.number(), z.string()]))) }))),
  }),
);
export const transferRequestCollections = defineResource({
  type: 'transfer_request_collections',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    transfer_requests_attributes: attr('W', () => z.array(entry()), { required: true, transient: true }),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    transfer_requests: toMany('transfer_requests', 'R'),
    target_tubes: toMany('tubes', 'R'),
    user: toOne('users', 'RW', { required: true }),
  },
  filters: { uuid: uuidFilter },

  create: (ctx, input) => createTransferRequestCollection(ctx, input),
});
