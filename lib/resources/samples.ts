import * as z from '#lib/zod.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, type JsonApiError, show } from '#lib/jsonapi/errors.ts';
import {
  attr,
  defineResource,
  indexFilters,
  lowerCase,
  reverse,
  toMany,
  toOne,
  uuidAttribute,
  uuidAliasIndex,
  uuidFilter,
  type AttributeValues,
} from '#lib/jsonapi/resource.ts';
import { defaultCreate, defaultUpdate } from '#lib/jsonapi/write.ts';
import { linkOf, type StoredRecord } from '#lib/store/records.ts';

export const CONTROL_TYPES = ['negative', 'positive', 'pcr negative', 'pcr positive', 'lysate negative'] as const;

const metadataRef = (sample: StoredRecord) => linkOf(sample, 'sample_metadata');

/** A metadata record named on a sample must be free: not linked to another sample. */
function linkProblems(metadata: StoredRecord | null | undefined, sample?: StoredRecord): JsonApiError[] {
  if (metadata === undefined) return [];
  const pointer = '/data/relationships/sample_metadata';
  if (metadata === null) return [errors.invalidValue(pointer, 'sample_metadata - a sample always has a metadata record; it cannot be removed')];
  const owner = linkOf(metadata, 'sample');
  if (owner && owner.id !== sample?.id) return [errors.invalidValue(pointer, `sample_metadata - record ${metadata.id} already belongs to sample ${owner.id}`)];
  return [];
}

/**
 * `sanger_sample_id` is the reference's name of `site_sample_id` (contract §7.4; Limber's randomised
 * controls send it): one stored value, `site_sample_id`, read and written by either name. Sent by both
 * names, the values must agree.
 */
const REFERENCE_NAME = 'sanger_sample_id';

function namesProblems(attributes: AttributeValues<{ site_sample_id: unknown; sanger_sample_id: unknown }>): JsonApiError[] {
  const { site_sample_id: site, sanger_sample_id: sanger } = attributes;
  if (site === undefined || sanger === undefined || site === sanger) return [];
  return [
    errors.invalidValue(
      `/data/attributes/${REFERENCE_NAME}`,
      `${REFERENCE_NAME} - names the same value as site_sample_id, so they cannot differ: got ${REFERENCE_NAME} ${show(sanger)} and site_sample_id ${show(site)}`,
    ),
  ];
}

/** The attributes to store: `sanger_sample_id`, when sent, as `site_sample_id`. */
const storedNames = <A extends { site_sample_id?: unknown; sanger_sample_id?: unknown }>(attributes: A): A =>
  attributes.sanger_sample_id === undefined ? attributes : { ...attributes, site_sample_id: attributes.sanger_sample_id };

export const samples = defineResource({
  type: 'samples',
  methods: ['list', 'read', 'create', 'update'],
  attributes: {
    ...uuidAttribute,
    name: attr('RW', () => z.string().check(z.regex(/^[A-Za-z0-9_-]+$/, 'can only contain letters, numbers, _ or -'))),
    site_sample_id: attr('RW', () => z.string()),
    [REFERENCE_NAME]: attr('RW', () => z.string(), { transient: true, get: (r) => (r.attrs.site_sample_id as string | undefined) ?? null }),
    control: attr('RW', () => z.boolean()),
    control_type: attr('RW', () => z.enum(CONTROL_TYPES)),
  },
  relationships: {
    sample_metadata: toOne('sample_metadata', 'RW'),
    sample_manifest: toOne('sample_manifests', 'RW'),
    studies: toMany('studies', 'RW'),
    component_samples: toMany('samples', 'RW', { aliases: ['component_samples'] }),
    poly_metadata: reverse('poly_metadata', 'metadatable'),
  },
  indexes: {
    name: { values: (r) => [r.attrs.name], normalize: lowerCase, unique: { field: 'name', pointer: '/data/attributes/name' } },
    site_sample_id: { values: (r) => [r.attrs.site_sample_id] },
    // A Heron sample's uuid as lighthouse chose it (lib/operations/heron-reception.ts).
    uuid: uuidAliasIndex,
  },
  filters: { uuid: uuidFilter, ...indexFilters('name', 'site_sample_id'), [REFERENCE_NAME]: { index: 'site_sample_id' } },

  validate: (_ctx, input, current) => {
    const problems = [...linkProblems(input.relationships.sample_metadata, current), ...namesProblems(input.attributes)];
    const merged = { ...current?.attrs, ...input.attributes };
    if (merged.control_type && merged.control !== true) {
      problems.push(
        errors.invalidValue('/data/attributes/control_type', `control_type - should be blank unless control is true, got ${show(merged.control_type)}`),
      );
    }
    const before = current?.attrs.name;
    if ('name' in input.attributes && before && input.attributes.name !== before) {
      problems.push(errors.invalidValue('/data/attributes/name', `name - cannot be changed once set (is ${show(before)}, got ${show(input.attributes.name)})`));
    }
    return problems;
  },

  // Every sample has its metadata record: the one named (if free), otherwise a new empty one. The two
  // ids are reserved at once (two ADDs in parallel: one round trip less a create).
  create: async (ctx: WriteContext, input) => {
    const named = input.relationships.sample_metadata;
    const [[id], metadata] = await Promise.all([
      ctx.uow.allocateIds(ctx.registry.familyOf(samples.type), 1),
      named ?? ctx.uow.create('sample_metadata', { attrs: {}, rels: { sample: null } }),
    ]);
    const sample = await defaultCreate(
      ctx,
      samples,
      { ...input, attributes: storedNames(input.attributes), relationships: { ...input.relationships, sample_metadata: metadata } },
      id,
    );
    ctx.uow.update(metadata, { rels: { sample: refOf(sample) } });
    return sample;
  },

  update: async (ctx, current, input) => {
    const named = input.relationships.sample_metadata;
    const previous = metadataRef(current);
    if (named && previous && previous.id !== named.id) {
      const old = await ctx.loader.one(previous);
      if (old) ctx.uow.update(old, { rels: { sample: null } });
    }
    const sample = await defaultUpdate(ctx, samples, current, { ...input, attributes: storedNames(input.attributes) });
    if (named) ctx.uow.update(named, { rels: { sample: refOf(sample) } });
    return sample;
  },
});
