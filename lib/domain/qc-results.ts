import { ITEM_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { layoutForSize, positionIndex, positionName } from '#lib/domain/geometry.ts';
import { receptacleAt, withReceptacle, type Labware } from '#lib/domain/labware.ts';
import { ok, quoted, refuse, type Outcome } from '#lib/domain/problems.ts';

/**
 * QC results: measurements of a well, a tube or a plate (concentration, volume, …), recorded together as
 * a QC assay. They live inside the labware they measure — on the receptacle measured, or on the labware
 * itself for a plate measured as a whole — so a plate-reader upload of a whole plate is one write of the
 * plate, and reading a plate's wells with their results reads nothing more.
 */
export interface QcResult {
  /** Counts the QC results its labware ever held; the result's id derives from it (lib/domain/labware-ids.ts). */
  n: number;
  /** The id of the QC assay that recorded it. */
  assay: number;
  key: string;
  value: string;
  units: string;
  cv: string | null;
  assay_type: string | null;
  assay_version: string | null;
  created_at: string;
}

/** A result before its labware numbers it. */
export type QcResultContent = Omit<QcResult, 'n'>;

/** What holds QC results: plates hold them in wells or on themselves, tubes in their receptacle; racks none (their tubes do). */
export type QcHolderKind = 'plate' | 'tube' | 'rack';

/** Where a result goes inside its labware: a receptacle's slot, or `null` for the labware itself. */
export type QcSlot = number | null;

/** What the QC rules read and change of a labware. */
export type QcContents = Pick<Labware, 'receptacles' | 'qc_results' | 'qcResultCount' | 'size'>;

/**
 * Where a result measured on a labware goes: with a well location, that well of a plate; without one, a
 * tube's receptacle or the plate itself. `name` is how problems call the labware (`plates 12`);
 * problems name the input `well_location`, or `labware` when the labware itself cannot hold it.
 */
export function qcSlot(kind: QcHolderKind, labware: QcContents, name: string, wellLocation: string | undefined): Outcome<QcSlot> {
  if (kind === 'rack') return refuse([{ code: 'holds_no_qc_results', input: ['labware'], detail: `${name} is a tube rack: QC results go to its tubes` }]);
  if (wellLocation === undefined) return ok(kind === 'tube' ? 1 : null);
  const layout = kind === 'plate' && labware.size !== undefined ? layoutForSize(labware.size) : undefined;
  if (!layout) return refuse([{ code: 'not_a_plate', input: ['well_location'], detail: `${name} is not a plate, so it has no well ${quoted(wellLocation)}` }]);
  const index = positionIndex(layout, wellLocation);
  if (index === undefined) {
    return refuse([
      {
        code: 'not_a_coordinate',
        input: ['well_location'],
        detail: `${name} has no well ${quoted(wellLocation)} (a ${layout.size}-well plate: A1 to ${positionName(layout, layout.rows - 1, layout.columns - 1)})`,
      },
    ]);
  }
  return ok(index + 1);
}

/** JSON bytes of a labware's aggregate: the part of its record QC results make grow. */
const aggregateBytes = (labware: QcContents): number => Buffer.byteLength(JSON.stringify(labware), 'utf8');

/**
 * Records results in a labware, numbered on from its count, each on its slot. Refused (`over_budget`
 * on `labware`) when the labware's record would pass ITEM_SIZE_LIMIT: a labware holds as many results
 * as fit in its one item.
 */
export function addQcResults<L extends QcContents>(labware: L, name: string, added: readonly { slot: QcSlot; result: QcResultContent }[]): Outcome<L> {
  let next: L = labware;
  let count = labware.qcResultCount ?? 0;
  for (const { slot, result } of added) {
    const numbered: QcResult = { n: ++count, ...result };
    if (slot === null) next = { ...next, qc_results: [...(next.qc_results ?? []), numbered] };
    else {
      const receptacle = receptacleAt(next, slot);
      next = withReceptacle(next, slot, { ...receptacle, qc_results: [...(receptacle.qc_results ?? []), numbered] });
    }
  }
  next = { ...next, qcResultCount: count };
  const bytes = aggregateBytes(next);
  if (bytes > ITEM_SIZE_LIMIT) {
    return refuse([
      {
        code: 'over_budget',
        input: ['labware'],
        detail: `${name} would be ${bytes} bytes with ${added.length} more QC results (${count} in all); a labware record may be at most ${ITEM_SIZE_LIMIT} bytes`,
      },
    ]);
  }
  return ok(next);
}
