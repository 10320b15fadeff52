import { outcome, quoted, type Outcome, type Problem } from '#lib/domain/problems.ts';

/**
 * Bait library layouts (the reference's BaitLibraryLayout): which capture bait each well of a plate gets,
 * from what its work asks for. A well that is pooled (its material is worked on for a submission) takes
 * the bait library that its aliquots' requests of that submission name; the layout records, for each bait
 * library, the wells it went into.
 */

/** A well as the layout sees it. */
export interface BaitWell {
  /** Its position (`A1`): the layout names wells by it. */
  position: string;
  /** The submission its material is worked on for (its pool), or null: a well not pooled takes no bait. */
  pool: number | null;
  /** The requests its aliquots are bound for: their submission, and the bait library they name (null when none). */
  requests: readonly { submission: number | null; bait: string | null }[];
}

/**
 * The bait library name of each well (null where none), or the problems: a pooled well whose requests name
 * several bait libraries (the reference refuses it too), or none, or one that `known` lacks. Wells without
 * aliquots take nothing. Problems concern the input `plate`; `plate` names it in details.
 */
export function layBaits(wells: readonly BaitWell[], known: ReadonlySet<string>, plate: string): Outcome<(string | null)[]> {
  const problems: Problem[] = [];
  const problem = (detail: string) => problems.push({ code: 'no_bait_library', input: ['plate'], detail });
  const baits = wells.map(({ position, pool, requests }) => {
    if (pool === null || requests.length === 0) return null;
    const named = [...new Set(requests.filter((r) => r.submission === pool && r.bait !== null).map((r) => r.bait!))];
    if (named.length > 1) problem(`multiple bait libraries found for ${position} on ${plate}: ${named.map(quoted).join(', ')}`);
    else if (named.length === 0) problem(`${position} on ${plate} is pooled for submission ${pool}, but its requests there name no bait library`);
    else if (!known.has(named[0]!)) problem(`${position} on ${plate}: its requests ask for bait library ${quoted(named[0]!)}, which is no bait library`);
    return named[0] ?? null;
  });
  return outcome(problems, () => baits);
}

/** The layout as the reference records it: each bait library name with the wells it went into, in well order. */
export function baitLayout(wells: readonly BaitWell[], baits: readonly (string | null)[]): Record<string, string[]> {
  const layout: Record<string, string[]> = {};
  baits.forEach((bait, i) => {
    if (bait !== null) layout[bait] = [...(layout[bait] ?? []), wells[i]!.position];
  });
  return layout;
}

/** The same layout by well (the reference's `well_layout`, what a preview answers): position → bait library name. */
export const wellLayout = (layout: Readonly<Record<string, readonly string[]>>): Record<string, string> =>
  Object.fromEntries(Object.entries(layout).flatMap(([bait, positions]) => positions.map((position) => [position, bait])));
