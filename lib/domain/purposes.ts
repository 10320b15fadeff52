/**
 * Purposes as a lab's pipeline application registers them (sanger/limber's `rake config:generate`,
 * contract §6): what each kind takes, its defaults, and which values make sense together. Pure.
 */

/**
 * Plate shapes (the reference's asset shapes) and the sizes each comes in. Only the shapes whose wells are
 * named by coordinate (A1, B1, …) are served; the reference's sequentially numbered ones (Fluidigm96,
 * Fluidigm192, StripTubeColumn) are refused. No two shapes share a size, so a plate's size is its layout
 * (lib/domain/geometry.ts).
 */
export const PLATE_SHAPES = { Standard: [96, 384], Shape4x1: [16], Shape8x1: [8] } as const satisfies Record<string, readonly number[]>;
export type PlateShape = keyof typeof PLATE_SHAPES;
export const PLATE_SHAPE_NAMES = Object.keys(PLATE_SHAPES) as PlateShape[];

const sizesOf = (shape: PlateShape): readonly number[] => PLATE_SHAPES[shape];

/** The shape a plate purpose of this size has when none is named: the one shape of that size. */
export const shapeOfSize = (size: number): PlateShape | undefined => PLATE_SHAPE_NAMES.find((shape) => sizesOf(shape).includes(size));

/** Why a size does not fit a shape (a `size` message), or undefined when it does. */
export function shapeSizeProblem(shape: PlateShape, size: number): string | undefined {
  const sizes = sizesOf(shape);
  return sizes.includes(size) ? undefined : `size - a ${shape} plate has ${sizes.join(' or ')} wells, got ${size}`;
}

/** The reference's tube classes (`target_type` of a tube purpose: what kind of tube it makes). */
export const TUBE_TARGET_TYPES = [
  'Tube',
  'SampleTube',
  'LibraryTube',
  'StockLibraryTube',
  'MultiplexedLibraryTube',
  'StockMultiplexedLibraryTube',
  'PacBioLibraryTube',
  'PulldownMultiplexedLibraryTube',
  'QcTube',
  'SpikedBuffer',
] as const;

/** The reference's one tube rack purpose class and the one class of rack it makes. */
export const RACK_PURPOSE_CLASSES = ['TubeRack::Purpose'] as const;
export const RACK_TARGET_TYPES = ['TubeRack'] as const;

/**
 * What a purpose is when the registration leaves it out, by kind: as the reference defaults them (plate
 * purposes neither stock nor input nor cherrypickable, 96 wells; a plain `Tube::Purpose`; racks of 96), and
 * the barcode prefix each kind's labware takes (reference-behaviour.md §5).
 */
export const PURPOSE_DEFAULTS = {
  plate_purposes: { stock_plate: false, cherrypickable_target: false, input_plate: false, size: 96, barcode_prefix: 'DN' },
  tube_purposes: { purpose_type: 'Tube::Purpose', barcode_prefix: 'NT' },
  tube_rack_purposes: { size: 96, target_type: 'TubeRack', purpose_type: 'TubeRack::Purpose', barcode_prefix: 'TR' },
} as const;
