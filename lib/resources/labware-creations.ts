import * as z from '#lib/zod.ts';
import { labwareCreationItems, maxLabwarePerCreation, TRANSACTION_ITEM_LIMIT } from '#lib/domain/budgets.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
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
import { relValue } from '#lib/jsonapi/write.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { barcodeInput } from '#lib/resources/labware.ts';
import { checkGivenBarcodes, createLabware, emptyPlateOf, emptyTube, reserveLabware } from '#lib/operations/labware-factory.ts';
import { parentsOf } from '#lib/operations/labware-records.ts';
import { accepted, sentAt, type Locate } from '#lib/jsonapi/problems.ts';

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

/**
 * Refuses a creation whose new labware would not fit one transaction (lib/domain/budgets.ts), before
 * anything is written: a 422 at what makes it that large, naming the count and the most that fits.
 */
function withinOneTransaction(labware: number, parents: number, at: { pointer: string; field: string }, what: string): void {
  const items = labwareCreationItems(labware, parents);
  if (items <= TRANSACTION_ITEM_LIMIT) return;
  throw errors.tooLarge(
    at.pointer,
    `${at.field} - ${labware} ${what} from ${parents} parent(s) would write ${items} items; one creation from ${parents} parent(s) makes at most ${maxLabwarePerCreation(parents)} (a DynamoDB transaction holds ${TRANSACTION_ITEM_LIMIT} items)`,
  );
}

/**
 * A creation's own id, reserved beside its labware's ids and barcode numbers rather than after them: one
 * round trip to DynamoDB fewer on the way to the commit (an unused id is simply skipped).
 */
const creationId = async (ctx: WriteContext, type: string): Promise<number> => (await ctx.uow.allocateIds(ctx.registry.familyOf(type), 1))[0]!;

/** A creator's parents: one of a type (`parent`, `parent_uuid`), or any number of labware (`parents`, `parent_uuids`). */
type Parents = { one: string } | { many: string };

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
      [name]: 'one' in parents ? toOne(parents.one, 'RW', { required: true }) : toMany(parents.many, 'RW', { required: true }),
      user: toOne('users', 'RW', { required: true }),
    },
    filters: { uuid: uuidFilter },

    create: async (ctx, input) => {
      const purpose = input.relationships.child_purpose as StoredRecord;
      const user = input.relationships.user as StoredRecord;
      const named = input.relationships[name] as StoredRecord | StoredRecord[];
      const from = ([] as StoredRecord[]).concat(named);
      withinOneTransaction(1, from.length, sentAt(input, name, attribute), child === 'plates' ? 'plate' : 'tube');
      const contents = child === 'plates' ? emptyPlateOf(purpose) : emptyTube();
      const [[reserved], id] = await Promise.all([reserveLabware(ctx, 1), creationId(ctx, type)]);
      const made = await createLabware(ctx, child, { purpose, ...contents, parents: from.map(refOf), owner: user.id }, reserved);
      return ctx.uow.create(type, { id, attrs: {}, rels: { child: refOf(made), child_purpose: refOf(purpose), [name]: relValue(named), user: refOf(user) } });
    },
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
    parents: toMany('labware', 'RW', { required: true }),
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

  create: async (ctx, input) => {
    const { child_purposes: purposes, parents, user } = input.relationships;
    withinOneTransaction(purposes!.length, parents!.length, sentAt(input, 'child_purposes', 'child_purpose_uuids'), 'tubes');
    const named = input.attributes.tube_attributes ?? [];
    await checkGivenBarcodes(
      ctx,
      named.flatMap((tube, i) => (tube?.foreign_barcode ? [{ barcode: tube.foreign_barcode, input: ['tube_attributes', String(i), 'foreign_barcode'] }] : [])),
    );
    const [reserved, id] = await Promise.all([reserveLabware(ctx, purposes!.length), creationId(ctx, 'specific_tube_creations')]);
    const children = await Promise.all(
      purposes!.map((purpose, i) =>
        createLabware(
          ctx,
          'tubes',
          {
            purpose,
            name: named[i]?.name ?? null,
            ...(named[i]?.foreign_barcode ? { barcode: named[i].foreign_barcode } : {}),
            parents: parents!.map(refOf),
            ...emptyTube(),
            owner: user!.id,
          },
          reserved[i],
        ),
      ),
    );
    return ctx.uow.create('specific_tube_creations', {
      id,
      attrs: {},
      rels: { children: children.map(refOf), child_purposes: purposes!.map(refOf), parents: parents!.map(refOf), user: refOf(user!) },
    });
  },
});
