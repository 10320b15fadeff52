import * as z from '#lib/zod.ts';
import { PLATE_SIZES, RACK_SIZES } from '#lib/domain/budgets.ts';
import {
  PLATE_SHAPE_NAMES,
  PURPOSE_DEFAULTS,
  RACK_PURPOSE_CLASSES,
  RACK_TARGET_TYPES,
  shapeOfSize,
  shapeSizeProblem,
  TUBE_TARGET_TYPES,
  type PlateShape,
} from '#lib/domain/purposes.ts';
import { TUBE_PURPOSE_TYPES } from '#lib/domain/state-changers.ts';
import { errors, type JsonApiError } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, uuidAttribute, uuidFilter, type AttributeDef, type ResourceDef, type WriteInput } from '#lib/jsonapi/resource.ts';
import { defaultCreate } from '#lib/jsonapi/write.ts';
import { referenceResource, uniqueIndex } from '#lib/resources/reference.ts';

/**
 * Purposes: what kind of labware a plate, tube or rack is. Reference data (loaded by the admin command
 * line), and also registered through the API as the lab's pipeline application registers its own at start-up
 * (sanger/limber's `rake config:generate`, contract §6): POST with an `admin` key (lib/jsonapi/request-checks.ts).
 * They are created, never changed or deleted, so writes may still take them from the reference cache. The
 * three kinds share one id sequence and one case-insensitive name space; `purposes` reads them all.
 */
export const PURPOSE_TYPES = ['plate_purposes', 'tube_purposes', 'tube_rack_purposes'] as const;
type PurposeType = (typeof PURPOSE_TYPES)[number];

/** The reference's name rule (its Purpose model): a word character at each end, between them words, spaces, `.`, `-`, `/`. */
const NAME = /^\w[\s\w./-]+\w$/;
const name = attr(
  'WO',
  () => z.string().check(z.maxLength(4096), z.regex(NAME, 'must start and end with a letter or digit, with letters, digits, spaces, ".", "-" and "/" between')),
  {
    required: true,
  },
);
const flag = attr('WO', () => z.boolean());
const oneOf = (values: readonly string[]) => attr('WO', () => z.enum(values as [string, ...string[]]));
const sizeOf = (sizes: readonly number[]) => attr('WO', () => z.number().check(z.refine((n) => sizes.includes(n), `must be one of ${sizes.join(', ')}`)));

/** Registered purposes get the defaults of their kind for what the registration leaves out (or sends as null). */
function createPurpose(type: PurposeType, extra: (attributes: Record<string, unknown>) => Record<string, unknown> = () => ({})) {
  return (ctx: Parameters<NonNullable<ResourceDef['create']>>[0], input: WriteInput) => {
    const given = Object.fromEntries(Object.entries(input.attributes).filter(([, value]) => value !== null && value !== undefined));
    const attributes = { ...PURPOSE_DEFAULTS[type], ...given };
    return defaultCreate(ctx, ctx.registry.require(type), { ...input, attributes: { ...attributes, ...extra(attributes) } });
  };
}

function purpose(type: PurposeType, attributes: Record<string, AttributeDef>, hooks: Pick<ResourceDef, 'validate' | 'create'>): ResourceDef {
  const def = referenceResource(
    type,
    {
      name,
      // Registration takes the kind's prefix (lib/domain/purposes.ts); reference data may name another.
      barcode_prefix: attr('R', () => z.string().check(z.regex(/^[A-Z]{2}$/, 'must be two capital letters'))),
      ...attributes,
    },
    { family: 'purposes', indexes: { name: uniqueIndex('name', 'purposes.name') } },
  );
  return { ...def, methods: ['list', 'read', 'create'], ...hooks };
}

/** A plate purpose's size must fit its shape; a shape left out is the one of its size (Standard for 96 and 384). */
function plateShapeProblems(input: WriteInput): JsonApiError[] {
  const size = Number(input.attributes.size ?? PURPOSE_DEFAULTS.plate_purposes.size);
  const shape = (input.attributes.asset_shape as PlateShape | null | undefined) ?? shapeOfSize(size);
  const problem = shape && shapeSizeProblem(shape, size);
  return problem ? [errors.invalidValue('/data/attributes/size', problem)] : [];
}

// `input_plate`: the plate a pipeline starts from (its state changes fail the requests out of it, lib/domain/state-changers.ts).
export const platePurposes = purpose(
  'plate_purposes',
  {
    stock_plate: flag,
    cherrypickable_target: flag,
    input_plate: flag,
    size: sizeOf(PLATE_SIZES),
    asset_shape: oneOf(PLATE_SHAPE_NAMES),
  },
  {
    validate: (_ctx, input) => plateShapeProblems(input),
    create: createPurpose('plate_purposes', (attributes) => ({ asset_shape: attributes.asset_shape ?? shapeOfSize(Number(attributes.size)) })),
  },
);

// `purpose_type`: the reference's purpose class, which names the tubes' state changer (contract §6); none is a plain `Tube::Purpose`.
export const tubePurposes = purpose(
  'tube_purposes',
  { target_type: oneOf(TUBE_TARGET_TYPES), purpose_type: oneOf(TUBE_PURPOSE_TYPES) },
  {
    // The reference requires what kind of tube the purpose makes; reference data loaded before this may lack it.
    validate: (_ctx, input) =>
      input.attributes.target_type === undefined || input.attributes.target_type === null
        ? [errors.missingRequired('/data/attributes/target_type', 'target_type')]
        : [],
    create: createPurpose('tube_purposes'),
  },
);

export const tubeRackPurposes = purpose(
  'tube_rack_purposes',
  { size: sizeOf(RACK_SIZES), target_type: oneOf(RACK_TARGET_TYPES), purpose_type: oneOf(RACK_PURPOSE_CLASSES) },
  { create: createPurpose('tube_rack_purposes') },
);

/**
 * Purposes of every kind (the reference's generic `purposes`, which Limber pages through by name): items
 * render as their own kind. A labware's `purpose` links as `purposes` (the reference's `class_name:
 * 'Purpose'`, contract §7.4) and renders with the reference's PurposeResource attributes.
 */
export const purposes = defineResource({
  type: 'purposes',
  family: 'purposes',
  members: PURPOSE_TYPES,
  methods: ['list', 'read'],
  referenceData: true,
  attributes: {
    ...uuidAttribute,
    name: attr('R', () => z.string()),
    // Tube purposes have no size.
    size: attr('R', () => z.number()),
    // Days a labware of the purpose is kept: not recorded here, so always null.
    lifespan: attr('R', () => z.null(), { get: () => null }),
  },
  relationships: {},
  filters: { uuid: uuidFilter, name: { index: 'name' } },
});
