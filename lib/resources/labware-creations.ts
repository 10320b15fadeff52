import * as z from '#lib/zod.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import {
  attr,
  defineResource,
  lazySchema,
  timestamps,
  toMany,
  toOne,
  uuidAttribute,
  uuidFilter,
  uuidOfAttribute,
  uuidsOfAttribute,
} from '#lib/jsonapi/resource.ts';
import { sentAt } from '#lib/jsonapi/problems.ts';
import { convertPlate, createChild, createSpecificTubes } from '#lib/operations/labware-creation.ts';
import { barcodeInput } from '#lib/resources/labware.ts';

/**
 * Labware made or remade from other labware without moving material (reference-behaviour.md §2.5, §2.6):
 * records of what was done, immutable once created. Each writes the labware it makes or changes, never
 * the parent, which finds its children through the lineage index (lib/resources/lineage.ts). The operations
 * are lib/operations/labware-creation.ts.
 */

/** Plate conversions: the target plate takes the purpose; with a parent, it becomes the parent's child. */
export const plateConversions = defineResource({
  type: 'plate_conversions',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    parent_uuid: uuidOfAttribute('parent'),
    purpose_uuid: uuidOfAttribute('purpose'),
    target_uuid: uuidOfAttribute('target'),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    parent: toOne('plates', 'RW'),
    purpose: toOne('plate_purposes', 'RW', { required: true }),
    target: toOne('plates', 'RW', { required: true }),
    user: toOne('users', 'RW', { required: true }),
  },
  filters: { uuid: uuidFilter },

  create: (ctx, input) => convertPlate(ctx, input),
});

/**
 * A creator's parents: one of a type (`parent`, `parent_uuid`), or any number of labware (`parents`,
 * `parent_uuids`), linked as `labware` (the reference's `class_name: "Labware"`, contract §7.4).
 */
type Parents = { one: string } | { many: 'labware' };

/**
 * A creator of one new, empty labware (`child`) of the child purpose, a child of every parent, owned by the
 * user; it moves no material (the transfer that follows does). Plates take their purpose's size.
 */
function childCreation(type: string, child: 'plates' | 'tubes', parents: Parents) {
  const name = 'one' in parents ? 'parent' : 'parents';
  const attribute = 'one' in parents ? 'parent_uuid' : 'parent_uuids';
  return defineResource({
    type,
    methods: ['list', 'read', 'create'],
    attributes: {
      ...uuidAttribute,
      child_purpose_uuid: uuidOfAttribute('child_purpose'),
      [attribute]: 'one' in parents ? uuidOfAttribute(name) : uuidsOfAttribute(name),
      user_uuid: uuidOfAttribute('user'),
      ...timestamps,
    },
    relationships: {
      child: toOne(child, 'R'),
      child_purpose: toOne(child === 'plates' ? 'plate_purposes' : 'tube_purposes', 'RW', { required: true }),
      [name]: 'one' in parents ? toOne(parents.one, 'RW', { required: true }) : toMany(parents.many, 'RW', { required: true, linkedAs: parents.many }),
      user: toOne('users', 'RW', { required: true }),
    },
    filters: { uuid: uuidFilter },

    create: (ctx, input) => createChild(ctx, { type, child, parents: name, parentsAttribute: attribute }, input),
  });
}

/** Plate creations (Limber's default stamped-plate creator): a plate, a child of the plate. */
export const plateCreations = childCreation('plate_creations', 'plates', { one: 'plates' });
/** Pooled plate creations (Limber's multi-stamp, quadrant, merged and custom tagged plates): a plate, a child of every parent (plates or tubes). */
export const pooledPlateCreations = childCreation('pooled_plate_creations', 'plates', { many: 'labware' });
/** Tube from plate creations: a tube, a child of the plate. */
export const tubeFromPlateCreations = childCreation('tube_from_plate_creations', 'tubes', { one: 'plates' });
/** Tube from tube creations (Limber's default tube creator): a tube, a child of the tube (the reference's resource names a tube). */
export const tubeFromTubeCreations = childCreation('tube_from_tube_creations', 'tubes', { one: 'tubes' });

/**
 * What a specific tube creation may say of each tube it makes (Limber's `tube_attributes`): its name
 * (pooled tubes are named after their pool's wells), and a barcode already on the tube (`foreign_barcode`,
 * Limber's tubes scanned from a rack).
 */
const tubeAttributes = lazySchema(() =>
  z.array(z.nullable(z.strictObject({ name: z.optional(z.nullable(z.string())), foreign_barcode: z.optional(z.nullable(barcodeInput())) }))),
);

/**
 * Specific tube creations (Limber's pooled tubes: every pool and MX tube): one new, empty tube per child
 * purpose, the n-th named by the n-th `tube_attributes` entry, each a child of every parent.
 */
export const specificTubeCreations = defineResource({
  type: 'specific_tube_creations',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    child_purpose_uuids: uuidsOfAttribute('child_purposes'),
    parent_uuids: uuidsOfAttribute('parents'),
    tube_attributes: attr('W', tubeAttributes, { transient: true, acceptOnCreate: true }),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    children: toMany('tubes', 'R'),
    child_purposes: toMany('tube_purposes', 'RW', { required: true }),
    parents: toMany('labware', 'RW', { required: true, linkedAs: 'labware' }),
    user: toOne('users', 'RW', { required: true }),
  },
  filters: { uuid: uuidFilter },

  validate: (_ctx, input) => {
    const named = input.attributes.tube_attributes;
    const count = input.relationships.child_purposes?.length ?? 0;
    if (named === undefined || named === null || named.length === count) return [];
    const at = sentAt(input, 'child_purposes', 'child_purpose_uuids');
    return [
      errors.invalidValue('/data/attributes/tube_attributes', `tube_attributes - ${named.length} entries for ${count} tubes (${at.field}): one entry per tube`),
    ];
  },

  create: (ctx, input) => createSpecificTubes(ctx, input),
});
