import * as z from '#lib/zod.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { attr, isRecordId, lazySchema, defineResource, toOne, type AttributeDef, type FilterDef } from '#lib/jsonapi/resource.ts';
import { defaultCreate } from '#lib/jsonapi/write.ts';
import { linkOf, refsOf, type StoredRecord } from '#lib/store/records.ts';

const GENDERS = ['Male', 'Female', 'Mixed', 'Hermaphrodite', 'Unknown', 'Not Applicable'];

/** Blank strings are stored as null, as in the reference system. */
const text = lazySchema(() =>
  z.pipe(
    z.string(),
    z.transform((s: string) => (s.trim() === '' ? null : s)),
  ),
);

const gender = lazySchema(() =>
  z.pipe(
    z.string(),
    z.transform((value: string, ctx) => {
      if (value.trim() === '') return null;
      const match = GENDERS.find((g) => g.toLowerCase() === value.trim().toLowerCase());
      if (!match) ctx.issues.push({ code: 'custom', input: value, message: `must be one of ${GENDERS.join(', ')}` });
      return match ?? value;
    }),
  ),
);

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
/** Date.parse rolls impossible days over (2024-02-30 → 1 March), so the calendar date is checked itself. */
const realCalendarDate = (value: string): boolean => {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
};
const isoDate = lazySchema(() =>
  z.pipe(
    z.string(),
    z.transform((value: string, ctx) => {
      if (value.trim() === '') return null;
      if (!ISO_8601.test(value) || !realCalendarDate(value) || Number.isNaN(Date.parse(value)))
        ctx.issues.push({ code: 'custom', input: value, message: 'must be an ISO 8601 date or date-time (e.g. 2024-05-01 or 2024-05-01T10:30:00Z)' });
      return value;
    }),
  ),
);

const FIELDS: Record<string, AttributeDef> = {
  cohort: attr('RW', text),
  collected_by: attr('RW', text),
  concentration: attr('RW', text),
  date_of_sample_collection: attr('RW', isoDate),
  donor_id: attr('RW', text),
  gender: attr('RW', gender),
  // The reference's column, which lighthouse's Heron reception sets (lib/resources/heron.ts).
  phenotype: attr('RW', text),
  sample_common_name: attr('RW', text),
  sample_description: attr('RW', text),
  supplier_name: attr('RW', text),
  volume: attr('RW', text),
};

const sampleOf = (metadata: StoredRecord) => linkOf(metadata, 'sample');

/**
 * `filter[sample_id]` follows each sample's own link to its metadata record (one batched read of the
 * samples, one of their records) rather than an index of metadata by sample: every sample has a metadata
 * record, so such an index would cost an item in every sample's create for a lookup the link already
 * answers. A record counts only if it names the sample back (a replaced record no longer does).
 */
const bySample: FilterDef = {
  lookup: async (ctx, values) => {
    const ids = values.filter(isRecordId).map(Number);
    const samples = await ctx.loader.load(ids.map((id) => ({ type: 'samples', id })));
    const links = [...samples.values()].flatMap((sample) => refsOf(sample.rels.sample_metadata));
    const records = await ctx.loader.load(links);
    return [...records.values()]
      .filter((metadata) => ids.includes(sampleOf(metadata)?.id ?? 0))
      .map((metadata) => ({ ref: '-', family: metadata.family, type: metadata.type, id: metadata.id }));
  },
  matches: (metadata, values) => values.includes(String(sampleOf(metadata)?.id)),
};

export const holdsData = (metadata: StoredRecord): boolean => Object.keys(FIELDS).some((f) => metadata.attrs[f] !== null && metadata.attrs[f] !== undefined);

export const sampleMetadata = defineResource({
  type: 'sample_metadata',
  // Created with every sample: its count goes into the same item of that write (lib/store/counts.ts).
  countedWith: 'samples',
  methods: ['list', 'read', 'create', 'update'],
  attributes: FIELDS,
  // Extension (contract §2): a metadata record may be created for a sample, replacing its empty one.
  relationships: { sample: toOne('samples', 'WO') },
  filters: { sample_id: bySample },

  validate: async (ctx, input) => {
    const sample = input.relationships.sample;
    if (!sample) return [];
    const currentRef = linkOf(sample, 'sample_metadata');
    const current = currentRef ? await ctx.loader.one(currentRef) : undefined;
    return current && holdsData(current)
      ? [
          errors.invalidValue(
            '/data/relationships/sample',
            `sample - sample ${sample.id} already has metadata record ${current.id} holding data; PATCH that record instead`,
          ),
        ]
      : [];
  },

  create: async (ctx, input) => {
    const sample = input.relationships.sample;
    const metadata = await defaultCreate(ctx, sampleMetadata, input);
    if (sample) {
      const previous = linkOf(sample, 'sample_metadata');
      const empty = previous ? await ctx.loader.one(previous) : undefined;
      if (empty) ctx.uow.delete(empty);
      ctx.uow.update(sample, { rels: { sample_metadata: refOf(metadata) } });
    }
    return metadata;
  },
});
