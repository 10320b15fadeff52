import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  columnOrder,
  isValidPosition,
  layoutForSize,
  parsePosition,
  positionAt,
  positionIndex,
  positionName,
  rowOrder,
  type Layout,
} from '#lib/domain/geometry.ts';
import { PLATE_SIZES } from '#lib/domain/budgets.ts';
import { PLATE_SHAPES, shapeOfSize, shapeSizeProblem } from '#lib/domain/purposes.ts';

function layout(size: number): Layout {
  const found = layoutForSize(size);
  if (!found) throw new Error(`no layout for ${size}`);
  return found;
}

const L48 = layout(48);
const L96 = layout(96);
const L384 = layout(384);
const ALL = [L48, L96, L384];

describe('layoutForSize', () => {
  it('knows the supported grids', () => {
    expect(layoutForSize(48)).toEqual({ size: 48, rows: 6, columns: 8 });
    expect(layoutForSize(96)).toEqual({ size: 96, rows: 8, columns: 12 });
    expect(layoutForSize(384)).toEqual({ size: 384, rows: 16, columns: 24 });
    // The strips of the reference's chip shapes (lib/domain/purposes.ts).
    expect(layoutForSize(8)).toEqual({ size: 8, rows: 1, columns: 8 });
    expect(layoutForSize(16)).toEqual({ size: 16, rows: 2, columns: 8 });
  });

  it('gives a layout to every plate size a purpose may have, and to no other', () => {
    for (const [shape, sizes] of Object.entries(PLATE_SHAPES)) for (const size of sizes) expect(layoutForSize(size), shape).toBeDefined();
    expect(new Set(Object.values(PLATE_SHAPES).flat())).toEqual(new Set(PLATE_SIZES));
  });

  it('a shape left out is the one of the size; a size its shape does not come in is refused', () => {
    expect([shapeOfSize(96), shapeOfSize(384), shapeOfSize(8), shapeOfSize(16), shapeOfSize(48)]).toEqual([
      'Standard',
      'Standard',
      'Shape8x1',
      'Shape4x1',
      undefined,
    ]);
    expect(shapeSizeProblem('Standard', 384)).toBeUndefined();
    expect(shapeSizeProblem('Shape8x1', 96)).toBe('size - a Shape8x1 plate has 8 wells, got 96');
    expect(shapeSizeProblem('Standard', 8)).toBe('size - a Standard plate has 96 or 384 wells, got 8');
  });

  it.each([0, 1, 12, 24, 95, 97, 1536, -96, 96.5, NaN])('has no layout for %s', (size) => {
    expect(layoutForSize(size)).toBeUndefined();
  });
});

describe('orders', () => {
  it.each([
    [8, 'A8', ['A1', 'A2', 'A3'], ['A1', 'A2', 'A3']],
    [16, 'B8', ['A1', 'B1', 'A2'], ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8', 'B1']],
    [48, 'F8', ['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'A2'], ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8', 'B1']],
    [96, 'H12', ['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'G1', 'H1', 'A2'], ['A1', 'A2', 'A3']],
    [384, 'P24', ['A1', 'B1', 'C1'], ['A1', 'A2', 'A3']],
  ])('size %i: counts, first and last names', (size, last, columnStart, rowStart) => {
    const l = layout(size);
    const byColumn = columnOrder(l);
    const byRow = rowOrder(l);
    expect(byColumn).toHaveLength(size);
    expect(byRow).toHaveLength(size);
    expect(new Set(byColumn).size).toBe(size);
    expect(new Set(byRow)).toEqual(new Set(byColumn));
    expect(byColumn.slice(0, columnStart.length)).toEqual(columnStart);
    expect(byRow.slice(0, rowStart.length)).toEqual(rowStart);
    expect(byColumn.at(-1)).toBe(last);
    expect(byRow.at(-1)).toBe(last);
  });

  it('96: specific indexes', () => {
    expect(columnOrder(L96)[8]).toBe('A2');
    expect(columnOrder(L96)[95]).toBe('H12');
    expect(rowOrder(L96)[12]).toBe('B1');
    expect(rowOrder(L96)[11]).toBe('A12');
  });

  it('384: row P and column 24 exist', () => {
    expect(columnOrder(L384)[15]).toBe('P1');
    expect(columnOrder(L384)[16]).toBe('A2');
    expect(rowOrder(L384)[24]).toBe('B1');
  });

  it('positionIndex agrees with columnOrder and positionAt inverts it', () => {
    for (const l of ALL) {
      columnOrder(l).forEach((name, i) => {
        expect(positionIndex(l, name)).toBe(i);
        expect(positionAt(l, i)).toBe(name);
      });
    }
  });
});

describe('positionName / parsePosition', () => {
  it('names 0-based coordinates canonically', () => {
    expect(positionName(L96, 0, 0)).toBe('A1');
    expect(positionName(L96, 7, 11)).toBe('H12');
    expect(positionName(L384, 15, 23)).toBe('P24');
    expect(positionName(L48, 5, 7)).toBe('F8');
  });

  it('throws for coordinates off the grid', () => {
    expect(() => positionName(L96, 8, 0)).toThrow(RangeError);
    expect(() => positionName(L96, 0, 12)).toThrow(RangeError);
    expect(() => positionName(L96, -1, 0)).toThrow(RangeError);
    expect(() => positionName(L96, 0.5, 0)).toThrow(RangeError);
  });

  it('parses to 0-based coordinates, case-insensitively', () => {
    expect(parsePosition(L96, 'A1')).toEqual({ row: 0, column: 0 });
    expect(parsePosition(L96, 'h12')).toEqual({ row: 7, column: 11 });
    expect(parsePosition(L384, 'P24')).toEqual({ row: 15, column: 23 });
    expect(parsePosition(L384, 'p24')).toEqual({ row: 15, column: 23 });
    expect(positionIndex(L96, 'b1')).toBe(1);
  });

  it.each([
    [96, 'I1'],
    [96, 'A13'],
    [48, 'G1'],
    [48, 'A9'],
    [384, 'Q1'],
    [384, 'A25'],
    [96, 'A0'],
    [96, 'A01'],
    [96, ''],
    [96, '1A'],
    [96, 'A'],
    [96, '1'],
    [96, 'AA1'],
    [96, ' A1'],
    [96, 'A1 '],
    [96, 'A-1'],
    [96, 'A1.0'],
    [96, 'A１'], // full-width digit
    [96, 'A99999999999999999999'],
  ])('size %i rejects %j', (size, name) => {
    const l = layout(size);
    expect(parsePosition(l, name)).toBeUndefined();
    expect(isValidPosition(l, name)).toBe(false);
    expect(positionIndex(l, name)).toBeUndefined();
  });

  it('accepts what a smaller layout rejects when the grid is bigger', () => {
    expect(isValidPosition(L96, 'G1')).toBe(true);
    expect(isValidPosition(L384, 'I1')).toBe(true);
    expect(isValidPosition(L384, 'A13')).toBe(true);
  });

  it.each([-1, 96, 1000, 0.5, NaN, Infinity])('positionAt(96, %s) is undefined', (index) => {
    expect(positionAt(L96, index)).toBeUndefined();
  });
});

describe('properties', () => {
  const layouts = fc.constantFrom(...ALL);

  it('positionAt(positionIndex(name)) returns the canonical name', () => {
    fc.assert(
      fc.property(
        layouts.chain((l) =>
          fc.record({
            l: fc.constant(l),
            row: fc.integer({ min: 0, max: l.rows - 1 }),
            column: fc.integer({ min: 0, max: l.columns - 1 }),
            lower: fc.boolean(),
          }),
        ),
        ({ l, row, column, lower }) => {
          const name = positionName(l, row, column);
          const input = lower ? name.toLowerCase() : name;
          const index = positionIndex(l, input);
          expect(index).toBeDefined();
          expect(positionAt(l, index!)).toBe(name);
        },
      ),
    );
  });

  it('positionIndex(positionAt(i)) == i', () => {
    fc.assert(
      fc.property(
        layouts.chain((l) => fc.tuple(fc.constant(l), fc.integer({ min: 0, max: l.size - 1 }))),
        ([l, i]) => {
          const name = positionAt(l, i);
          expect(name).toMatch(/^[A-P][1-9][0-9]?$/);
          expect(positionIndex(l, name!)).toBe(i);
        },
      ),
    );
  });

  it('parsePosition never throws and only accepts on-grid coordinates', () => {
    const names = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom('A', 'h', 'P', 'q', 'Z', '0', '1', '2', '9', ' ', '-') }));
    fc.assert(
      fc.property(layouts, names, (l, name) => {
        const parsed = parsePosition(l, name);
        if (parsed !== undefined) {
          expect(parsed.row).toBeGreaterThanOrEqual(0);
          expect(parsed.row).toBeLessThan(l.rows);
          expect(parsed.column).toBeGreaterThanOrEqual(0);
          expect(parsed.column).toBeLessThan(l.columns);
          expect(positionName(l, parsed.row, parsed.column)).toBe(name.toUpperCase());
        }
      }),
    );
  });
});
