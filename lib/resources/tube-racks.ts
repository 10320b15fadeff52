import { z } from 'zod';
import { columnOrder, layoutForSize, positionIndex, type Layout } from '#lib/domain/geometry.ts';
import { labwareOfSlot, slotId } from '#lib/domain/labware-ids.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { attr, toOne, type ResourceDef } from '#lib/jsonapi/resource.ts';
import type { Ref, StoredRecord } from '#lib/store/records.ts';
import { computed, createLabware, labwareAttributes, labwareFilters, labwareIndexes, labwareRelationships } from '#lib/resources/labware.ts';
import { labwareAttrs } from '#lib/resources/labware-model.ts';

/**
 * Racks hold tubes at coordinates. The rack records its tubes and each tube records its rack, in one
 * transaction: a rack of 96 tubes is the rack, 96 conditional tube updates, the barcode guard, one count
 * shard and the request record — exactly the 100 items a transaction allows (see docs/decisions.md).
 */
const RACK_SIZES = [48, 96] as const;
/**
 * A racked tube's slot (and so its id) is its coordinate's place on the 96-position grid, whatever the
 * rack's size, so ids stay the same when a rack's size changes.
 */
const CANONICAL = layoutForSize(96)!;
const slotOfCoordinate = (coordinate: string) => positionIndex(CANONICAL, coordinate)! + 1;

const size = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\s*\d+\s*$/, 'must be a number')
      .transform(Number),
  ])
  .refine((n): n is 48 | 96 => (RACK_SIZES as readonly number[]).includes(n), 'must be 48 or 96');

const tubeLocations = z.record(z.string(), z.object({ uuid: z.string().min(1) }).strict());

interface Racked {
  coordinate: string;
  tube: number;
}

const racked = (rack: StoredRecord): Racked[] => labwareAttrs(rack).racked ?? [];

/** A rack's state: empty without tubes, else its tubes' common state, or mixed. */
function rackState(tubes: StoredRecord[]): string {
  const states = new Set(tubes.map((t) => String(t.attrs.state)));
  return states.size === 0 ? 'empty' : states.size === 1 ? [...states][0]! : 'mixed';
}

/** Validates `tube_locations` and finds its tubes: 422 for bad coordinates and repeats, 404 for unknown tubes. */
async function placements(
  ctx: WriteContext,
  layout: Layout,
  locations: Record<string, { uuid: string }>,
  rackId?: number,
): Promise<{ coordinate: string; tube: StoredRecord }[]> {
  const at = (key: string, ...rest: string[]) => pointer('data', 'attributes', 'tube_locations', key, ...rest);
  const problems: JsonApiError[] = [];
  const seen = new Map<string, string>();
  const entries = Object.entries(locations).map(([key, { uuid }]) => ({
    key,
    uuid: uuid.toLowerCase(),
    coordinate: columnOrder(layout).find((c) => c === key.toUpperCase()),
  }));
  for (const { key, uuid, coordinate } of entries) {
    if (!coordinate)
      problems.push(
        errors.invalidValue(at(key), `tube_locations - ${show(key)} is not a coordinate of a ${layout.size}-tube rack (A1 to ${columnOrder(layout).at(-1)})`),
      );
    if (seen.has(uuid)) problems.push(errors.invalidValue(at(key, 'uuid'), `tube_locations - tube ${uuid} is placed twice (${seen.get(uuid)} and ${key})`));
    seen.set(uuid, key);
  }
  const byCoordinate = new Map<string, string>();
  for (const { key, coordinate } of entries) {
    if (coordinate && byCoordinate.has(coordinate)) problems.push(errors.invalidValue(at(key), `tube_locations - ${coordinate} is given twice`));
    if (coordinate) byCoordinate.set(coordinate, key);
  }
  if (problems.length > 0) throw JsonApiError.all(problems);

  const tubes = await ctx.loader.byUuids(
    entries.map((e) => e.uuid),
    ['tubes'],
  );
  const missing = entries
    .filter((_, i) => !tubes[i])
    .map(({ key, uuid }) => errors.notFound(`tube_locations - no tube with uuid ${show(uuid)}`, { pointer: at(key, 'uuid') }));
  if (missing.length > 0) throw JsonApiError.all(missing);
  entries.forEach(({ key }, i) => {
    const rack = tubes[i]!.rels.tube_rack as Ref | null | undefined;
    if (rack && rack.id !== rackId)
      problems.push(errors.invalidValue(at(key, 'uuid'), `tube_locations - tube ${tubes[i]!.uuid} is already in tube rack ${rack.id}`));
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  return entries.map(({ coordinate }, i) => ({ coordinate: coordinate!, tube: tubes[i]! }));
}

export const tubeRacks: ResourceDef = {
  type: 'tube_racks',
  family: 'labware',
  supertypes: ['labware'],
  methods: ['list', 'read', 'create', 'update'],
  attributes: {
    ...labwareAttributes,
    name: attr('WO', z.string().trim().min(1)),
    size: attr('RW', size, { required: true }),
    number_of_rows: attr('R', undefined, { get: (r) => layoutForSize(Number(r.attrs.size))!.rows }),
    number_of_columns: attr('R', undefined, { get: (r) => layoutForSize(Number(r.attrs.size))!.columns }),
    tube_locations: attr('W', tubeLocations, { transient: true, acceptOnCreate: true }),
  },
  relationships: {
    ...labwareRelationships('tube_rack_purposes'),
    purpose: toOne('tube_rack_purposes', 'WO'),
    racked_tubes: computed('many', 'racked_tubes', (r) => racked(r).map((t) => ({ type: 'racked_tubes', id: slotId(r.id, slotOfCoordinate(t.coordinate)) }))),
    tube_receptacles: computed('many', 'receptacles', (r) => racked(r).map((t) => ({ type: 'receptacles', id: slotId(t.tube, 1) }))),
    comments: computed('many', 'comments', () => []),
  },
  indexes: labwareIndexes,
  filters: labwareFilters,

  validate: (_ctx, input, current) => {
    if (!current || input.attributes.size === undefined) return [];
    if (input.attributes.size === null) return [errors.missingRequired('/data/attributes/size', 'size')];
    const layout = layoutForSize(input.attributes.size as number)!;
    const outside = racked(current).filter((t) => positionIndex(layout, t.coordinate) === undefined);
    return outside.length === 0
      ? []
      : [
          errors.invalidValue(
            '/data/attributes/size',
            `size - ${input.attributes.size} does not fit the rack's tubes at ${outside.map((t) => t.coordinate).join(', ')}`,
          ),
        ];
  },

  create: async (ctx, input) => {
    const layout = layoutForSize(input.attributes.size as number)!;
    const placed = await placements(ctx, layout, (input.attributes.tube_locations as Record<string, { uuid: string }> | undefined) ?? {});
    const purpose = input.relationships.purpose as StoredRecord | undefined;
    const rack = await createLabware(ctx, 'tube_racks', input, {
      barcodePrefix: purpose ? String(purpose.attrs.barcode_prefix) : 'TR',
      name: (input.attributes.name as string | undefined) ?? null,
      size: layout.size,
      state: rackState(placed.map((p) => p.tube)),
      receptacles: [],
      racked: placed.map(({ coordinate, tube }) => ({ coordinate, tube: tube.id })),
    });
    for (const { coordinate, tube } of placed) ctx.uow.update(tube, { rels: { tube_rack: refOf(rack) }, attrs: { rackSlot: slotOfCoordinate(coordinate) } });
    return rack;
  },

  update: async (ctx, current, input) => (input.attributes.size === undefined ? current : ctx.uow.update(current, { attrs: { size: input.attributes.size } })),
};

/** A tube at a coordinate of a rack, as a view of the rack. */
export const rackedTubes: ResourceDef = {
  type: 'racked_tubes',
  family: 'racked_tubes',
  methods: ['list', 'read'],
  embedded: {
    parentTypes: ['tube_racks'],
    parentId: labwareOfSlot,
    extract: (rack) =>
      racked(rack)
        .map(({ coordinate, tube }) => ({
          family: 'racked_tubes',
          id: slotId(rack.id, slotOfCoordinate(coordinate)),
          type: 'racked_tubes',
          uuid: '',
          createdAt: rack.createdAt,
          updatedAt: rack.updatedAt,
          version: rack.version,
          attrs: { coordinate },
          rels: { tube: { type: 'tubes', id: tube }, tube_rack: { type: 'tube_racks', id: rack.id } },
        }))
        .sort((a, b) => a.id - b.id),
  },
  attributes: { coordinate: attr('R') },
  relationships: { tube: toOne('tubes', 'R'), tube_rack: toOne('tube_racks', 'R') },
  filters: {},
};
