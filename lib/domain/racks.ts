import { columnOrder, layoutForSize, positionIndex, type Layout } from '#lib/domain/geometry.ts';
import type { RackedTube } from '#lib/domain/labware.ts';
import { outcome, quoted, type Outcome, type Problem } from '#lib/domain/problems.ts';

/**
 * Tube racks: where tubes may go, and what a rack's state is. A tube is in one rack at most; the rack
 * records its tubes and each tube its rack.
 */

/**
 * A racked tube's slot (and so its id, lib/domain/labware-ids.ts) is its coordinate's place on the
 * 96-position grid, whatever the rack's size, so ids stay the same when a rack's size changes.
 */
const CANONICAL = layoutForSize(96)!;
export const rackSlot = (coordinate: string): number => positionIndex(CANONICAL, coordinate)! + 1;

/** A rack's state: `empty` without tubes, else its tubes' common state, or `mixed`. */
export function rackState(tubeStates: readonly string[]): string {
  const states = new Set(tubeStates);
  return states.size === 0 ? 'empty' : states.size === 1 ? [...states][0]! : 'mixed';
}

/** A tube to be placed, as the client named it: `key` is the coordinate as sent. */
export interface TubeLocation {
  key: string;
  uuid: string;
}

/** A tube location with its coordinate spelled as the rack spells it (upper case). */
export interface Placement extends TubeLocation {
  coordinate: string;
}

const at = (key: string, ...rest: string[]) => ['tube_locations', key, ...rest];

/** Where the client put a placement's coordinate and its tube (by default a rack's `tube_locations`: `{"A1": {"uuid": …}}`). */
export interface PlacementInputs {
  coordinate: (index: number, key: string) => string[];
  tube: (index: number, key: string) => string[];
}
const TUBE_LOCATIONS: PlacementInputs = { coordinate: (_, key) => at(key), tube: (_, key) => at(key, 'uuid') };

/**
 * Checks where tubes are to go in a rack with this layout: every key a coordinate of the rack (in any
 * case), each tube and each coordinate once. Tubes (uuids, or the barcodes of tubes still to be made)
 * are compared in lower case.
 */
export function planPlacements(layout: Layout, locations: readonly TubeLocation[], inputs: PlacementInputs = TUBE_LOCATIONS): Outcome<Placement[]> {
  const coordinates = columnOrder(layout);
  const problems: Problem[] = [];
  const placements = locations.map(({ key, uuid }) => ({ key, uuid: uuid.toLowerCase(), coordinate: coordinates.find((c) => c === key.toUpperCase()) }));
  const tubeAt = new Map<string, string>();
  for (const [i, { key, uuid, coordinate }] of placements.entries()) {
    if (!coordinate) {
      problems.push({
        code: 'not_a_coordinate',
        input: inputs.coordinate(i, key),
        detail: `${quoted(key)} is not a coordinate of a ${layout.size}-tube rack (A1 to ${coordinates.at(-1)})`,
      });
    }
    const earlier = tubeAt.get(uuid);
    if (earlier !== undefined)
      problems.push({ code: 'placed_twice', input: inputs.tube(i, key), detail: `tube ${uuid} is placed twice (${earlier} and ${key})` });
    tubeAt.set(uuid, key);
  }
  const taken = new Set<string>();
  for (const [i, { key, coordinate }] of placements.entries()) {
    if (coordinate && taken.has(coordinate))
      problems.push({ code: 'coordinate_twice', input: inputs.coordinate(i, key), detail: `${coordinate} is given twice` });
    if (coordinate) taken.add(coordinate);
  }
  return outcome(problems, () => placements.map((p) => ({ ...p, coordinate: p.coordinate! })));
}

/** A tube as placing it needs it: its id, its uuid, and the rack it is in (if any). */
export interface RackableTube {
  id: number;
  uuid: string;
  rack: number | null;
}

/** The tubes a new rack holds once placed (`tubes[i]` is the tube of `placements[i]`); refused for any tube already in a rack. */
export function placeTubes(placements: readonly Placement[], tubes: readonly RackableTube[]): Outcome<RackedTube[]> {
  const problems = placements.flatMap(({ key }, i): Problem[] => {
    const { uuid, rack } = tubes[i]!;
    return rack !== null ? [{ code: 'already_racked', input: at(key, 'uuid'), detail: `tube ${uuid} is already in tube rack ${rack}` }] : [];
  });
  return outcome(problems, () => placements.map(({ coordinate }, i) => ({ coordinate, tube: tubes[i]!.id })));
}

/** A rack's size may change only to one in which every tube's coordinate exists. */
export function resizeRack(racked: readonly RackedTube[], layout: Layout): Outcome<number> {
  const outside = racked.filter((t) => positionIndex(layout, t.coordinate) === undefined).map((t) => t.coordinate);
  return outcome(
    outside.length === 0 ? [] : [{ code: 'does_not_fit', input: ['size'], detail: `${layout.size} does not fit the rack's tubes at ${outside.join(', ')}` }],
    () => layout.size,
  );
}

/** An existing tube a new rack is to hold, found by the barcode given at `input`: its rack (if any), its purpose, and the purpose named for it. */
export interface TakenTube {
  input: readonly string[];
  id: number;
  rack: number | null;
  purpose: number | null;
  named: number;
}

/** Existing tubes a rack creation racks as they are: none already in a rack, each of the purpose named for it. */
export function takeTubes(tubes: readonly TakenTube[]): Outcome<void> {
  const problems = tubes.flatMap(({ input, id, rack, purpose, named }): Problem[] => {
    if (rack !== null) return [{ code: 'already_racked', input, detail: `tube ${id} is already in tube rack ${rack}` }];
    if (purpose !== named) return [{ code: 'wrong_labware', input, detail: `tube ${id} is of purpose ${purpose}, not of the purpose named for it (${named})` }];
    return [];
  });
  return outcome(problems, () => undefined);
}
