import * as z from '#lib/zod.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import { requiredUuidOf } from '#lib/jsonapi/problems.ts';
import { attr, defineResource, lazySchema, timestamps, toOne, uuidAttribute, uuidFilter, type FilterDef } from '#lib/jsonapi/resource.ts';
import { linkOf } from '#lib/store/records.ts';
import { LABWARE_TYPES } from '#lib/resources/labware.ts';

/**
 * Asset audits (contract §7.5, the reference's AssetAudit): a note that a process was performed on a
 * labware, as the asset_audits application posts one per scanned plate or tube (`key` of the process, a
 * `message`, who did it and who witnessed it, the bed scans as `metadata`). Recorded once, never changed.
 * The labware is named by `asset_uuid` (the reference's only way) or the `asset` relationship, and always
 * linked in what is rendered, so the audit's event names its labware.
 */
const optionalText = lazySchema(() => z.string());

/** `filter[asset_uuid]`: labware uuids → the ids the `asset` index holds (one batched read). */
const assetUuidFilter: FilterDef = {
  index: 'asset',
  translate: async (ctx, values) => (await ctx.loader.byUuids(values, LABWARE_TYPES)).flatMap((r) => (r ? [String(r.id)] : [])),
};

export const assetAudits = defineResource({
  type: 'asset_audits',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    // The reference's key format (AssetAudit: /\A[\w_]+\z/): a process key such as `slf_receive_plates`.
    key: attr('WO', () => z.string().check(z.regex(/^\w+$/, 'must be letters, digits and underscores only')), { required: true }),
    message: attr('WO', optionalText),
    created_by: attr('WO', optionalText),
    witnessed_by: attr('WO', optionalText),
    // What asset_audits sends: null, or its bed verification's scans (`{"scanned": {...}}`); any JSON object, kept as sent.
    metadata: attr('WO', () => z.record(z.string(), z.unknown())),
    asset_uuid: attr('WO', () => z.string({ error: 'must be a uuid string' }), { uuidOf: 'asset' }),
    ...timestamps,
  },
  relationships: { asset: toOne('labware', 'WO', { alwaysLinked: true }) },
  // An audit trail of a labware is a filter on it: one entry per audit.
  indexes: { asset: { values: (r) => [linkOf(r, 'asset')?.id], selective: true } },
  filters: { uuid: uuidFilter, asset_id: { index: 'asset' }, asset_uuid: assetUuidFilter },

  validate: (_ctx, input) => requiredUuidOf(input, 'asset', 'asset_uuid'),

  create: async (ctx, input) => {
    const asset = input.relationships.asset!;
    const { key, message, created_by, witnessed_by, metadata } = input.attributes;
    return ctx.uow.create('asset_audits', {
      attrs: {
        key: key!,
        message: message ?? null,
        created_by: created_by ?? null,
        witnessed_by: witnessed_by ?? null,
        metadata: metadata ?? null,
        asset_uuid: asset.uuid,
      },
      rels: { asset: refOf(asset) },
    });
  },
});
