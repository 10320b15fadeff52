import * as z from '#lib/zod.ts';
import { RACK_SIZES } from '#lib/domain/budgets.ts';
import { layoutForSize, type Layout } from '#lib/domain/geometry.ts';
import { labwareOfSlot, slotId } from '#lib/domain/labware-ids.ts';
import { labwareState, type RackedTube } from '#lib/domain/labware.ts';
import { placeTubes, planPlacements, rackSlot, rackState, resizeRack } from '#lib/domain/racks.ts';
import { refKey, refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { attr, computed, lazySchema, defineResource, toOne } from '#lib/jsonapi/resource.ts';
import { linkOf, type Ref, type StoredRecord } from '#lib/store/records.ts';
import { labwareAttributes, labwareFilters, labwareIndexes, labwareRelationships } from '#lib/resources/labware.ts';
import { createLabware } from '#lib/operations/labware-factory.ts';
import { viewOf } from '#lib/resources/labware-views.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { accepted, attributeAt, problemErrors } from '#lib/jsonapi/problems.ts';

/**
 * Racks hold tubes at coordinates (lib/domain/racks.ts). The rack records its tubes and each tube records
 * its rack, in one write: a rack of 96 tubes (the rack, 96 tubes, its barcode guard, a count shard and the
 * request item) is exactly the 100 items of one transaction.
 */
const size = lazySchema(() =>
  z
    .union([z.number(), z.pipe(z.string().check(z.regex(/^\s*\d+\s*$/, 'must be a number')), z.transform(Number))])
    .check(z.refine((n) => (RACK_SIZES as readonly number[]).includes(n), 'must be 48 or 96')),
);

const tubeLocations = lazySchema(() => z.record(z.string(), z.strictObject({ uuid: z.string().check(z.minLength(1)) })));

const rackedTubesOf = (rack: StoredRecord) => labwareAttrs(rack).racked ?? [];

/**
 * Racks' states (reference-behaviour.md §7.2): their tubes' common state, read from the tubes (one batched
 * read), so a rack never disagrees with a tube whatever changed it (a state change of the tube alone, a
 * transfer into it).
 */
async function rackStates(ctx: RequestContext, racks: StoredRecord[]): Promise<Map<StoredRecord, string>> {
  const tubes = await ctx.loader.load(racks.flatMap((rack) => rackedTubesOf(rack).map((t): Ref => ({ type: 'tubes', id: t.tube }))));
  return new Map(
    racks.map((rack) => [
      rack,
      rackState(
        rackedTubesOf(rack).flatMap((t) => {
          const tube = tubes.get(refKey({ type: 'tubes', id: t.tube }));
          return tube ? [labwareState(labwareAttrs(tube))] : [];
        }),
      ),
    ]),
  );
}

/** Finds the tubes of `tube_locations` and places them: 422 for bad coordinates, repeats and tubes in another rack, 404 for unknown tubes. */
async function placements(
  ctx: WriteContext,
  layout: Layout,
  locations: Record<string, { uuid: string }>,
): Promise<{ racked: RackedTube[]; tubes: StoredRecord[] }> {
  const planned = accepted(
    planPlacements(
      layout,
      Object.entries(locations).map(([key, { uuid }]) => ({ key, uuid })),
    ),
    attributeAt,
  );
  const tubes = await ctx.loader.byUuids(
    planned.map((p) => p.uuid),
    ['tubes'],
  );
  const missing = planned
    .filter((_, i) => !tubes[i])
    .map(({ key, uuid }) =>
      errors.notFound(`tube_locations - no tube with uuid ${show(uuid)}`, { pointer: pointer('data', 'attributes', 'tube_locations', key, 'uuid') }),
    );
  if (missing.length > 0) throw JsonApiError.all(missing);
  const found = tubes as StoredRecord[];
  const rackOf = (tube: StoredRecord) => linkOf(tube, 'tube_rack')?.id ?? null;
  const placed = placeTubes(
    planned,
    found.map((tube) => ({ id: tube.id, uuid: tube.uuid, rack: rackOf(tube) })),
  );
  return { racked: accepted(placed, attributeAt), tubes: found };
}

export const tubeRacks = defineResource({
  type: 'tube_racks',
  family: 'labware',
  supertypes: ['labware'],
  methods: ['list', 'read', 'create', 'update'],
  attributes: {
    ...labwareAttributes,
    state: attr('R', () => z.string(), { load: rackStates }),
    name: attr('WO', () => z.string().check(z.trim(), z.minLength(1))),
    size: attr('RW', size, { required: true }),
    number_of_rows: attr('R', () => z.number().check(z.int()), { get: (r) => layoutForSize(Number(r.attrs.size))!.rows }),
    number_of_columns: attr('R', () => z.number().check(z.int()), { get: (r) => layoutForSize(Number(r.attrs.size))!.columns }),
    tube_locations: attr('W', tubeLocations, { transient: true, acceptOnCreate: true }),
  },
  relationships: {
    ...labwareRelationships('tube_rack_purposes'),
    purpose: toOne('tube_rack_purposes', 'WO'),
    racked_tubes: computed('many', 'racked_tubes', (r) => rackedTubesOf(r).map((t) => ({ type: 'racked_tubes', id: slotId(r.id, rackSlot(t.coordinate)) }))),
    tube_receptacles: computed('many', 'receptacles', (r) => rackedTubesOf(r).map((t) => ({ type: 'receptacles', id: slotId(t.tube, 1) }))),
  },
  indexes: labwareIndexes,
  filters: labwareFilters,

  validate: (_ctx, input, current) => {
    if (!current || input.attributes.size === undefined) return [];
    if (input.attributes.size === null) return [errors.missingRequired('/data/attributes/size', 'size')];
    const resized = resizeRack(rackedTubesOf(current), layoutForSize(input.attributes.size!)!);
    return resized.ok ? [] : problemErrors(resized.problems, attributeAt);
  },

  create: async (ctx, input) => {
    const layout = layoutForSize(input.attributes.size!)!;
    const { racked, tubes } = await placements(ctx, layout, input.attributes.tube_locations ?? {});
    const purpose = input.relationships.purpose ?? undefined;
    const rack = await createLabware(ctx, 'tube_racks', {
      purpose,
      barcodePrefix: purpose ? String(purpose.attrs.barcode_prefix) : 'TR',
      name: input.attributes.name ?? null,
      size: layout.size,
      state: rackState(tubes.map((tube) => labwareAttrs(tube).state)),
      receptacles: [],
      racked,
    });
    for (const [i, { coordinate }] of racked.entries())
      ctx.uow.update(tubes[i]!, { rels: { tube_rack: refOf(rack) }, attrs: { rackSlot: rackSlot(coordinate) } });
    return rack;
  },

  update: async (ctx, current, input) => (input.attributes.size === undefined ? current : ctx.uow.update(current, { attrs: { size: input.attributes.size } })),
});

/** A tube at a coordinate of a rack, as a view of the rack. */
export const rackedTubes = defineResource({
  type: 'racked_tubes',
  family: 'racked_tubes',
  methods: ['list', 'read'],
  embedded: {
    parentTypes: ['tube_racks'],
    parentId: labwareOfSlot,
    extract: (rack) =>
      rackedTubesOf(rack)
        .map(({ coordinate, tube }) =>
          viewOf(rack, {
            family: 'racked_tubes',
            id: slotId(rack.id, rackSlot(coordinate)),
            type: 'racked_tubes',
            uuid: '',
            attrs: { coordinate },
            rels: { tube: { type: 'tubes', id: tube }, tube_rack: { type: 'tube_racks', id: rack.id } },
          }),
        )
        .sort((a, b) => a.id - b.id),
    count: (rack) => rackedTubesOf(rack).length,
  },
  attributes: { coordinate: attr('R', () => z.string()) },
  relationships: { tube: toOne('tubes', 'R'), tube_rack: toOne('tube_racks', 'R') },
  filters: {},
});
