import type { Receptacle } from '#lib/domain/labware.ts';
import { outcome, type Outcome } from '#lib/domain/problems.ts';

/**
 * Volume updates (the reference's VolumeUpdate): a change of volume applied to labware, as asset_audits
 * records a working dilution taken from its source plates. The reference's plate changes every well's
 * current volume by the change (Plate#update_volume), never below zero (Well#update_volume); a tube here
 * changes its one receptacle the same way. A rack holds tubes, no receptacle of its own: the reference has
 * no volume for it either (TubeRack has no update_volume), so it is refused.
 */

/** What kind of labware the change is asked of (its JSON:API type). */
export type VolumeTarget = 'plates' | 'tubes' | 'tube_racks';

/** A receptacle's volume after a change: the reference starts an unrecorded volume at 0 and never goes below 0. */
export const changedVolume = (volume: number | undefined, change: number): number => Math.max(0, (volume ?? 0) + change);

/** Every receptacle of the labware with its volume changed, or why the labware has none to change (input `target`). */
export function changeVolumes(kind: VolumeTarget, name: string, receptacles: readonly Receptacle[], change: number): Outcome<Receptacle[]> {
  const problems =
    kind === 'tube_racks'
      ? [{ code: 'wrong_labware' as const, input: ['target'], detail: `${name} is a tube rack; its tubes hold the volume, so update each tube` }]
      : [];
  return outcome(problems, () => receptacles.map((receptacle) => ({ ...receptacle, volume: changedVolume(receptacle.volume, change) })));
}
