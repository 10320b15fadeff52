import * as z from '#lib/zod.ts';
import { attr, defineResource, lazySchema, timestamps, toMany, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { createBulkTransfer } from '#lib/operations/bulk-transfer.ts';
import { submissionId, uuidText } from '#lib/operations/material-moves.ts';

/**
 * Bulk transfers (contract §6, the reference's BulkTransfer, deprecated there for transfer request
 * collections but still what Limber's multi-plate pool sends): wells of plates into wells of plates, named
 * by plate uuid and location. Each entry is one move of the one planner (lib/operations/bulk-transfer.ts, through
 * lib/operations/material-moves.ts):
 * one transfer request per entry, carrying the entry's submission. As in the reference, each (source,
 * destination) pair of plates is recorded as a `Transfer::BetweenPlates` transfer listing its wells, which
 * the destination lists among its `transfers_as_destination`. All or nothing, one transaction.
 */

const location = lazySchema(() => z.string({ error: 'must be a well location such as "A1"' }).check(z.minLength(1)));
const wellTransfer = lazySchema(() =>
  z.strictObject({
    source_uuid: uuidText(),
    source_location: location(),
    destination_uuid: uuidText(),
    destination_location: location(),
    submission_id: z.optional(z.nullable(submissionId())),
  }),
);
export const bulkTransfers = defineResource({
  type: 'bulk_transfers',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    well_transfers: attr('W', () => z.array(wellTransfer()), { required: true, transient: true }),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    transfers: toMany('transfers', 'R'),
    user: toOne('users', 'RW', { required: true }),
  },
  filters: { uuid: uuidFilter },

  create: (ctx, input) => createBulkTransfer(ctx, input),
});
