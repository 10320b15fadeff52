import * as z from '#lib/zod.ts';
import { TAG_DIRECTIONS, TAG_WALKERS } from '#lib/domain/tag-layout.ts';
import { TRANSFER_TYPES } from '#lib/domain/transfers.ts';
import {
  aggregateIndex,
  attr,
  lazySchema,
  indexFilters,
  lowerCase,
  toOne,
  uuidAttribute,
  uuidFilter,
  type AttributeDef,
  type IndexDef,
  type ResourceDef,
} from '#lib/jsonapi/resource.ts';

/**
 * Reference data: records labs configure rather than create in daily work. They are read-only through
 * the API and loaded by the admin command line (lib/reference/); the attribute schemas below validate
 * those files.
 */
export const text = lazySchema(() => z.string().check(z.minLength(1), z.maxLength(4096)));

/** A unique, case-insensitive name-like index, also used by the filter of the same name. */
export const uniqueIndex = (field: string, scope?: string): IndexDef => ({
  ...(scope ? { scope } : {}),
  values: (r) => [r.attrs[field]],
  normalize: lowerCase,
  unique: { field, pointer: `/data/attributes/${field}` },
});

export function referenceResource(
  type: string,
  attributes: Record<string, AttributeDef>,
  options: { family?: string; indexes: Record<string, IndexDef>; filters?: string[]; relationships?: ResourceDef['relationships'] },
): ResourceDef {
  return {
    type,
    ...(options.family ? { family: options.family } : {}),
    methods: ['list', 'read'],
    referenceData: true,
    attributes: { ...uuidAttribute, ...attributes },
    relationships: options.relationships ?? {},
    indexes: options.indexes,
    filters: { uuid: uuidFilter, ...indexFilters(...(options.filters ?? Object.keys(options.indexes))) },
  };
}

export const users = referenceResource(
  'users',
  {
    login: attr('R', text, { required: true }),
    first_name: attr('R', text),
    last_name: attr('R', text),
    // A swipe-card code: found by filter (limber's login), never rendered.
    user_code: attr('W', text),
  },
  { indexes: { login: uniqueIndex('login'), user_code: uniqueIndex('user_code') } },
);

/** The faculty sponsors of studies (the reference's FacultySponsor): a name. */
export const facultySponsors = referenceResource('faculty_sponsors', { name: attr('R', text, { required: true }) }, { indexes: { name: uniqueIndex('name') } });

/**
 * A study's metadata (the reference's Study::Metadata, whose API v2 resource renders only its faculty
 * sponsor). The loader finds a record by the name of the study it describes (`study`, write-only: the
 * study names its metadata, not the other way round, as in the reference); traction-ui's study report
 * reads studies → study_metadata → faculty_sponsor.
 */
export const studyMetadata = referenceResource(
  'study_metadata',
  {
    study: attr('W', text, { required: true }),
    // The reference's Study::Metadata#study_name_abbreviation: a Heron sample's sanger sample id and name begin with it (lib/domain/heron.ts).
    study_name_abbreviation: attr('W', () => z.string().check(z.regex(/^[A-Za-z0-9_-]+$/, 'can only contain letters, numbers, _ or -'))),
  },
  { indexes: { study: uniqueIndex('study') }, filters: [], relationships: { faculty_sponsor: toOne('faculty_sponsors', 'R') } },
);

export const studies = referenceResource(
  'studies',
  { name: attr('R', text, { required: true }) },
  { indexes: { name: uniqueIndex('name') }, relationships: { study_metadata: toOne('study_metadata', 'R') } },
);

/**
 * Sample manifests (the reference's SampleManifest, rendered with its `supplier_name` only): the
 * spreadsheets samples arrived on. The reference makes them in its web pages; here they are reference data,
 * found by `name` (a manifest's name in the lab's books), and samples link theirs (`sample_manifest`).
 */
export const sampleManifests = referenceResource(
  'sample_manifests',
  { name: attr('W', text, { required: true }), supplier_name: attr('R', text) },
  { indexes: { name: uniqueIndex('name') }, filters: [] },
);

/** Projects (who pays for the work: its cost code), found by name as Limber's `Project.find(name:)` does; states as the reference's. */
export const projects = referenceResource(
  'projects',
  { name: attr('R', text, { required: true }), cost_code: attr('R', text), state: attr('R', () => z.enum(['pending', 'active', 'inactive'])) },
  { indexes: { name: uniqueIndex('name') } },
);

export const requestTypes = referenceResource(
  'request_types',
  {
    name: attr('R', text),
    key: attr('R', () => z.string().check(z.regex(/^[a-z0-9_]+$/, 'must be lower-case letters, digits and _')), { required: true }),
    for_multiplexing: attr('R', () => z.boolean()),
  },
  { indexes: { key: uniqueIndex('key') } },
);

export const barcodePrinters = referenceResource(
  'barcode_printers',
  {
    name: attr('R', text, { required: true }),
    active: attr('R', () => z.boolean()),
    barcode_type: attr('R', () => z.enum(['1D Tube', '96 Well Plate', '384 Well Plate', '384 Well Plate Double'])),
    print_service: attr('R', () => z.enum(['PMB', 'SPrint'])),
  },
  { indexes: { name: uniqueIndex('name') } },
);

/**
 * Submission templates: the request types an order made from one asks for, in their order, and the
 * request options it starts from (the reference's `submission_parameters`; loaded, not rendered: an order
 * renders its own, lib/resources/orders.ts).
 */
export const submissionTemplates = referenceResource(
  'submission_templates',
  {
    name: attr('R', text, { required: true }),
    request_type_keys: attr('R', () => z.array(z.string().check(z.minLength(1))), { names: 'request_types' }),
    request_options: attr('W', () => z.record(z.string(), z.unknown())),
  },
  { indexes: { name: uniqueIndex('name') } },
);

/** A tag of a group: its index (the reference's map_id, 1-based) and its oligo. */
const tagSchema = lazySchema(() =>
  z.object({
    index: z.number().check(z.int(), z.positive()),
    oligo: z.string().check(z.regex(/^[ACGTN]+$/, 'must be a DNA sequence (A, C, G, T, N)')),
  }),
);

/** Tag groups: the tags, rendered as the reference renders them (`[{index, oligo}]`, by index); each index once. */
export const tagGroups = referenceResource(
  'tag_groups',
  {
    name: attr('R', text, { required: true }),
    tags: attr(
      'R',
      () =>
        z.pipe(
          z.array(tagSchema()).check(
            z.minLength(1),
            z.refine((tags) => new Set(tags.map((t) => t.index)).size === tags.length, 'each tag index may appear once'),
          ),
          z.transform((tags) => [...tags].sort((a, b) => a.index - b.index)),
        ),
      { required: true },
    ),
    // Hidden groups are kept for old data and left out of tag sets' `filter[visible]` (the reference's TagGroup#visible; loaded, not rendered).
    visible: attr('W', () => z.boolean()),
  },
  {
    indexes: { name: uniqueIndex('name'), tag_group_adapter_type: aggregateIndex('tag_group_adapter_type') },
    filters: ['name'],
    relationships: { tag_group_adapter_type: toOne('tag_group_adapter_types', 'R') },
  },
);

/** Tag layout templates: a direction, a walker and the groups a tag layout takes from them (lots of tag plates name one). */
export const tagLayoutTemplates = referenceResource(
  'tag_layout_templates',
  {
    name: attr('R', text, { required: true }),
    direction: attr('R', () => z.enum(TAG_DIRECTIONS), { required: true }),
    walking_by: attr('R', () => z.enum(TAG_WALKERS), { required: true }),
  },
  {
    indexes: { name: uniqueIndex('name') },
    relationships: { tag_group: toOne('tag_groups', 'R', { required: true }), tag2_group: toOne('tag_groups', 'R') },
  },
);

/** A template's map: plate to plate (well → well or wells), or the wells a plate gives to a tube. */
const nonEmpty = lazySchema(() => z.string().check(z.minLength(1)));
export const transferMapSchema = lazySchema(() =>
  z.union([z.record(nonEmpty(), z.union([nonEmpty(), z.array(nonEmpty()).check(z.minLength(1))])), z.array(nonEmpty())]),
);

/** Transfer templates: the type of transfer they make and, for most, its map (reference-behaviour.md §4.1). */
export const transferTemplates = referenceResource(
  'transfer_templates',
  {
    name: attr('R', text, { required: true }),
    transfer_type: attr('R', () => z.enum(TRANSFER_TYPES), { required: true }),
    transfers: attr('R', transferMapSchema),
  },
  { indexes: { name: uniqueIndex('name') } },
);

/**
 * Bait libraries (the reference's BaitLibrary): the capture baits a request may ask for by name (its
 * `bait_library_name` option); a bait library layout puts them on a plate's aliquots.
 */
export const baitLibraries = referenceResource(
  'bait_libraries',
  {
    name: attr('R', text, { required: true }),
    target_species: attr('R', text, { required: true }),
    supplier_name: attr('R', text),
    bait_library_type: attr('R', text),
  },
  { indexes: { name: uniqueIndex('name') } },
);
