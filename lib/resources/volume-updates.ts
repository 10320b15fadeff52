import * as z from '#lib/zod.ts';
import { requiredUuidOf } from '#lib/jsonapi/problems.ts';
import { attr, defineResource, lazySchema, timestamps, toOne, uuidAttribute, uuidFilter } from '#lib/jsonapi/resource.ts';
import { createVolumeUpdate } from '#lib/operations/volume-update.ts';

/**
 * Volume updates (contract §7.5, the reference's VolumeUpdate): a change of the volume of every receptacle
 * of a labware, as asset_audits posts one per source plate of a working dilution (lib/operations/volume-update.ts).
 * The labware is named by `target_uuid` (the reference's only way) or the `target` relationship, and always
 * linked in what is rendered.
 */

/** Microlitres, up or down: a number, or a decimal in a string as Rails' float column casts one. */
const volumeChange = lazySchema(() =>
  z.union([
    z.number().check(z.refine(Number.isFinite, 'must be a finite number')),
    z.pipe(z.string().check(z.trim(), z.regex(/^[-+]?\d+(\.\d+)?$/, 'must be a number of microlitres')), z.transform(Number)),
  ]),
);

export const volumeUpdates = defineResource({
  type: 'volume_updates',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    // The reference validates its presence only: any non-blank text (asset_audits sends the user's login).
    created_by: attr('WO', () => z.string().check(z.refine((text) => text.trim() !== '', 'must not be blank')), { required: true }),
    volume_change: attr('WO', volumeChange, { required: true }),
    target_uuid: attr('WO', () => z.string({ error: 'must be a uuid string' }), { uuidOf: 'target' }),
    ...timestamps,
  },
  relationships: { target: toOne('labware', 'WO', { alwaysLinked: true }) },
  filters: { uuid: uuidFilter },

  validate: (_ctx, input) => requiredUuidOf(input, 'target', 'target_uuid'),

  create: (ctx, input) => createVolumeUpdate(ctx, input),
});
