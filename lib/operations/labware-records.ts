import { slotId } from '#lib/domain/labware-ids.ts';
import type { Labware } from '#lib/domain/labware.ts';
import { refsOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * A labware record as the operations read it, and the definitions and views built on them
 * (lib/resources/labware-views.ts): the aggregate (lib/domain/labware.ts) is its attributes, its receptacles
 * are named by their type and their ids derived from its id (lib/domain/labware-ids.ts), and it stores its
 * parents (lib/domain/lineage.ts).
 */

export const labwareAttrs = (record: StoredRecord): Labware => record.attrs as unknown as Labware;

/** The receptacle type of a labware type: plates hold wells, tubes one receptacle. */
export const receptacleType = (labwareType: string): string => (labwareType === 'plates' ? 'wells' : 'receptacles');

export function receptacleRefs(record: StoredRecord): Ref[] {
  const type = receptacleType(record.type);
  return labwareAttrs(record).receptacles.map((_, i) => ({ type, id: slotId(record.id, i + 1) }));
}

export const parentsOf = (record: StoredRecord | undefined): Ref[] => refsOf(record?.rels.parents);
