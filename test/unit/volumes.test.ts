import { describe, expect, it } from 'vitest';
import { emptyReceptacle } from '#lib/domain/labware.ts';
import { changedVolume, changeVolumes } from '#lib/domain/volumes.ts';

/** The reference's Well#update_volume and Plate#update_volume (sanger/sequencescape app/models/well.rb, plate.rb). */
describe('changedVolume', () => {
  it('starts an unrecorded volume at 0 and never goes below 0', () => {
    expect(changedVolume(undefined, 5)).toBe(5);
    expect(changedVolume(10, -2.5)).toBe(7.5);
    expect(changedVolume(1, -3)).toBe(0);
    expect(changedVolume(undefined, -1)).toBe(0);
  });
});

describe('changeVolumes', () => {
  it('changes every receptacle of a plate, keeping the rest of each', () => {
    const receptacles = [{ ...emptyReceptacle(), volume: 4 }, emptyReceptacle(), { ...emptyReceptacle(), state: 'passed' as const }];
    const result = changeVolumes('plates', 'plates 1', receptacles, 2);
    expect(result).toEqual({
      ok: true,
      value: [
        { ...receptacles[0], volume: 6 },
        { ...receptacles[1], volume: 2 },
        { ...receptacles[2], volume: 2 },
      ],
    });
    // The receptacles given are not changed.
    expect(receptacles[0]!.volume).toBe(4);
  });

  it("changes a tube's one receptacle", () => {
    expect(changeVolumes('tubes', 'tubes 2', [emptyReceptacle()], -1)).toEqual({ ok: true, value: [{ ...emptyReceptacle(), volume: 0 }] });
  });

  it('refuses a rack, naming it: its tubes hold the volume', () => {
    expect(changeVolumes('tube_racks', 'tube_racks 3', [], 1)).toEqual({
      ok: false,
      problems: [{ code: 'wrong_labware', input: ['target'], detail: 'tube_racks 3 is a tube rack; its tubes hold the volume, so update each tube' }],
    });
  });
});
