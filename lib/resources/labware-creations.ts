import { emptyReceptacles } from '#lib/domain/labware.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import { defineResource, timestamps, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { createLabware } from '#lib/resources/labware.ts';
import { parentsOf } from '#lib/resources/lineage.ts';
import { accepted, type Locate } from '#lib/resources/problems.ts';
import { relValue } from '#lib/jsonapi/write.ts';

/**
 * Labware made or remade from other labware without moving material (reference-behaviour.md §2.5, §2.6):
 * records of what was done, immutable once created. Each writes the labware it makes or changes, never
 * the parent, which finds its children through the lineage index (lib/resources/lineage.ts).
 */

/** A plate cannot be its own parent: the problem concerns the `parent` sent. */
const parentAt: Locate = () => ({ pointer: '/data/relationships/parent', field: 'parent' });

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

  create: async (ctx, input) => {
    const { parent, purpose, target, user } = input.relationships;
    const parents = parent ? accepted(linkParents(refOf(target!), parentsOf(target!), [refOf(parent)]), parentAt) : parentsOf(target!);
    ctx.uow.update(target!, { attrs: { owner: user!.id }, rels: { purpose: refOf(purpose!), parents } });
    return ctx.uow.create('plate_conversions', {
      attrs: {},
      rels: { parent: relValue(parent), purpose: refOf(purpose!), target: refOf(target!), user: refOf(user!) },
    });
  },
});

/** Tube from plate creations: one new, empty tube of the child purpose, a child of the plate. */
export const tubeFromPlateCreations = defineResource({
  type: 'tube_from_plate_creations',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    child_purpose_uuid: uuidOfAttribute('child_purpose'),
    parent_uuid: uuidOfAttribute('parent'),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    child: toOne('tubes', 'R'),
    child_purpose: toOne('tube_purposes', 'RW', { required: true }),
    parent: toOne('plates', 'RW', { required: true }),
    user: toOne('users', 'WO', { required: true }),
  },
  filters: { uuid: uuidFilter },

  create: async (ctx, input) => {
    const { child_purpose: purpose, parent, user } = input.relationships;
    const child = await createLabware(ctx, 'tubes', {
      purpose: purpose!,
      parents: [refOf(parent!)],
      state: 'pending',
      receptacles: emptyReceptacles(1),
      rackSlot: null,
      owner: user!.id,
    });
    return ctx.uow.create('tube_from_plate_creations', {
      attrs: {},
      rels: { child: refOf(child), child_purpose: refOf(purpose!), parent: refOf(parent!), user: refOf(user!) },
    });
  },
});
