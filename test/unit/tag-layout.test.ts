import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ALIQUOTS_PER_RECEPTACLE } from '#lib/domain/budgets.ts';
import { columnOrder, layoutForSize, positionAt, positionIndex, rowOrder } from '#lib/domain/geometry.ts';
import { emptyReceptacles, type Aliquot, type AliquotContent, type Labware, type Tag } from '#lib/domain/labware.ts';
import type { Outcome } from '#lib/domain/problems.ts';
import {
  DEFAULT_TAGS_PER_WELL,
  layTags,
  TAG_DIRECTIONS,
  TAG_WALKERS,
  tagList,
  usesTagsPerWell,
  walkerName,
  walkPlate,
  wellOrder,
  type LayoutWell,
  type TagDirection,
  type TagSlot,
  type TagWalker,
} from '#lib/domain/tag-layout.ts';
import { problems, value } from '../support/outcomes.ts';

/** The tag layout algorithms (reference-behaviour.md §4.3) as pure functions, without any store or HTTP. */

type Size = 96 | 384;
const SIZES: Size[] = [96, 384];
const layout = (size: Size) => layoutForSize(size)!;
const slotOf = (size: Size, name: string) => positionIndex(layout(size), name)! + 1;
const nameOf = (size: Size, slot: number) => positionAt(layout(size), slot - 1)!;

const full = (size: Size, pool: (slot: number) => number | null = () => null): LayoutWell[] =>
  Array.from({ length: size }, (_, i) => ({ occupied: true, pool: pool(i + 1) }));

/** Wells given by name; every other well empty and without a pool. */
function wellsAt(size: Size, named: Record<string, number | null>): LayoutWell[] {
  const wells: LayoutWell[] = Array.from({ length: size }, () => ({ occupied: false, pool: null }));
  for (const [name, pool] of Object.entries(named)) wells[slotOf(size, name) - 1] = { occupied: true, pool };
  return wells;
}

const walk = (size: Size, direction: TagDirection, walkingBy: TagWalker, wells: LayoutWell[], tagsPerWell?: number) =>
  value(walkPlate({ size, direction, walkingBy, wells, tagsPerWell, dual: false }));

/** The plan of one well, by name. */
const at = (plan: TagSlot[][], size: Size, name: string) => plan[slotOf(size, name) - 1];

const single = (index: number): TagSlot[] => [{ index, index2: index }];
const dual = ([index, index2]: [number, number]): TagSlot[] => [{ index, index2 }];
const group = (ordinal: number): TagSlot[] => [0, 1, 2, 3].map((k) => ({ index: 4 * ordinal + k, index2: 4 * ordinal + k }));

describe('names', () => {
  it('reports the manual walkers by the names the reference reads back, every other walker by its own', () => {
    expect(TAG_WALKERS.map(walkerName)).toEqual([
      'wells of plate',
      'wells of plate',
      'wells in pools',
      'wells in pools',
      'as group by plate',
      'as fixed group by plate',
      'quadrants',
      'combinatorial sequential',
    ]);
  });

  it('only the group walkers use tags_per_well, 4 unless given', () => {
    expect(TAG_WALKERS.filter(usesTagsPerWell)).toEqual(['as group by plate', 'as fixed group by plate']);
    expect(DEFAULT_TAGS_PER_WELL).toBe(4);
  });
});

describe('wellOrder', () => {
  it.each(SIZES)('walks a %i-well plate by column, by row, in reverse, and the storage order (creation order: by row)', (size) => {
    const names = (direction: TagDirection) => wellOrder(size, direction).map((slot) => nameOf(size, slot));
    const columns = columnOrder(layout(size));
    const rows = rowOrder(layout(size));
    expect(names('column')).toEqual(columns);
    expect(names('row')).toEqual(rows);
    expect(names('inverse column')).toEqual([...columns].reverse());
    expect(names('inverse row')).toEqual([...rows].reverse());
    expect(names('column then row')).toEqual(rows);
    expect(names('column then column')).toEqual(rows);
    expect(names('combinatorial by row')).toEqual(rows);
  });
});

/**
 * Every walker × every direction, on a plate where every well is occupied except B1 and each column is a
 * pool of its own (pool = column number). Expected tag positions of wells A1, C1, H1, A2, B2 and the last
 * well, worked out by hand from reference-behaviour.md §4.3 and the reference walkers.
 */
const CHECKED: Record<Size, string[]> = { 96: ['A1', 'C1', 'H1', 'A2', 'B2', 'H12'], 384: ['A1', 'C1', 'H1', 'A2', 'B2', 'P24'] };

type Table<T> = Record<TagDirection, Record<Size, T[]>>;

/** The ordinal of each checked well in the direction's order, counting every well. */
const ORDINALS: Table<number> = {
  column: { 96: [0, 2, 7, 8, 9, 95], 384: [0, 2, 7, 16, 17, 383] },
  row: { 96: [0, 24, 84, 1, 13, 95], 384: [0, 48, 168, 1, 25, 383] },
  'inverse column': { 96: [95, 93, 88, 87, 86, 0], 384: [383, 381, 376, 367, 366, 0] },
  'inverse row': { 96: [95, 71, 11, 94, 82, 0], 384: [383, 335, 215, 382, 358, 0] },
  'column then row': { 96: [0, 24, 84, 1, 13, 95], 384: [0, 48, 168, 1, 25, 383] },
  'column then column': { 96: [0, 24, 84, 1, 13, 95], 384: [0, 48, 168, 1, 25, 383] },
  'combinatorial by row': { 96: [0, 24, 84, 1, 13, 95], 384: [0, 48, 168, 1, 25, 383] },
};

/** The ordinal counting occupied wells only: one less after the empty B1. */
const OCCUPIED_ORDINALS: Table<number> = {
  column: { 96: [0, 1, 6, 7, 8, 94], 384: [0, 1, 6, 15, 16, 382] },
  row: { 96: [0, 23, 83, 1, 12, 94], 384: [0, 47, 167, 1, 24, 382] },
  'inverse column': { 96: [94, 93, 88, 87, 86, 0], 384: [382, 381, 376, 367, 366, 0] },
  'inverse row': { 96: [94, 71, 11, 93, 82, 0], 384: [382, 335, 215, 381, 358, 0] },
  'column then row': { 96: [0, 23, 83, 1, 12, 94], 384: [0, 47, 167, 1, 24, 382] },
  'column then column': { 96: [0, 23, 83, 1, 12, 94], 384: [0, 47, 167, 1, 24, 382] },
  'combinatorial by row': { 96: [0, 23, 83, 1, 12, 94], 384: [0, 47, 167, 1, 24, 382] },
};

/**
 * `wells in pools`: by column the groups are the columns, all of different pools, so positions restart per
 * column. By row every well meets its pool at the same place in the row before, so every row is moved
 * past the one before and the positions run on like the ordinals. `inverse column` cuts groups of a
 * row's worth (12 or 24) across columns; no two neighbouring groups share a pool at the same place, so
 * the position is the ordinal modulo the group size.
 */
const IN_POOLS: Table<number> = {
  column: { 96: [0, 2, 7, 0, 1, 7], 384: [0, 2, 7, 0, 1, 15] },
  row: { 96: [0, 24, 84, 1, 13, 95], 384: [0, 48, 168, 1, 25, 383] },
  'inverse column': { 96: [11, 9, 4, 3, 2, 0], 384: [23, 21, 16, 7, 6, 0] },
  'inverse row': { 96: [95, 71, 11, 94, 82, 0], 384: [383, 335, 215, 382, 358, 0] },
  'column then row': { 96: [0, 24, 84, 1, 13, 95], 384: [0, 48, 168, 1, 25, 383] },
  'column then column': { 96: [0, 24, 84, 1, 13, 95], 384: [0, 48, 168, 1, 25, 383] },
  'combinatorial by row': { 96: [0, 24, 84, 1, 13, 95], 384: [0, 48, 168, 1, 25, 383] },
};

/** `manual by pool`: the position within the well's column (its pool), empty B1 included, bottom up in the inverse directions. */
const BY_POOL: Table<number> = {
  column: { 96: [0, 2, 7, 0, 1, 7], 384: [0, 2, 7, 0, 1, 15] },
  row: { 96: [0, 2, 7, 0, 1, 7], 384: [0, 2, 7, 0, 1, 15] },
  'inverse column': { 96: [7, 5, 0, 7, 6, 0], 384: [15, 13, 8, 15, 14, 0] },
  'inverse row': { 96: [7, 5, 0, 7, 6, 0], 384: [15, 13, 8, 15, 14, 0] },
  'column then row': { 96: [0, 2, 7, 0, 1, 7], 384: [0, 2, 7, 0, 1, 15] },
  'column then column': { 96: [0, 2, 7, 0, 1, 7], 384: [0, 2, 7, 0, 1, 15] },
  'combinatorial by row': { 96: [0, 2, 7, 0, 1, 7], 384: [0, 2, 7, 0, 1, 15] },
};

/** `quadrants` and `combinatorial sequential`: [index, index2] from the direction's formulas. */
const DUAL: Table<[number, number]> = {
  column: {
    96: [
      [0, 0],
      [1, 1],
      [3, 3],
      [0, 0],
      [0, 0],
      [23, 23],
    ],
    384: [
      [0, 0],
      [1, 1],
      [3, 3],
      [0, 0],
      [0, 0],
      [95, 95],
    ],
  },
  row: {
    96: [
      [0, 0],
      [6, 6],
      [18, 18],
      [0, 0],
      [0, 0],
      [23, 23],
    ],
    384: [
      [0, 0],
      [12, 12],
      [36, 36],
      [0, 0],
      [0, 0],
      [95, 95],
    ],
  },
  'inverse column': {
    96: [
      [23, 23],
      [22, 22],
      [20, 20],
      [23, 23],
      [23, 23],
      [0, 0],
    ],
    384: [
      [95, 95],
      [94, 94],
      [92, 92],
      [95, 95],
      [95, 95],
      [0, 0],
    ],
  },
  'inverse row': {
    96: [
      [23, 23],
      [17, 17],
      [5, 5],
      [23, 23],
      [23, 23],
      [0, 0],
    ],
    384: [
      [95, 95],
      [83, 83],
      [59, 59],
      [95, 95],
      [95, 95],
      [0, 0],
    ],
  },
  'column then row': {
    96: [
      [0, 0],
      [1, 0],
      [3, 2],
      [0, 1],
      [0, 3],
      [23, 3],
    ],
    384: [
      [0, 0],
      [1, 0],
      [3, 2],
      [0, 1],
      [0, 3],
      [95, 3],
    ],
  },
  'column then column': {
    96: [
      [0, 0],
      [1, 0],
      [3, 1],
      [0, 2],
      [0, 3],
      [23, 3],
    ],
    384: [
      [0, 0],
      [1, 0],
      [3, 1],
      [0, 2],
      [0, 3],
      [95, 3],
    ],
  },
  'combinatorial by row': {
    96: [
      [0, 0],
      [2, 0],
      [7, 0],
      [0, 1],
      [1, 1],
      [7, 11],
    ],
    384: [
      [0, 0],
      [2, 0],
      [7, 0],
      [0, 1],
      [1, 1],
      [15, 23],
    ],
  },
};

const EXPECTED: Record<TagWalker, (direction: TagDirection, size: Size) => TagSlot[][]> = {
  'wells of plate': (d, s) => ORDINALS[d][s].map(single),
  'manual by plate': (d, s) => OCCUPIED_ORDINALS[d][s].map(single),
  'wells in pools': (d, s) => IN_POOLS[d][s].map(single),
  'manual by pool': (d, s) => BY_POOL[d][s].map(single),
  'as group by plate': (d, s) => OCCUPIED_ORDINALS[d][s].map(group),
  'as fixed group by plate': (d, s) => ORDINALS[d][s].map(group),
  quadrants: (d, s) => DUAL[d][s].map(dual),
  'combinatorial sequential': (d, s) => DUAL[d][s].map(dual),
};

describe('walkPlate: every walker and direction', () => {
  const cases = TAG_WALKERS.flatMap((walker) => TAG_DIRECTIONS.flatMap((direction) => SIZES.map((size) => [walker, direction, size] as const)));
  const matrixWells = (size: Size) => Array.from({ length: size }, (_, i): LayoutWell => ({ occupied: i !== 1, pool: Math.floor(i / layout(size).rows) + 1 }));

  it.each(cases)('%s, %s, %i wells', (walker, direction, size) => {
    const plan = walk(size, direction, walker, matrixWells(size));
    expect(CHECKED[size].map((name) => at(plan, size, name))).toEqual(EXPECTED[walker](direction, size));
    expect(at(plan, size, 'B1')).toEqual([]);
    const perWell = usesTagsPerWell(walker) ? DEFAULT_TAGS_PER_WELL : 1;
    expect(plan.filter((slots) => slots.length === perWell)).toHaveLength(size - 1);
  });
});

describe('walkPlate: walkers', () => {
  it('wells of plate by column on a full 96 plate: each well its column-order ordinal (H1 7, A2 8)', () => {
    const plan = walk(96, 'column', 'wells of plate', full(96));
    expect(plan).toEqual(Array.from({ length: 96 }, (_, i) => single(i)));
    expect(at(plan, 96, 'H1')).toEqual(single(7));
    expect(at(plan, 96, 'A2')).toEqual(single(8));
  });

  it('wells of plate leaves an empty well untagged but counts it; manual by plate does not count it', () => {
    const wells = wellsAt(96, { A1: null, C1: null, A2: null });
    expect(walk(96, 'column', 'wells of plate', wells).flatMap((slots, i) => slots.map((s) => [i + 1, s.index]))).toEqual([
      [1, 0],
      [3, 2],
      [9, 8],
    ]);
    expect(walk(96, 'column', 'manual by plate', wells).flatMap((slots, i) => slots.map((s) => [i + 1, s.index]))).toEqual([
      [1, 0],
      [3, 1],
      [9, 2],
    ]);
  });

  it('wells in pools moves a well whose pool is at the same place in the group before to the end of its group', () => {
    // Columns 1-2 are pool 1, columns 3-12 pool 2: each column of a run of one pool is pushed past the one before.
    const plan = walk(
      96,
      'column',
      'wells in pools',
      full(96, (slot) => (slot <= 16 ? 1 : 2)),
    );
    const expected = { A1: 0, H1: 7, A2: 8, H2: 15, A3: 0, H3: 7, A4: 8, A5: 16, A12: 72, H12: 79 };
    for (const [name, index] of Object.entries(expected)) expect(at(plan, 96, name)).toEqual(single(index));
  });

  it('wells in pools counts a well without a pool as the pool of the well before it (the reference step by step)', () => {
    // Column 1 pool 1; A2 no pool, B2-H2 pool 2; columns 3 and 4 no pool; columns 5-12 pool 9.
    const pools: Record<string, number | null> = { A2: null, A3: null, A4: null };
    const plan = walk(
      96,
      'column',
      'wells in pools',
      full(96, (slot) => {
        const name = nameOf(96, slot);
        if (name in pools) return pools[name]!;
        return slot <= 8 ? 1 : slot <= 16 ? 2 : slot <= 32 ? null : 9;
      }),
    );
    // A2 takes H1's pool (1), meets A1's and moves; column 3 takes pool 1 down from A2 and only A3 meets it
    // (twice); column 4, all pool 1, is pushed past column 3 whose moved A3 pushes B4 again.
    const expected = { A2: 8, B2: 1, H2: 7, A3: 9, B3: 1, H3: 7, A4: 16, B4: 17, C4: 10, H4: 15, A5: 0, H5: 7 };
    for (const [name, index] of Object.entries(expected)) expect(at(plan, 96, name), name).toEqual(single(index));
  });

  it('manual by pool restarts in each pool, in the order the pools are met; wells without a pool make one pool', () => {
    const wells = full(96, (slot) => ({ 1: 5, 2: 3, 3: 5, 5: 3 })[slot] ?? null);
    const plan = walk(96, 'column', 'manual by pool', wells);
    const expected = { A1: 0, C1: 1, B1: 0, E1: 1, D1: 0, F1: 1, G1: 2, H1: 3, A2: 4, H12: 91 };
    for (const [name, index] of Object.entries(expected)) expect(at(plan, 96, name), name).toEqual(single(index));
  });

  it('as group by plate gives occupied wells tagsPerWell consecutive positions; as fixed group by plate keeps the places of empty wells', () => {
    const wells = wellsAt(96, { A1: null, C1: null });
    const positions = (walker: TagWalker) => ['A1', 'C1'].map((name) => at(walk(96, 'column', walker, wells, 3), 96, name)!.map((s) => s.index));
    expect(positions('as group by plate')).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    expect(positions('as fixed group by plate')).toEqual([
      [0, 1, 2],
      [6, 7, 8],
    ]);
  });

  it('the dual-index walkers tag blocks of 2×2 wells alike on 384 (reference spec: column then row quadrants)', () => {
    const plan = walk(384, 'column then row', 'quadrants', full(384));
    const rows = ['A', 'B', 'C'].map((row) => [1, 2, 3, 4].map((column) => at(plan, 384, `${row}${column}`)![0]));
    expect(rows).toEqual([
      [
        { index: 0, index2: 0 },
        { index: 0, index2: 1 },
        { index: 8, index2: 0 },
        { index: 8, index2: 1 },
      ],
      [
        { index: 0, index2: 2 },
        { index: 0, index2: 3 },
        { index: 8, index2: 2 },
        { index: 8, index2: 3 },
      ],
      [
        { index: 1, index2: 0 },
        { index: 1, index2: 1 },
        { index: 9, index2: 0 },
        { index: 9, index2: 1 },
      ],
    ]);
  });

  it.each(['as group by plate', 'as fixed group by plate'] as const)('refuses dual indexing for %s', (walkingBy) => {
    const refused = problems(walkPlate({ size: 96, direction: 'column', walkingBy, wells: full(96), dual: true }));
    expect(refused).toEqual([
      { code: 'dual_not_supported', input: ['tag2_group'], detail: expect.stringContaining('dual indexing is not supported by this template') },
    ]);
    expect(refused[0]!.detail).toContain(walkingBy);
  });

  it('accepts dual indexing for the other walkers', () => {
    for (const walkingBy of TAG_WALKERS.filter((w) => !usesTagsPerWell(w))) {
      expect(walkPlate({ size: 96, direction: 'column', walkingBy, wells: full(96), dual: true }).ok, walkingBy).toBe(true);
    }
  });

  it('refuses a tags_per_well that is not a whole number from 1 to the pool budget, for group walkers only', () => {
    const tried = (tagsPerWell: number, walkingBy: TagWalker = 'as group by plate') =>
      walkPlate({ size: 96, direction: 'column', walkingBy, wells: full(96), tagsPerWell, dual: false });
    expect(problems(tried(0))).toEqual([{ code: 'not_a_count', input: ['tags_per_well'], detail: expect.any(String) }]);
    expect(problems(tried(1.5))).toEqual([{ code: 'not_a_count', input: ['tags_per_well'], detail: expect.any(String) }]);
    expect(problems(tried(MAX_ALIQUOTS_PER_RECEPTACLE + 1, 'as fixed group by plate'))).toEqual([
      { code: 'over_budget', input: ['tags_per_well'], detail: expect.any(String) },
    ]);
    expect(tried(MAX_ALIQUOTS_PER_RECEPTACLE).ok).toBe(true);
    expect(tried(0, 'wells of plate').ok).toBe(true);
  });
});

const NORMAL_WALKERS = TAG_WALKERS.filter((w) => !usesTagsPerWell(w));
const GROUP_WALKERS = TAG_WALKERS.filter(usesTagsPerWell);
const arbSize = fc.constantFrom<Size>(96, 384);
const arbDirection = fc.constantFrom(...TAG_DIRECTIONS);
const arbWells = (size: Size) =>
  fc.array(fc.record({ occupied: fc.boolean(), pool: fc.option(fc.integer({ min: 1, max: 4 })) }), { minLength: size, maxLength: size });
const arbPlate = arbSize.chain((size) => fc.record({ size: fc.constant(size), direction: arbDirection, wells: arbWells(size) }));

describe('walkPlate: properties', () => {
  it('the normal walkers tag each occupied well exactly once and no empty well', () => {
    fc.assert(
      fc.property(arbPlate, fc.constantFrom(...NORMAL_WALKERS), ({ size, direction, wells }, walker) => {
        const plan = walk(size, direction, walker, wells);
        expect(plan.map((slots) => slots.length)).toEqual(wells.map((w) => (w.occupied ? 1 : 0)));
      }),
    );
  });

  it('the group walkers give each occupied well tagsPerWell distinct positions, and no position twice on the plate', () => {
    fc.assert(
      fc.property(arbPlate, fc.constantFrom(...GROUP_WALKERS), fc.integer({ min: 1, max: 6 }), ({ size, direction, wells }, walker, tagsPerWell) => {
        const plan = walk(size, direction, walker, wells, tagsPerWell);
        expect(plan.map((slots) => slots.length)).toEqual(wells.map((w) => (w.occupied ? tagsPerWell : 0)));
        const indexes = plan.flat().map((s) => s.index);
        expect(new Set(indexes).size).toBe(indexes.length);
      }),
    );
  });
});

const tagsOf = (count: number, prefix = 'T'): Tag[] => Array.from({ length: count }, (_, i) => ({ oligo: `${prefix}${i + 1}`, index: i + 1 }));

describe('tagList', () => {
  it('sorts the tags by map_id', () => {
    const [t1, t2, t3] = tagsOf(3);
    expect(value(tagList([t3!, t1!, t2!], {}))).toEqual([t1, t2, t3]);
  });

  it('puts the tag named by each substitution in the place of the tag it replaces', () => {
    const tags = tagsOf(4);
    expect(value(tagList(tags, { '1': '3', '4': '2' })).map((t) => t.index)).toEqual([3, 2, 3, 2]);
  });

  it('refuses substitutions naming a map_id the group does not have, key or value, all of them', () => {
    expect(problems(tagList(tagsOf(4), { '2': '0', '3': '4', '9': '1' }))).toEqual([
      { code: 'unknown_tag', input: ['substitutions', '2'], detail: '"0" is not the map_id of a tag in the tag group' },
      { code: 'unknown_tag', input: ['substitutions', '9'], detail: '"9" is not the map_id of a tag in the tag group' },
    ]);
  });

  it('a substituted map_id never appears and its replacement takes its place', () => {
    const arb = fc.integer({ min: 2, max: 40 }).chain((count) =>
      fc.record({
        count: fc.constant(count),
        substitutions: fc.uniqueArray(fc.integer({ min: 1, max: count }), { minLength: 1, maxLength: count }).chain((indexes) => {
          // Keys and values drawn from disjoint map_ids, so no replacement is itself replaced.
          const cut = Math.max(1, Math.floor(indexes.length / 2));
          const keys = indexes.slice(0, cut);
          const values = indexes.length > cut ? indexes.slice(cut) : [keys[0] === count ? 1 : count];
          return fc
            .tuple(...keys.map(() => fc.constantFrom(...values)))
            .map((picked) => Object.fromEntries(keys.map((k, i) => [String(k), String(picked[i])])));
        }),
      }),
    );
    fc.assert(
      fc.property(arb, ({ count, substitutions }) => {
        fc.pre(Object.entries(substitutions).every(([k, v]) => k !== v));
        const list = value(tagList(tagsOf(count), substitutions));
        expect(list).toHaveLength(count);
        const used = new Set(list.map((t) => t.index));
        for (const [key, replacement] of Object.entries(substitutions)) {
          expect(used.has(Number(key))).toBe(false);
          expect(list[Number(key) - 1]!.index).toBe(Number(replacement));
        }
      }),
    );
  });
});

// --- layTags ---------------------------------------------------------------------------------------------

const content = (sample: number, extra: Partial<AliquotContent> = {}): AliquotContent => ({
  sample,
  study: null,
  tag: null,
  tag2: null,
  library_type: null,
  ...extra,
});

/** A plate whose named wells hold the given aliquots, numbered in slot order. */
function plateWith(size: Size, contents: Record<string, AliquotContent[]>): Labware {
  const receptacles = emptyReceptacles(size);
  let n = 0;
  const bySlot = Object.entries(contents).sort(([a], [b]) => slotOf(size, a) - slotOf(size, b));
  for (const [name, aliquots] of bySlot) receptacles[slotOf(size, name) - 1]!.aliquots = aliquots.map((a) => ({ n: ++n, ...a }));
  return {
    name: null,
    barcode: { human_barcode: 'DN1S', machine_barcode: null, ean13_barcode: null, external: false },
    state: 'pending',
    size,
    receptacles,
    aliquotCount: n,
  };
}

const layoutWells = (plate: Labware): LayoutWell[] => plate.receptacles.map((r) => ({ occupied: r.aliquots.length > 0, pool: null }));
const wellName = (slot: number) => `wells ${5000 + slot}`;
const aliquotsAt = (plate: Labware, name: string): Aliquot[] => plate.receptacles[slotOf(plate.size as Size, name) - 1]!.aliquots;

interface Lay {
  walkingBy?: TagWalker;
  direction?: TagDirection;
  tags?: Tag[];
  tags2?: Tag[] | null;
  initialTag?: number;
  replaceTags?: boolean;
  tagsPerWell?: number;
}

function lay(plate: Labware, options: Lay = {}): Outcome<Labware> {
  const { walkingBy = 'wells of plate', direction = 'column', tags = tagsOf(96), tags2 = null, initialTag = 0, replaceTags = false, tagsPerWell } = options;
  const size = plate.size as Size;
  const plan = walk(size, direction, walkingBy, layoutWells(plate), tagsPerWell);
  return layTags(plate, plan, { tags, tags2, initialTag, replaceTags, wellName });
}

const T = (index: number, prefix = 'T'): Tag => ({ oligo: `${prefix}${index}`, index });

describe('layTags', () => {
  it('wells of plate by column on 96 gives H1 the tag with map_id 8 and A2 the one with map_id 9', () => {
    const plate = plateWith(96, { A1: [content(1)], H1: [content(2)], A2: [content(3)] });
    const laid = value(lay(plate));
    expect(aliquotsAt(laid, 'A1')[0]!.tag).toEqual(T(1));
    expect(aliquotsAt(laid, 'H1')[0]!.tag).toEqual(T(8));
    expect(aliquotsAt(laid, 'A2')[0]!.tag).toEqual(T(9));
  });

  it('sets tag2 from the tag2 group at index2, shifted by the initial tag like tag', () => {
    const plate = plateWith(384, { A1: [content(1)], A2: [content(2)], B1: [content(3)], C3: [content(4)] });
    const laid = value(lay(plate, { walkingBy: 'quadrants', direction: 'column then row', tags: tagsOf(96), tags2: tagsOf(4, 'U'), initialTag: 1 }));
    const pairs = ['A1', 'A2', 'B1', 'C3'].map((name) => [aliquotsAt(laid, name)[0]!.tag!.index, aliquotsAt(laid, name)[0]!.tag2!.oligo]);
    expect(pairs).toEqual([
      [2, 'U2'],
      [2, 'U3'],
      [2, 'U4'],
      [11, 'U2'],
    ]);
  });

  it('without replace_tags leaves an already tagged aliquot as it is, and keeps an untagged one’s tag2 when there is no tag2 group', () => {
    const plate = plateWith(96, { A1: [content(1, { tag: T(50, 'X'), tag2: T(1, 'Y') })], B1: [content(2, { tag2: T(2, 'Y') })] });
    const laid = value(lay(plate));
    expect(aliquotsAt(laid, 'A1')).toEqual(aliquotsAt(plate, 'A1'));
    expect(aliquotsAt(laid, 'B1')).toEqual([{ ...aliquotsAt(plate, 'B1')[0], tag: T(2), tag2: T(2, 'Y') }]);
  });

  it('without replace_tags a tag2 group still sets tag2 on an untagged aliquot, overwriting the old one', () => {
    const plate = plateWith(96, { B1: [content(2, { tag2: T(2, 'Y') })] });
    const laid = value(lay(plate, { tags2: tagsOf(96, 'U') }));
    expect(aliquotsAt(laid, 'B1')[0]).toMatchObject({ tag: T(2), tag2: T(2, 'U') });
  });

  it('with replace_tags retags every aliquot and, with no tag2 group, removes its tag2', () => {
    const plate = plateWith(96, { A1: [content(1, { tag: T(50, 'X'), tag2: T(1, 'Y') })], B1: [content(2, { tag2: T(2, 'Y') })] });
    const laid = value(lay(plate, { replaceTags: true }));
    expect(aliquotsAt(laid, 'A1')[0]).toMatchObject({ sample: 1, tag: T(1), tag2: null });
    expect(aliquotsAt(laid, 'B1')[0]).toMatchObject({ sample: 2, tag: T(2), tag2: null });
  });

  it('with replace_tags and a tag2 group sets both tags', () => {
    const plate = plateWith(96, { A1: [content(1, { tag: T(50, 'X'), tag2: T(1, 'Y') })] });
    expect(aliquotsAt(value(lay(plate, { replaceTags: true, tags2: tagsOf(96, 'U') })), 'A1')[0]).toMatchObject({ tag: T(1), tag2: T(1, 'U') });
  });

  it('refuses a pooled well whose samples a normal walker gives the same tags: a tag clash naming the well and both samples', () => {
    const plate = plateWith(96, { A1: [content(1), content(2)], B1: [content(3)], C1: [content(4), content(5)] });
    expect(problems(lay(plate))).toEqual([
      { code: 'tag_clash', input: ['tag_group'], detail: 'tag clash: wells 5001 would hold sample 1 and sample 2 with the same tags ("T1/-")' },
      { code: 'tag_clash', input: ['tag_group'], detail: 'tag clash: wells 5003 would hold sample 4 and sample 5 with the same tags ("T3/-")' },
    ]);
  });

  it('a pooled well whose samples keep different tag2s does not clash', () => {
    const plate = plateWith(96, { A1: [content(1, { tag2: T(1, 'Y') }), content(2, { tag2: T(2, 'Y') })] });
    expect(aliquotsAt(value(lay(plate)), 'A1').map((a) => [a.tag!.oligo, a.tag2!.oligo])).toEqual([
      ['T1', 'Y1'],
      ['T1', 'Y2'],
    ]);
  });

  it('refuses a kept tag that the layout gives another sample of the well', () => {
    const plate = plateWith(96, { A1: [content(1, { tag: T(1) }), content(2)] });
    expect(problems(lay(plate)).map((p) => p.code)).toEqual(['tag_clash']);
    expect(lay(plate, { replaceTags: true }).ok).toBe(false);
  });

  it('skips wells without aliquots even when the plan gives them tags', () => {
    const plate = plateWith(96, { B1: [content(1)] });
    const plan = Array.from({ length: 96 }, (_, i) => single(i));
    const laid = value(layTags(plate, plan, { tags: tagsOf(96), tags2: null, initialTag: 0, replaceTags: false, wellName }));
    expect(laid.receptacles.filter((r, i) => r !== plate.receptacles[i])).toHaveLength(1);
    expect(aliquotsAt(laid, 'B1')[0]!.tag).toEqual(T(2));
    expect(laid.aliquotCount).toBe(plate.aliquotCount);
  });

  it('leaves the labware it was given unchanged', () => {
    const plate = plateWith(96, { A1: [content(1)] });
    const before = structuredClone(plate);
    value(lay(plate, { walkingBy: 'as group by plate' }));
    expect(plate).toEqual(before);
  });

  it('refuses an empty tag group or tag2 group', () => {
    const plate = plateWith(96, { A1: [content(1)] });
    expect(problems(lay(plate, { tags: [], tags2: [] })).map((p) => [p.code, p.input])).toEqual([
      ['empty_tag_group', ['tag_group']],
      ['empty_tag_group', ['tag2_group']],
    ]);
  });

  it('group walkers tag each sample’s aliquot and add one copy of it per further tag, numbered after the labware’s aliquots', () => {
    const plate = plateWith(96, { A1: [content(1, { study: 7, library_type: 'Standard' })], B1: [content(2)] });
    const laid = value(lay(plate, { walkingBy: 'as group by plate', tagsPerWell: 3 }));
    expect(aliquotsAt(laid, 'A1')).toEqual([
      { n: 1, ...content(1, { study: 7, library_type: 'Standard', tag: T(1) }) },
      { n: 3, ...content(1, { study: 7, library_type: 'Standard', tag: T(2) }) },
      { n: 4, ...content(1, { study: 7, library_type: 'Standard', tag: T(3) }) },
    ]);
    expect(aliquotsAt(laid, 'B1').map((a) => [a.n, a.sample, a.tag!.index])).toEqual([
      [2, 2, 4],
      [5, 2, 5],
      [6, 2, 6],
    ]);
    expect(laid.aliquotCount).toBe(6);
  });

  it('group walkers add every tag as a copy when the sample’s aliquot is already tagged, unless replacing tags', () => {
    const plate = plateWith(96, { A1: [content(1, { tag: T(9, 'X') })] });
    const kept = value(lay(plate, { walkingBy: 'as fixed group by plate', tagsPerWell: 2 }));
    expect(aliquotsAt(kept, 'A1').map((a) => [a.n, a.tag!.oligo])).toEqual([
      [1, 'X9'],
      [2, 'T1'],
      [3, 'T2'],
    ]);
    const replaced = value(lay(plate, { walkingBy: 'as fixed group by plate', tagsPerWell: 2, replaceTags: true }));
    expect(aliquotsAt(replaced, 'A1').map((a) => [a.n, a.tag!.oligo])).toEqual([
      [1, 'T1'],
      [2, 'T2'],
    ]);
  });

  it('group walkers with a pooled well give its samples the same tags: a tag clash', () => {
    const plate = plateWith(96, { A1: [content(1), content(2)] });
    const refused = problems(lay(plate, { walkingBy: 'as group by plate', tagsPerWell: 2 }));
    expect(refused.map((p) => p.detail)).toEqual([
      'tag clash: wells 5001 would hold sample 1 and sample 2 with the same tags ("T1/-")',
      'tag clash: wells 5001 would hold sample 1 and sample 2 with the same tags ("T2/-")',
    ]);
  });

  it('group walkers with fewer tags than tags_per_well give a sample the same tag twice: a tag clash', () => {
    const plate = plateWith(96, { A1: [content(1)] });
    expect(problems(lay(plate, { walkingBy: 'as group by plate', tags: tagsOf(2), tagsPerWell: 3 })).map((p) => p.detail)).toEqual([
      'tag clash: wells 5001 would hold sample 1 and sample 1 with the same tags ("T1/-")',
    ]);
  });

  it('refuses a well that the copies would take past the pool budget', () => {
    const plate = plateWith(96, { A1: [content(1, { tag: T(1, 'X') })] });
    const refused = problems(
      lay(plate, { walkingBy: 'as group by plate', tags: tagsOf(MAX_ALIQUOTS_PER_RECEPTACLE), tagsPerWell: MAX_ALIQUOTS_PER_RECEPTACLE }),
    );
    expect(refused).toEqual([{ code: 'over_budget', input: ['tags_per_well'], detail: expect.stringContaining('wells 5001 would hold 1537 aliquots') }]);
  });

  it('the reference’s group example: 32 tags on A1-H1 with initial tag 4 gives H1 tags 1-4 and A1 tags 5-8', () => {
    const plate = plateWith(
      96,
      Object.fromEntries(
        columnOrder(layout(96))
          .slice(0, 8)
          .map((name, i) => [name, [content(i + 1)]]),
      ),
    );
    const laid = value(lay(plate, { walkingBy: 'as group by plate', tags: tagsOf(32), initialTag: 4 }));
    expect(aliquotsAt(laid, 'A1').map((a) => a.tag!.index)).toEqual([5, 6, 7, 8]);
    expect(aliquotsAt(laid, 'H1').map((a) => a.tag!.index)).toEqual([1, 2, 3, 4]);
  });
});

describe('layTags: properties', () => {
  /** A plate with one sample in each occupied well, so no layout can clash. */
  const arbLaid = arbPlate.chain(({ size, direction, wells }) =>
    fc.record({
      plate: fc.constant(plateWith(size, Object.fromEntries(wells.flatMap((w, i) => (w.occupied ? [[nameOf(size, i + 1), [content(i + 1)]]] : []))))),
      size: fc.constant(size),
      direction: fc.constant(direction),
      tags: fc.integer({ min: 1, max: 200 }).map((count) => tagsOf(count)),
      initialTag: fc.integer({ min: -1000, max: 1000 }),
    }),
  );

  it('every occupied well gets a tag of the group, and an empty well none', () => {
    fc.assert(
      fc.property(arbLaid, fc.constantFrom(...TAG_WALKERS), ({ plate, direction, tags, initialTag }, walkingBy) => {
        // Two tags per well from a list of one would give a sample the same tag twice.
        fc.pre(!usesTagsPerWell(walkingBy) || tags.length >= 2);
        const laid = value(lay(plate, { walkingBy, direction, tags, initialTag, tagsPerWell: 2 }));
        for (const aliquot of laid.receptacles.flatMap((r) => r.aliquots)) expect(tags).toContainEqual(aliquot.tag);
        expect(laid.receptacles.map((r) => r.aliquots.length > 0)).toEqual(plate.receptacles.map((r) => r.aliquots.length > 0));
      }),
    );
  });

  it('the initial tag wraps round the tag list: adding a multiple of its length changes nothing', () => {
    fc.assert(
      fc.property(arbLaid, fc.constantFrom(...NORMAL_WALKERS), fc.integer({ min: -3, max: 3 }), ({ plate, direction, tags, initialTag }, walkingBy, turns) => {
        fc.pre(turns !== 0);
        const laid = (offset: number) => value(lay(plate, { walkingBy, direction, tags, initialTag: offset }));
        expect(laid(initialTag + turns * tags.length)).toEqual(laid(initialTag));
      }),
    );
  });

  it('the initial tag shifts the first well’s tag along the list, wrapping past its end', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 96 }), fc.integer({ min: 0, max: 500 }), (count, initialTag) => {
        const plate = plateWith(96, { A1: [content(1)] });
        const tag = aliquotsAt(value(lay(plate, { tags: tagsOf(count), initialTag })), 'A1')[0]!.tag!;
        expect(tag.index).toBe((initialTag % count) + 1);
      }),
    );
  });

  it('group walkers give each occupied well tagsPerWell distinct tags when the list has that many', () => {
    fc.assert(
      fc.property(
        arbLaid,
        fc.constantFrom(...GROUP_WALKERS),
        fc.integer({ min: 1, max: 6 }),
        ({ plate, direction, tags, initialTag }, walkingBy, tagsPerWell) => {
          fc.pre(tags.length >= tagsPerWell);
          const laid = value(lay(plate, { walkingBy, direction, tags, initialTag, tagsPerWell }));
          for (const receptacle of laid.receptacles.filter((r) => r.aliquots.length > 0)) {
            expect(new Set(receptacle.aliquots.map((a) => a.tag!.oligo)).size).toBe(tagsPerWell);
            expect(receptacle.aliquots).toHaveLength(tagsPerWell);
          }
        },
      ),
    );
  });
});
