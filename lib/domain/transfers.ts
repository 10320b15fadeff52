import { layoutForSize, positionAt, positionIndex, type Layout } from '#lib/domain/geometry.ts';
import type { Receptacle } from '#lib/domain/labware.ts';
import { outcome, quoted, refuse, type Outcome, type Problem } from '#lib/domain/problems.ts';

/**
 * Transfers (reference-behaviour.md §4.1, contract §2): which source receptacle's material goes where, for
 * each of the ten transfer types. The planner is pure: it sees the source's receptacles, the kind and size
 * of the destination and the transfer map, and answers the moves to make and what the transfer records,
 * or every problem it found. Each type is a row of TRANSFER_TABLE (at the end); the moves it yields go to
 * the one planner of material moves (lib/domain/material-moves.ts), which records the transfer requests
 * and copies the aliquots. Finding or creating the tubes of pools and storing the result are the resource's.
 */

export const TRANSFER_TYPES = [
  'Transfer::BetweenPlateAndTubes',
  'Transfer::BetweenPlatesBySubmission',
  'Transfer::BetweenPlates',
  'Transfer::BetweenSpecificTubes',
  'Transfer::BetweenTubesBySubmission',
  'Transfer::FromPlateToSpecificTubesByPool',
  'Transfer::FromPlateToSpecificTubes',
  'Transfer::FromPlateToTubeByMultiplex',
  'Transfer::FromPlateToTubeBySubmission',
  'Transfer::FromPlateToTube',
] as const;
export type TransferType = (typeof TRANSFER_TYPES)[number];

/** A plate-to-plate map: source well name → destination well name or names. */
export type TransferMap = Record<string, string | string[]>;

/** One receptacle of the source as the planner sees it (in slot order). */
export interface SourceReceptacle {
  /** 1-based; column order for plates; 1 for a tube. */
  slot: number;
  /** Position name of a well (`A1`); for a tube's receptacle: the tube's name or ''. */
  name: string;
  /** How many aliquots it holds. */
  aliquots: number;
  /** Its derived state (lib/domain/labware.ts `receptacleState`). */
  state: string;
  /** The well's pool: a submission id, or null. */
  pool: number | null;
}

/** A labware's kind and size (1 for a tube). */
export interface LabwareAt {
  kind: 'plate' | 'tube';
  size: number;
}

/** Where one source receptacle's material goes: a slot of the destination labware, or the tube of a pool (submission) which the resource finds or creates. */
export type Move = { source: number; into: { slot: number } } | { source: number; into: { pool: number } };

export interface TransferPlan {
  /** One per (source receptacle, destination receptacle) pair, in source column order. */
  moves: Move[];
  /**
   * What the transfer records as `transfers`: BetweenPlates the map pruned to the good source wells used;
   * BetweenPlatesBySubmission the computed map source well → destination well; FromPlateToTube the array of good
   * well names used; FromPlateToTubeBySubmission / ByMultiplex: an object keyed by source well name → the pool id
   * (the resource replaces each pool id with the tube summary); tube types: null.
   */
  recorded: TransferMap | string[] | Record<string, number> | null;
}

type Kind = LabwareAt['kind'];

/** How the tubes a type fills are named (reference §4.1): after the source wells' range, after the source tube, or not renamed. */
export type TubeNaming = 'after wells' | 'after source tube' | 'none';

/**
 * A transfer type, as a row of TRANSFER_TABLE: out of which kind of labware, into which (a destination the
 * client names), or into the tubes of pools the resource finds (`pool`); its planner, which yields the
 * moves; how the tubes it fills are named; and whether the one pool tube it fills is the transfer's
 * destination. Two types need a list of target tubes (`targets`) that the interface does not expose, and one
 * is the abstract parent of the plate-to-tubes family; neither can be used here (contract §2).
 */
type Row =
  | { use: 'abstract' }
  | { use: 'targets' }
  | { use: 'plan'; source: Kind; destination: Kind | 'pool'; plan: Planner; naming: TubeNaming; poolTubeIsDestination?: true };

function rowOf(type: TransferType): Row {
  const row = Object.hasOwn(TRANSFER_TABLE, type) ? TRANSFER_TABLE[type] : undefined;
  if (!row) throw new RangeError(`${String(type)} is not a transfer type`);
  return row;
}

/** "Good" source receptacle = has aliquots, not failed, not cancelled (reference §4.1). */
export function isGoodSource(r: SourceReceptacle): boolean {
  return r.aliquots > 0 && r.state !== 'failed' && r.state !== 'cancelled';
}

/** Types that require a named destination (the "known destination" types). */
export function needsDestination(type: TransferType): boolean {
  const row = rowOf(type);
  return row.use === 'plan' && row.destination !== 'pool';
}

/** How a type names the tubes it fills. */
export function tubeNaming(type: TransferType): TubeNaming {
  const row = rowOf(type);
  return row.use === 'plan' ? row.naming : 'none';
}

/**
 * The name a labware the transfer filled takes (reference §4.1), or undefined to leave it: a tube filled
 * from plate wells after the plate and the wells' range, a tube filled from a tube after that tube.
 */
export function filledName(type: TransferType, wells: readonly string[], source: { barcode: string; size: number; name: string | null }): string | undefined {
  const naming = tubeNaming(type);
  if (naming === 'after wells' && wells.length > 0) return poolTubeName(source.barcode, wells, source.size);
  if (naming === 'after source tube' && source.name) return source.name;
  return undefined;
}

/** Whether the transfer records the pool tube it filled as its destination (a tube pooled into its submission's tube). */
export const poolTubeIsDestination = (type: TransferType): boolean => {
  const row = rowOf(type);
  return row.use === 'plan' && row.poolTubeIsDestination === true;
};

/**
 * A known destination takes material from one source once (reference-behaviour.md §4.1): refused when any
 * transfer request into it already comes out of one of `sourceReceptacles` (their ids).
 */
export function transferredOnce(
  type: TransferType,
  destination: { name: string; receptacles: readonly Pick<Receptacle, 'transfers'>[] },
  source: { name: string; receptacles: ReadonlySet<number> },
): Problem[] {
  if (!needsDestination(type)) return [];
  const again = destination.receptacles.some((r) => (r.transfers ?? []).some((t) => source.receptacles.has(t.source)));
  return again
    ? [
        {
          code: 'transferred_twice',
          input: ['destination'],
          detail: `can only be transferred to once from the source: ${destination.name} already holds material of ${source.name}`,
        },
      ]
    : [];
}

/** Name of a tube filled by pooling wells of a plate: `<plate human barcode> <first well>:<last well>`, first/last in column order of the wells given (contract §2). */
export function poolTubeName(plateBarcode: string, wellNames: readonly string[], size: number): string {
  const layout = layoutForSize(size);
  // Names that are not positions of the plate (a caller's slip) sort last rather than vanish.
  const order = (name: string) => (layout && positionIndex(layout, name)) ?? Number.MAX_SAFE_INTEGER;
  const sorted = [...wellNames].sort((a, b) => order(a) - order(b));
  // With no wells the range is empty (`DN1S :`), as the reference names a tube whose wells were all skipped.
  return `${plateBarcode} ${sorted[0] ?? ''}:${sorted.at(-1) ?? ''}`;
}

/** The planner's view of one transfer, its labware already checked for kind (null when missing or of the wrong kind). */
interface Context {
  type: TransferType;
  source: { layout: Layout | undefined; receptacles: SourceReceptacle[] } | null;
  destination: { size: number; layout: Layout | undefined } | null;
  transfers: unknown;
  clientTransfers: boolean;
}

/** A type's planner: it adds the problems it finds, and answers how to make the plan once there are none. */
type Planner = (context: Context, problems: Problem[]) => (() => TransferPlan) | undefined;

export function planTransfer(input: {
  type: TransferType;
  source: LabwareAt & { receptacles: SourceReceptacle[] };
  /** The destination labware, or null when none was named. */
  destination: LabwareAt | null;
  /** The template's own map when it has one, else what the client sent as `transfers` (undefined when not sent). */
  transfers: unknown;
  /** True when `transfers` comes from the client (a template's own map always wins and is never refused as "cannot be assigned"). */
  clientTransfers: boolean;
}): Outcome<TransferPlan> {
  const { type, source, destination } = input;
  const shape = rowOf(type);
  if (shape.use === 'abstract') {
    return refuse([
      {
        code: 'abstract_type',
        input: ['transfer_template_uuid'],
        detail: `names a template of ${type}, the abstract parent of the plate-to-tubes transfer types, which cannot be used directly`,
      },
    ]);
  }
  if (shape.use === 'targets') {
    return refuse([
      {
        code: 'needs_targets',
        input: ['transfer_template_uuid'],
        detail: `names a template of ${type}, which needs a list of target tubes (targets) that this API does not accept, so it cannot be used`,
      },
    ]);
  }

  const problems: Problem[] = [];
  const wrongKind = (at: 'source' | 'destination', given: Kind, needed: Kind): Problem => ({
    code: 'wrong_labware',
    input: [at],
    detail: `is a ${given}, but ${type} moves material ${at === 'source' ? 'out of' : 'into'} a ${needed}`,
  });
  if (source.kind !== shape.source) problems.push(wrongKind('source', source.kind, shape.source));
  // A destination of the pool types is found from the source's pools; one the client names is not used (reference §4.1).
  if (shape.destination !== 'pool') {
    if (!destination) problems.push({ code: 'blank', input: ['destination'], detail: "can't be blank" });
    else if (destination.kind !== shape.destination) problems.push(wrongKind('destination', destination.kind, shape.destination));
  }
  const context: Context = {
    type,
    source: source.kind === shape.source ? { layout: plateLayout(source), receptacles: [...source.receptacles].sort((a, b) => a.slot - b.slot) } : null,
    destination: destination && destination.kind === shape.destination ? { size: destination.size, layout: plateLayout(destination) } : null,
    transfers: input.transfers,
    clientTransfers: input.clientTransfers,
  };
  const plan = shape.plan(context, problems);
  return outcome(problems, () => {
    if (!plan) throw new Error(`the ${type} planner found no problem but made no plan`);
    return plan();
  });
}

/** A plate's grid (undefined for a tube); a plate of a size without one is a caller's mistake (plates are 96 or 384). */
function plateLayout(labware: LabwareAt): Layout | undefined {
  if (labware.kind !== 'plate') return undefined;
  const layout = layoutForSize(labware.size);
  if (!layout) throw new RangeError(`a plate of size ${labware.size} has no layout`);
  return layout;
}

/** The 1-based slot of a position name as the plate spells it (`A1`, not `a1`), or undefined. */
function slotNamed(layout: Layout | undefined, name: unknown): number | undefined {
  if (!layout || typeof name !== 'string') return undefined;
  const index = positionIndex(layout, name);
  return index !== undefined && positionAt(layout, index) === name ? index + 1 : undefined;
}

/** A value as a detail names it: a plain short name as it is, anything else quoted. */
function shown(value: unknown): string {
  if (typeof value === 'string' && /^[A-Za-z0-9]{1,12}$/.test(value)) return value;
  return quoted(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
}

/** The reference's wording for names that are not positions of a plate: each once, sorted. */
function invalidPositions(values: readonly unknown[], layout: Layout | undefined, plate: 'source' | 'destination'): Problem[] {
  const invalid = [...new Set(values.filter((v) => slotNamed(layout, v) === undefined).map(shown))].sort();
  return invalid.length === 0
    ? []
    : [{ code: 'not_a_position', input: ['transfers'], detail: `${invalid.join(', ')} are not valid positions for the ${plate} plate` }];
}

/** Rails' `present?`: not null, not false, not a blank string, not an empty array or object. */
function isPresent(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Types that compute where material goes refuse a map from the client, as the reference does for the
 * by-submission and plate-to-tubes types (`cannot be assigned`) — an empty one is no map, and a
 * template's own map is not the client's.
 */
function refuseClientTransfers(context: Context, problems: Problem[], why: string): void {
  if (context.clientTransfers && isPresent(context.transfers)) {
    problems.push({ code: 'not_assignable', input: ['transfers'], detail: `cannot be assigned: ${context.type} ${why}` });
  }
}

/**
 * BetweenPlates: the map's keys are source wells, each value a destination well or an array of them (a
 * re-pool). Every good listed source well goes to each of its destination wells; the map is recorded
 * pruned to those wells.
 */
const betweenPlates: Planner = ({ source, destination, transfers }, problems) => {
  if (transfers === undefined || transfers === null) {
    problems.push({
      code: 'blank',
      input: ['transfers'],
      detail: "can't be blank: the template has no transfer map, so send a map from source to destination location",
    });
    return undefined;
  }
  if (!isMap(transfers)) {
    problems.push({ code: 'not_a_map', input: ['transfers'], detail: 'must be a map from source to destination location' });
    return undefined;
  }
  const entries = Object.entries(transfers);
  if (entries.length === 0) {
    problems.push({ code: 'blank', input: ['transfers'], detail: "can't be blank: name at least one source well" });
    return undefined;
  }
  if (source) problems.push(...invalidPositions(Object.keys(transfers), source.layout, 'source'));
  // A value is a well name or an array of them; anything else is reported as a name that is no position.
  const named = entries.flatMap(([, v]) => (Array.isArray(v) ? v : [v]));
  if (destination) problems.push(...invalidPositions(named, destination.layout, 'destination'));
  if (!source || !destination) return undefined;
  return () => {
    const map = transfers as TransferMap;
    const used = source.receptacles.filter((r) => Object.hasOwn(map, r.name) && isGoodSource(r));
    const moves = used.flatMap((r) =>
      [...new Set(([] as string[]).concat(map[r.name]!))].map((name): Move => ({ source: r.slot, into: { slot: slotNamed(destination.layout, name)! } })),
    );
    const names = new Set(used.map((r) => r.name));
    return { moves, recorded: Object.fromEntries(entries.filter(([name]) => names.has(name))) as TransferMap };
  };
};

/**
 * BetweenPlatesBySubmission: the source wells that have a pool, grouped by pool in column order (the
 * order each pool's first well comes in); group n goes to the n-th destination well in column order. As
 * in the reference, the groups are made of every pooled well and only then are the bad wells left out, so
 * a pool whose wells are all bad still takes its destination well (which stays empty).
 */
const betweenPlatesBySubmission: Planner = (context, problems) => {
  refuseClientTransfers(context, problems, 'computes where each well goes from its pool');
  const { source, destination } = context;
  if (!source) return undefined;
  const group = new Map<number, number>();
  for (const r of source.receptacles) if (r.pool !== null && !group.has(r.pool)) group.set(r.pool, group.size);
  if (destination && group.size > destination.size) {
    problems.push({
      code: 'no_destination_well',
      input: ['destination'],
      detail: `has ${destination.size} wells, fewer than the ${group.size} pools (submissions) of the source plate, each of which goes to a well of its own`,
    });
  }
  if (!destination) return undefined;
  return () => {
    const moves: Move[] = [];
    const recorded: Record<string, string> = {};
    for (const r of source.receptacles) {
      if (r.pool === null || !isGoodSource(r)) continue;
      const index = group.get(r.pool)!;
      moves.push({ source: r.slot, into: { slot: index + 1 } });
      recorded[r.name] = positionAt(destination.layout!, index)!;
    }
    return { moves, recorded };
  };
};

/**
 * FromPlateToTube: `transfers` lists source wells (all of them when absent); every good listed well goes
 * into the tube, and the list is recorded without the wells left out (in the order given).
 */
const fromPlateToTube: Planner = ({ source, transfers }, problems) => {
  let listed: unknown[] | undefined;
  if (transfers === undefined || transfers === null) {
    listed = source?.receptacles.map((r) => r.name);
  } else if (!Array.isArray(transfers)) {
    problems.push({ code: 'not_a_list', input: ['transfers'], detail: 'must be an array of well positions' });
  } else if (transfers.length === 0) {
    problems.push({ code: 'blank', input: ['transfers'], detail: "can't be blank: name at least one source well" });
  } else {
    listed = transfers;
    if (source) problems.push(...invalidPositions(transfers, source.layout, 'source'));
  }
  if (!source || !listed) return undefined;
  const names = listed as string[];
  return () => {
    const wanted = new Set(names);
    const used = source.receptacles.filter((r) => wanted.has(r.name) && isGoodSource(r));
    const good = new Set(used.map((r) => r.name));
    return {
      moves: used.map((r): Move => ({ source: r.slot, into: { slot: 1 } })),
      recorded: [...new Set(names)].filter((name) => good.has(name)),
    };
  };
};

/**
 * FromPlateToTubeBySubmission: every good well that has a pool goes into the tube of its pool; wells
 * without a pool stay. Recorded as source well → pool, which the resource renders as the tube's summary.
 */
const fromPlateToTubeBySubmission: Planner = (context, problems) => {
  refuseClientTransfers(context, problems, 'computes which tube each well goes to from its pool');
  const { source } = context;
  if (!source) return undefined;
  return () => {
    const used = source.receptacles.filter((r): r is SourceReceptacle & { pool: number } => r.pool !== null && isGoodSource(r));
    return {
      moves: used.map((r): Move => ({ source: r.slot, into: { pool: r.pool } })),
      recorded: Object.fromEntries(used.map((r) => [r.name, r.pool])),
    };
  };
};

/**
 * FromPlateToTubeByMultiplex: in the reference each well goes to the still-empty target tube of its
 * multiplexing request. This service has no multiplexing target tubes of their own: the tube of a pool is
 * the one tube of its submission (contract §2), so the type plans as FromPlateToTubeBySubmission does.
 */
const fromPlateToTubeByMultiplex: Planner = fromPlateToTubeBySubmission;

/** The one receptacle of a source tube, if the tube has it and it is good. */
const goodTube = (source: NonNullable<Context['source']>): SourceReceptacle | undefined => source.receptacles.find(isGoodSource);

/** BetweenSpecificTubes: the source tube into the destination tube; nothing recorded. */
const betweenSpecificTubes: Planner = (context, problems) => {
  refuseClientTransfers(context, problems, 'records no transfers');
  const { source, destination } = context;
  if (!source || !destination) return undefined;
  return () => {
    const tube = goodTube(source);
    return { moves: tube ? [{ source: tube.slot, into: { slot: 1 } }] : [], recorded: null };
  };
};

/** BetweenTubesBySubmission: the source tube into the tube of its pool (its submission); nothing recorded. */
const betweenTubesBySubmission: Planner = (context, problems) => {
  refuseClientTransfers(context, problems, 'records no transfers');
  const { source } = context;
  if (!source) return undefined;
  const pool = source.receptacles[0]?.pool ?? null;
  if (pool === null) {
    problems.push({ code: 'no_pool', input: ['source'], detail: 'has no submission, so the tube of its pool (the destination) could not be found' });
    return undefined;
  }
  return () => {
    const tube = goodTube(source);
    return { moves: tube ? [{ source: tube.slot, into: { pool } }] : [], recorded: null };
  };
};

/** The ten transfer types: what each moves, and how (see Row). Adding a type is adding a row. */
const TRANSFER_TABLE: Readonly<Record<TransferType, Row>> = {
  'Transfer::BetweenPlateAndTubes': { use: 'abstract' },
  'Transfer::BetweenPlatesBySubmission': { use: 'plan', source: 'plate', destination: 'plate', plan: betweenPlatesBySubmission, naming: 'none' },
  'Transfer::BetweenPlates': { use: 'plan', source: 'plate', destination: 'plate', plan: betweenPlates, naming: 'none' },
  'Transfer::BetweenSpecificTubes': { use: 'plan', source: 'tube', destination: 'tube', plan: betweenSpecificTubes, naming: 'after source tube' },
  'Transfer::BetweenTubesBySubmission': {
    use: 'plan',
    source: 'tube',
    destination: 'pool',
    plan: betweenTubesBySubmission,
    naming: 'after source tube',
    poolTubeIsDestination: true,
  },
  'Transfer::FromPlateToSpecificTubesByPool': { use: 'targets' },
  'Transfer::FromPlateToSpecificTubes': { use: 'targets' },
  'Transfer::FromPlateToTubeByMultiplex': { use: 'plan', source: 'plate', destination: 'pool', plan: fromPlateToTubeByMultiplex, naming: 'after wells' },
  'Transfer::FromPlateToTubeBySubmission': { use: 'plan', source: 'plate', destination: 'pool', plan: fromPlateToTubeBySubmission, naming: 'after wells' },
  'Transfer::FromPlateToTube': { use: 'plan', source: 'plate', destination: 'tube', plan: fromPlateToTube, naming: 'after wells' },
};
