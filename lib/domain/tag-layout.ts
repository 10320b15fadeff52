import { MAX_ALIQUOTS_PER_RECEPTACLE } from '#lib/domain/budgets.ts';
import { layoutForSize, type Layout } from '#lib/domain/geometry.ts';
import type { Aliquot, Contents, Tag } from '#lib/domain/labware.ts';
import { outcome, quoted, refuse, type Outcome, type Problem } from '#lib/domain/problems.ts';
import { tagPair } from '#lib/domain/receptacles.ts';

/**
 * Tag layouts (reference-behaviour.md §4.3): which tags of a tag group each well of a plate gets. A
 * direction orders the wells (and gives the dual-index formulas); a walker turns that order into tag
 * positions; laying the tags then picks the tags at those positions, shifted by the initial tag.
 */

export const TAG_DIRECTIONS = ['column', 'row', 'inverse column', 'inverse row', 'column then row', 'column then column', 'combinatorial by row'] as const;
export type TagDirection = (typeof TAG_DIRECTIONS)[number];

export const TAG_WALKERS = [
  'wells of plate',
  'manual by plate',
  'wells in pools',
  'manual by pool',
  'as group by plate',
  'as fixed group by plate',
  'quadrants',
  'combinatorial sequential',
] as const;
export type TagWalker = (typeof TAG_WALKERS)[number];

/** The name the reference reports for a walker: `manual by plate` → `wells of plate`, `manual by pool` → `wells in pools`, others themselves. */
export function walkerName(walker: TagWalker): TagWalker {
  return walker === 'manual by plate' ? 'wells of plate' : walker === 'manual by pool' ? 'wells in pools' : walker;
}

/** The group walkers (`as group by plate`, `as fixed group by plate`) use tags_per_well. */
export function usesTagsPerWell(walker: TagWalker): boolean {
  return walker === 'as group by plate' || walker === 'as fixed group by plate';
}

export const DEFAULT_TAGS_PER_WELL = 4;

/** One well of the plate as the walker sees it, in column order (index 0 = slot 1 = A1). */
export interface LayoutWell {
  occupied: boolean;
  /** the well's pool (a submission id), or null */
  pool: number | null;
}

/** A position in the tag list (before the initial_tag offset) for tag and tag2. For single-index walkers index2 === index. */
export interface TagSlot {
  index: number;
  index2: number;
}

function plateLayout(size: number): Layout {
  const layout = layoutForSize(size);
  if (!layout) throw new RangeError(`${size} is not the size of a plate`);
  return layout;
}

const columnMajor = (layout: Layout): number[] => Array.from({ length: layout.size }, (_, i) => i + 1);

function rowMajor(layout: Layout): number[] {
  const slots: number[] = [];
  for (let row = 0; row < layout.rows; row++) {
    for (let column = 0; column < layout.columns; column++) slots.push(column * layout.rows + row + 1);
  }
  return slots;
}

/**
 * The "storage order" of `column then row` and `column then column`: the reference reads their wells
 * without ordering them, so they come in the order they were created, and it creates a plate's wells row
 * by row. Those two directions are meant for the dual-index walkers, where the order does not matter.
 */
const WELL_ORDERS: Record<TagDirection, (layout: Layout) => number[]> = {
  column: columnMajor,
  row: rowMajor,
  'inverse column': (layout) => columnMajor(layout).reverse(),
  'inverse row': (layout) => rowMajor(layout).reverse(),
  'column then row': rowMajor,
  'column then column': rowMajor,
  'combinatorial by row': rowMajor,
};

/** The slots of a plate of this size in the order a direction walks them. */
export const wellOrder = (size: number, direction: TagDirection): number[] => WELL_ORDERS[direction](plateLayout(size));

/**
 * The dual-index walkers tag blocks of 2×2 wells alike, so that a 96-tag set stamped four times covers a
 * 384-well plate (reference-behaviour.md §4.3).
 */
const SCALE = 2;

type DualIndex = (row: number, column: number, layout: Layout) => [number, number];

const inColumns = (row: number, column: number, { rows }: Layout) => Math.floor(row / SCALE) + (rows / SCALE) * Math.floor(column / SCALE);
const inRows = (row: number, column: number, { columns }: Layout) => Math.floor(column / SCALE) + (columns / SCALE) * Math.floor(row / SCALE);
const blocks = ({ rows, columns }: Layout) => (rows / SCALE) * (columns / SCALE);
const both = (index: number): [number, number] => [index, index];

const DUAL_INDEXES: Record<TagDirection, DualIndex> = {
  column: (row, column, layout) => both(inColumns(row, column, layout)),
  row: (row, column, layout) => both(inRows(row, column, layout)),
  'inverse column': (row, column, layout) => both(blocks(layout) - inColumns(row, column, layout) - 1),
  'inverse row': (row, column, layout) => both(blocks(layout) - inRows(row, column, layout) - 1),
  'column then row': (row, column, layout) => [inColumns(row, column, layout), (column % SCALE) + SCALE * (row % SCALE)],
  'column then column': (row, column, layout) => [inColumns(row, column, layout), SCALE * (column % SCALE) + (row % SCALE)],
  'combinatorial by row': (row, column) => [row, column],
};

/** What a walker works from; `tag` gives an occupied well a tag position (an empty one uses it up untagged). */
interface Walk {
  layout: Layout;
  direction: TagDirection;
  order: number[];
  wells: LayoutWell[];
  tagsPerWell: number;
  tag: (slot: number, index: number, index2?: number) => void;
}

const occupiedIn = (walk: Walk): number[] => walk.order.filter((slot) => walk.wells[slot - 1]!.occupied);

/** Tags wells by their place in a list; a gap (null) takes up its place. */
function tagInOrder(walk: Walk, slots: readonly (number | null)[]): void {
  slots.forEach((slot, index) => {
    if (slot !== null) walk.tag(slot, index);
  });
}

function inGroups<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, g) => items.slice(g * size, (g + 1) * size));
}

/** A place in a group of `wells in pools`: a well, or the gap a moved well left (which keeps its pool). */
interface Place {
  slot: number | null;
  pool: number | null;
}

/**
 * Cuts the wells into groups (a column's worth for `column`, else a row's worth), each group using tag
 * positions from 0, so neighbouring groups would give the same tag to the wells at the same place. A well
 * of the same pool as the well at its place in the group before is moved to the end of its group, and
 * checked again there; a well without a pool counts as the pool of the well before it. This follows the
 * reference step by step, so the same plates get the same tags.
 */
function wellsInPools(walk: Walk): void {
  const { layout, direction, order, wells } = walk;
  const groups = inGroups<Place>(
    order.map((slot) => ({ slot, pool: wells[slot - 1]!.pool })),
    direction === 'column' ? layout.rows : layout.columns,
  );
  for (let g = 1; g < groups.length; g++) {
    const prior = groups[g - 1]!;
    const current = groups[g]!;
    // `current` grows while it is walked: a moved well is checked again at its new place.
    for (let i = 0; i < current.length && i < prior.length; i++) {
      const place = current[i]!;
      place.pool ??= (i === 0 ? prior.at(-1) : current[i - 1])!.pool;
      if (prior[i]!.pool !== place.pool) continue;
      current.push(place);
      current[i] = { slot: null, pool: place.pool };
    }
  }
  const placed = groups.map((group) => group.map((place) => place.slot));
  for (const slots of placed) tagInOrder(walk, slots);
}

/** Each pool (wells without one make a pool of their own) uses tag positions from 0, in the order the pools are met. */
function manualByPool(walk: Walk): void {
  const pools = new Map<number | null, number[]>();
  for (const slot of walk.order) {
    const pool = walk.wells[slot - 1]!.pool;
    if (!pools.has(pool)) pools.set(pool, []);
    pools.get(pool)!.push(slot);
  }
  for (const slots of pools.values()) tagInOrder(walk, slots);
}

/** Gives each well `tagsPerWell` consecutive tag positions. */
function asGroups(walk: Walk, slots: number[]): void {
  slots.forEach((slot, ordinal) => {
    for (let k = 0; k < walk.tagsPerWell; k++) walk.tag(slot, ordinal * walk.tagsPerWell + k);
  });
}

/** Tag positions from where a well is on the plate, whatever the order. */
function dualIndex(walk: Walk): void {
  for (const slot of walk.order) {
    const [index, index2] = DUAL_INDEXES[walk.direction]((slot - 1) % walk.layout.rows, Math.floor((slot - 1) / walk.layout.rows), walk.layout);
    walk.tag(slot, index, index2);
  }
}

const WALKERS: Record<TagWalker, (walk: Walk) => void> = {
  // Empty wells use up a position.
  'wells of plate': (walk) => tagInOrder(walk, walk.order),
  'manual by plate': (walk) => tagInOrder(walk, occupiedIn(walk)),
  'wells in pools': wellsInPools,
  'manual by pool': manualByPool,
  'as group by plate': (walk) => asGroups(walk, occupiedIn(walk)),
  // Fixed: a well's tags depend on its place only, not on which wells before it are empty.
  'as fixed group by plate': (walk) => asGroups(walk, walk.order),
  quadrants: dualIndex,
  'combinatorial sequential': dualIndex,
};

/** Group walkers lay several tags in a well; the reference has no way to pair them with tag2s. */
function walkProblems(walkingBy: TagWalker, tagsPerWell: number, dual: boolean): Problem[] {
  if (!usesTagsPerWell(walkingBy)) return [];
  const problems: Problem[] = [];
  if (dual) {
    problems.push({
      code: 'dual_not_supported',
      input: ['tag2_group'],
      detail: `dual indexing is not supported by this template (walking_by ${quoted(walkingBy)} lays several tags of one group in each well)`,
    });
  }
  if (!Number.isInteger(tagsPerWell) || tagsPerWell < 1) {
    problems.push({ code: 'not_a_count', input: ['tags_per_well'], detail: `${tagsPerWell} is not a number of tags (a whole number, at least 1)` });
  } else if (tagsPerWell > MAX_ALIQUOTS_PER_RECEPTACLE) {
    // Checked before walking so that a huge value never builds a huge plan.
    problems.push({
      code: 'over_budget',
      input: ['tags_per_well'],
      detail: `${tagsPerWell} tags in a well would pass the ${MAX_ALIQUOTS_PER_RECEPTACLE} aliquots a receptacle holds`,
    });
  }
  return problems;
}

/**
 * Which tag positions each well gets: result[slot - 1] is the list for that well (empty for a well not tagged).
 * Normal walkers give one TagSlot per tagged well; group walkers give tagsPerWell of them.
 * Problems: a group walker with dual indexing (`dual: true`), input ['tag2_group']; for a group walker,
 * tagsPerWell not a whole number from 1 to MAX_ALIQUOTS_PER_RECEPTACLE, input ['tags_per_well'].
 * `wells` must hold one entry per well of a plate of `size` (96 or 384).
 */
export function walkPlate(params: {
  size: number;
  direction: TagDirection;
  walkingBy: TagWalker;
  wells: LayoutWell[];
  tagsPerWell?: number;
  dual: boolean;
}): Outcome<TagSlot[][]> {
  const { size, direction, walkingBy, wells, tagsPerWell = DEFAULT_TAGS_PER_WELL, dual } = params;
  const layout = plateLayout(size);
  if (wells.length !== size) throw new RangeError(`a ${size}-well plate walked with ${wells.length} wells`);
  return outcome(walkProblems(walkingBy, tagsPerWell, dual), () => {
    const plan: TagSlot[][] = wells.map(() => []);
    const tag = (slot: number, index: number, index2 = index) => {
      if (wells[slot - 1]!.occupied) plan[slot - 1]!.push({ index, index2 });
    };
    WALKERS[walkingBy]({ layout, direction, order: WELL_ORDERS[direction](layout), wells, tagsPerWell, tag });
    return plan;
  });
}

/**
 * The tag list a group gives: its tags sorted by index (map_id), each tag whose index is a key of
 * `substitutions` replaced by the tag whose index is the value (keys/values are index strings, e.g.
 * {"1":"2"}). A key or value that is not an index of the group → problem (input ['substitutions', key]).
 */
export function tagList(tags: readonly Tag[], substitutions: Readonly<Record<string, string>>): Outcome<Tag[]> {
  const sorted = [...tags].sort((a, b) => a.index - b.index);
  const byIndex = new Map(sorted.map((tag) => [String(tag.index), tag]));
  const problems = Object.entries(substitutions).flatMap(([key, value]): Problem[] => {
    const missing = [key, value].find((index) => !byIndex.has(index));
    if (missing === undefined) return [];
    return [{ code: 'unknown_tag', input: ['substitutions', key], detail: `${quoted(missing)} is not the map_id of a tag in the tag group` }];
  });
  return outcome(problems, () =>
    sorted.map((tag) => (Object.hasOwn(substitutions, String(tag.index)) ? byIndex.get(substitutions[String(tag.index)]!)! : tag)),
  );
}

/** The tags one TagSlot gives; tag2 null when there is no tag2 group. */
interface Tagging {
  tag: Tag;
  tag2: Tag | null;
}

/** An aliquot with a tagging: with no tag2 group, its tag2 stays unless tags are replaced. */
const tagged = (aliquot: Aliquot, { tag, tag2 }: Tagging, replaceTags: boolean): Aliquot => ({
  ...aliquot,
  tag,
  tag2: tag2 ?? (replaceTags ? null : aliquot.tag2),
});

/** Normal walkers: every aliquot of the well gets the tags, except, unless replacing, one already tagged. */
const retag = (aliquots: Aliquot[], tagging: Tagging, replaceTags: boolean): Aliquot[] =>
  aliquots.map((aliquot) => (!replaceTags && aliquot.tag !== null ? aliquot : tagged(aliquot, tagging, replaceTags)));

/**
 * Group walkers: per sample, its first aliquot takes the first tagging when untagged (or when replacing);
 * every other tagging is a new aliquot copied from it, numbered by `next`. New aliquots come tagging by
 * tagging, sample by sample, as the reference adds them.
 */
function multitag(aliquots: Aliquot[], taggings: Tagging[], replaceTags: boolean, next: () => number): Aliquot[] {
  const result = [...aliquots];
  const firsts = new Map<number, number>();
  aliquots.forEach((aliquot, i) => {
    if (!firsts.has(aliquot.sample)) firsts.set(aliquot.sample, i);
  });
  taggings.forEach((tagging, k) => {
    for (const at of firsts.values()) {
      const first = result[at]!;
      if (k === 0 && (replaceTags || first.tag === null)) result[at] = tagged(first, tagging, replaceTags);
      else result.push({ ...tagged(first, tagging, replaceTags), n: next() });
    }
  });
  return result;
}

/** A well's aliquots that cannot be told apart (contract §2 "Tag clash"), and a well past the pool budget. */
function wellProblems(name: string, aliquots: Aliquot[]): Problem[] {
  const problems: Problem[] = [];
  if (aliquots.length > MAX_ALIQUOTS_PER_RECEPTACLE) {
    problems.push({
      code: 'over_budget',
      input: ['tags_per_well'],
      detail: `${name} would hold ${aliquots.length} aliquots; a receptacle holds at most ${MAX_ALIQUOTS_PER_RECEPTACLE} (the largest pool)`,
    });
  }
  const sampleByTags = new Map<string, number>();
  for (const { sample, tag, tag2 } of aliquots) {
    const pair = tagPair({ tag, tag2 });
    const held = sampleByTags.get(pair);
    if (held === undefined) sampleByTags.set(pair, sample);
    else {
      problems.push({
        code: 'tag_clash',
        input: ['tag_group'],
        detail: `tag clash: ${name} would hold sample ${held} and sample ${sample} with the same tags (${quoted(pair)})`,
      });
    }
  }
  return problems;
}

const modulo = (n: number, m: number) => ((n % m) + m) % m;

/**
 * Applies the walk to the plate's aliquots: for each tagged well and TagSlot, tag = tags[(index + initialTag) mod tags.length],
 * tag2 = tags2[(index2 + initialTag) mod tags2.length] when tags2 is given.
 * Normal walkers (one TagSlot per well): every aliquot of the well gets the tag (and tag2 only when tags2 given). replaceTags
 * (contract §2): when false, an aliquot that already carries a tag is left entirely as it is; when true every aliquot is
 * retagged and, with no tags2, its existing tag2 is removed (set null). Without replaceTags, an untagged aliquot's tag2 is
 * kept when no tags2 group is given.
 * Group walkers (several TagSlots per well; a group of one behaves as a normal walker): per sample in the well, its first
 * aliquot gets the first tag when untagged (or when replaceTags); further tags are added as new aliquots copied from it
 * (same sample, study, library_type), numbered from aliquotCount.
 * Wells without aliquots are skipped. Problems (all of them, never partial results): a tag group without tags (input
 * ['tag_group'] or ['tag2_group']); in any well, two aliquots with the same (tag, tag2) pair, of different samples or the
 * same sample twice → 'tag_clash' (input ['tag_group']) naming the well (wellName(slot)) and both samples; a well past
 * MAX_ALIQUOTS_PER_RECEPTACLE → 'over_budget' (input ['tags_per_well']).
 */
export function layTags<L extends Contents>(
  labware: L,
  plan: TagSlot[][],
  params: { tags: Tag[]; tags2: Tag[] | null; initialTag: number; replaceTags: boolean; wellName: (slot: number) => string },
): Outcome<L> {
  const { tags, tags2, initialTag, replaceTags, wellName } = params;
  const empty = (
    [
      ['tag_group', tags],
      ['tag2_group', tags2],
    ] as const
  ).flatMap(([input, list]): Problem[] =>
    list?.length === 0 ? [{ code: 'empty_tag_group', input: [input], detail: 'the tag group has no tags to lay out' }] : [],
  );
  if (empty.length > 0) return refuse(empty);
  const pick = (list: Tag[], index: number) => list[modulo(index + initialTag, list.length)]!;
  let aliquotCount = labware.aliquotCount;
  const next = () => ++aliquotCount;
  const problems: Problem[] = [];
  const receptacles = labware.receptacles.map((receptacle, i) => {
    const slots = plan[i] ?? [];
    if (slots.length === 0 || receptacle.aliquots.length === 0) return receptacle;
    const taggings = slots.map(({ index, index2 }) => ({ tag: pick(tags, index), tag2: tags2 && pick(tags2, index2) }));
    const aliquots = taggings.length === 1 ? retag(receptacle.aliquots, taggings[0]!, replaceTags) : multitag(receptacle.aliquots, taggings, replaceTags, next);
    problems.push(...wellProblems(wellName(i + 1), aliquots));
    return { ...receptacle, aliquots };
  });
  return outcome(problems, () => ({ ...labware, receptacles, aliquotCount }));
}
