/**
 * Item budgets: how much labware may hold, so that each labware stays one DynamoDB item (400 KB at
 * most). Past a budget a write is a 422 `too_large` naming it and the value, and nothing is written.
 */

/**
 * Plate sizes. 384 is the largest plate: a 1536-well plate is refused (a plate purpose of that size does
 * not load), since receptacle ids leave room for 999 slots per labware (lib/domain/labware-ids.ts) and an
 * empty 1536-well plate would already take ~50 KB of its item.
 */
export const PLATE_SIZES = [96, 384] as const;

/** Tube rack sizes (6 × 8 and 8 × 12 positions). */
export const RACK_SIZES = [48, 96] as const;

/**
 * The largest pool: aliquots one receptacle may hold. Four 384-well plates pooled into one tube, with
 * dual 10-base tags and one transfer request per source well, is ~300 KB of the item's 380 KB;
 * this bounds a tube's item below its limit whatever is pooled into it.
 */
export const MAX_ALIQUOTS_PER_RECEPTACLE = 1_536;
