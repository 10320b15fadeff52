import * as z from '#lib/zod.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import { errors, show, type JsonApiError } from '#lib/jsonapi/errors.ts';
import { attr, lazySchema, defineResource, type ResourceDef, toOne, uuidAttribute, uuidFilter, type WriteInput } from '#lib/jsonapi/resource.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/**
 * Key/value metadata of one labware (robots record which robot handled a plate, limber the stock
 * barcode). `user_id` and `asset_id` are the integer ids of a user and a labware; `metadata` is replaced
 * whole on PATCH (clients merge and resend it).
 */
const integerId = lazySchema(() =>
  z.union([z.number().check(z.int(), z.positive()), z.pipe(z.string().check(z.regex(/^[1-9]\d*$/, 'must be a positive integer')), z.transform(Number))]),
);
// Keys are kept as sent: trimming them here would merge `" a "` and `"a"` into one key, silently dropping a value.
// Keys special to JavaScript objects (`__proto__`, `constructor`) are refused for every value (lib/jsonapi/input-values.ts).
const metadata = lazySchema(() =>
  z.record(
    z.string().check(z.refine((k) => k.trim() !== '', 'keys must not be empty')),
    z.string().check(z.refine((v) => v.trim() !== '', 'values must not be empty')),
  ),
);

function duplicateKeys(values: Record<string, string>): JsonApiError[] {
  const seen = new Map<string, string>();
  const problems: JsonApiError[] = [];
  for (const key of Object.keys(values)) {
    const folded = key.toLowerCase();
    if (seen.has(folded))
      problems.push(
        errors.invalidValue(`/data/attributes/metadata/${key}`, `metadata - keys must be unique ignoring case: ${show(seen.get(folded))} and ${show(key)}`),
      );
    seen.set(folded, key);
  }
  return problems;
}

/** The records `user_id` and `asset_id` name: a 404 for each that does not exist. */
async function owners(ctx: Parameters<NonNullable<ResourceDef['create']>>[0], input: WriteInput) {
  const [user, asset] = await Promise.all([
    ctx.loader.one({ type: 'users', id: input.attributes.user_id as number }),
    ctx.loader.one({ type: 'labware', id: input.attributes.asset_id as number }),
  ]);
  return { user, asset };
}

export const customMetadatumCollections = defineResource({
  type: 'custom_metadatum_collections',
  methods: ['list', 'read', 'create', 'update'],
  attributes: {
    ...uuidAttribute,
    user_id: attr('WO', integerId, { required: true }),
    asset_id: attr('WO', integerId, { required: true }),
    metadata: attr('RW', metadata),
  },
  relationships: { user: toOne('users', 'R'), asset: toOne('labware', 'R') },
  indexes: { asset_id: { values: (r) => [r.attrs.asset_id], unique: { field: 'asset_id', pointer: '/data/attributes/asset_id' } } },
  filters: { uuid: uuidFilter },

  validate: async (ctx, input, current) => {
    const values = input.attributes.metadata;
    // Clients merge into the map they read back, so it is never null (send {} to empty it).
    const problems =
      values === null
        ? [errors.wrongType('/data/attributes/metadata', 'metadata - must be an object of string values, got null')]
        : duplicateKeys(values ?? {});
    // A missing id is already a 422 (required): there is nothing to look up.
    if (current || input.attributes.user_id == null || input.attributes.asset_id == null) return problems;
    const { user, asset } = await owners(ctx, input);
    const missing = [
      ...(user ? [] : [errors.notFound(`user_id - no user with id ${input.attributes.user_id}`, { pointer: '/data/attributes/user_id' })]),
      ...(asset ? [] : [errors.notFound(`asset_id - no labware with id ${input.attributes.asset_id}`, { pointer: '/data/attributes/asset_id' })]),
    ];
    if (missing.length > 0) return missing;
    if (asset!.rels.custom_metadatum_collection) problems.push(errors.notUnique('/data/attributes/asset_id', 'asset_id', input.attributes.asset_id));
    return problems;
  },

  // The labware points at its collection, so `include=custom_metadatum_collection` costs no query.
  create: async (ctx, input) => {
    const { user, asset } = await owners(ctx, input);
    const collection = await ctx.uow.create('custom_metadatum_collections', {
      attrs: { user_id: user!.id, asset_id: asset!.id, metadata: input.attributes.metadata ?? {} },
      rels: { user: refOf(user!), asset: refOf(asset!) },
    });
    ctx.uow.update(asset as StoredRecord, { rels: { custom_metadatum_collection: refOf(collection) } });
    return collection;
  },
});
