import * as z from '#lib/zod.ts';
import { TRANSFER_TYPES } from '#lib/domain/transfers.ts';
import { attr, lazySchema, defineResource, timestamps, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { createTransfer } from '#lib/operations/transfer.ts';
import { transferMapSchema } from '#lib/resources/reference.ts';

/**
 * Transfers (interface.md, reference-behaviour.md §4.1): material copied from one labware into others,
 * by the type and map of a transfer template. Which receptacles go where is a lab rule
 * (lib/domain/transfers.ts); the operation (lib/operations/transfer.ts) reads the labware, applies the plan
 * to each destination's aggregate (aliquots copied, one transfer request per copy), and writes everything
 * in one transaction.
 */

/** A tube a plate's wells were pooled into, as the reference summarises it in `transfers` (lib/operations/transfer.ts, summarise). */
const tubeSummary = lazySchema(() =>
  z.object({
    uuid: z.uuid(),
    name: z.nullable(z.string()),
    state: z.string(),
    label: z.object({ text: z.string() }),
    barcode: z.object({ number: z.string(), prefix: z.string(), two_dimensional: z.null(), ean13: z.nullable(z.string()), type: z.number() }),
  }),
);
const recordedSchema = lazySchema(() => z.union([transferMapSchema(), z.record(z.string(), tubeSummary())]));

export const transfers = defineResource({
  type: 'transfers',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    // Read-only, but a client may send a map for a template that has none ("Custom pooling"; contract §2).
    transfers: attr('R', recordedSchema, { acceptOnCreate: true, transient: true }),
    transfer_type: attr('R', () => z.enum(TRANSFER_TYPES)),
    transfer_template_uuid: attr('W', () => z.string({ error: 'must be a uuid string' }), { required: true, transient: true, readsUuid: true }),
    source_uuid: uuidOfAttribute('source'),
    destination_uuid: uuidOfAttribute('destination'),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    source: toOne('labware', 'RW', { required: true }),
    destination: toOne('labware', 'RW'),
    user: toOne('users', 'RW', { required: true }),
  },
  // A lookup slot: costs the write no item; `filter[transfer_type]` may lag a write by a moment.
  indexes: { transfer_type: { values: (r) => [r.attrs.transfer_type], slot: 1 } },
  filters: { uuid: uuidFilter, transfer_type: { index: 'transfer_type' } },

  // Read → plan → write (lib/operations/transfer.ts).
  create: (ctx, input) => createTransfer(ctx, input),
});
