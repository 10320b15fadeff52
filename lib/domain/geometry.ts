// Labware grid geometry: how well/tube position names (A1, H12, P24) map to
// indexes. Pure and I/O-free so every layer (validation, storage, transfers)
// can share one definition of "a position".

export interface Layout {
  readonly size: number;
  readonly rows: number;
  readonly columns: number;
}

// Plates come in 96 and 384, and as strips of 8 (1 × 8) or 16 (2 × 8) wells
// (lib/domain/purposes.ts, the shapes); tube racks in 48 and 96. A 96 rack and
// a 96 plate share a grid, and no two shapes share a size, so size alone
// determines the layout.
const LAYOUTS: Readonly<Record<number, Layout>> = {
  8: { size: 8, rows: 1, columns: 8 },
  16: { size: 16, rows: 2, columns: 8 },
  48: { size: 48, rows: 6, columns: 8 },
  96: { size: 96, rows: 8, columns: 12 },
  384: { size: 384, rows: 16, columns: 24 },
};

export function layoutForSize(size: number): Layout | undefined {
  return Object.hasOwn(LAYOUTS, size) ? LAYOUTS[size] : undefined;
}

const A = 'A'.charCodeAt(0);

function inRange(value: number, limit: number): boolean {
  return Number.isInteger(value) && value >= 0 && value < limit;
}

/** Canonical name for 0-based row/column; throws if outside the layout (a caller bug). */
export function positionName(layout: Layout, rowIndex: number, columnIndex: number): string {
  if (!inRange(rowIndex, layout.rows) || !inRange(columnIndex, layout.columns)) {
    throw new RangeError(`position (${rowIndex}, ${columnIndex}) is outside a ${layout.size} layout`);
  }
  return `${String.fromCharCode(A + rowIndex)}${columnIndex + 1}`;
}

// One letter suffices: the largest layout (384) only reaches row P. Leading
// zeros are rejected so that every position has exactly one spelling.
const POSITION = /^([A-Za-z])([1-9][0-9]*)$/;

/** 0-based row/column for a name, or undefined for anything not on the grid. */
export function parsePosition(layout: Layout, name: string): { row: number; column: number } | undefined {
  if (typeof name !== 'string') return undefined;
  const match = POSITION.exec(name);
  if (!match) return undefined;
  const row = match[1]!.toUpperCase().charCodeAt(0) - A;
  const column = Number(match[2]) - 1;
  if (!inRange(row, layout.rows) || !inRange(column, layout.columns)) return undefined;
  return { row, column };
}

export function isValidPosition(layout: Layout, name: string): boolean {
  return parsePosition(layout, name) !== undefined;
}

// Indexes run in column order (A1, B1, … H1, A2, …) because that is the order
// liquid handlers work through a plate, so it is the natural storage order.

/** 0-based column-order index of a name, or undefined if not on the grid. */
export function positionIndex(layout: Layout, name: string): number | undefined {
  const position = parsePosition(layout, name);
  return position && position.column * layout.rows + position.row;
}

/** Canonical name at a 0-based column-order index, or undefined if out of range. */
export function positionAt(layout: Layout, index: number): string | undefined {
  if (!inRange(index, layout.size)) return undefined;
  return positionName(layout, index % layout.rows, Math.floor(index / layout.rows));
}

/** All names column by column: A1, B1, …, H1, A2, … */
export function columnOrder(layout: Layout): string[] {
  const names: string[] = [];
  for (let column = 0; column < layout.columns; column++) {
    for (let row = 0; row < layout.rows; row++) names.push(positionName(layout, row, column));
  }
  return names;
}

/** All names row by row: A1, A2, …, A12, B1, … */
export function rowOrder(layout: Layout): string[] {
  const names: string[] = [];
  for (let row = 0; row < layout.rows; row++) {
    for (let column = 0; column < layout.columns; column++) names.push(positionName(layout, row, column));
  }
  return names;
}
