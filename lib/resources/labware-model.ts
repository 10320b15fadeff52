import { decodeBarcode, encodeBarcode } from '#lib/domain/barcode.ts';
import { aliquotId, slotId, slotUuid } from '#lib/domain/labware-ids.ts';
import { layoutForSize, positionAt } from '#lib/domain/geometry.ts';
import type { Ref, StoredRecord } from '#lib/store/records.ts';

/**
 * How labware is stored: one item per plate, tube or rack holding its receptacles and their aliquots
 * (see lib/domain/labware-ids.ts for the ids of what is inside), so creating a 384-well plate or
 * pooling a plate into a tube rewrites one item.
 */
export interface StoredAliquot {
  /** Counts the aliquots this labware ever held; the aliquot id derives from it. */
  n: number;
  sample: number;
  study: number | null;
  tag: { oligo: string; index: number } | null;
  tag2: { oligo: string; index: number } | null;
  library_type: string | null;
}

export interface LabwareBarcode {
  human_barcode: string;
  machine_barcode: string | null;
  ean13_barcode: string | null;
  /** Given by the client rather than generated. */
  external: boolean;
}

export interface LabwareAttrs {
  name: string | null;
  barcode: LabwareBarcode;
  state: string;
  /** Plates and racks. */
  size?: number;
  /** One list of aliquots per receptacle slot (wells in column order; a tube has one). */
  receptacles: StoredAliquot[][];
  /** Aliquots ever added, for their ids. */
  aliquotCount: number;
  /** Racks: the tubes they hold. */
  racked?: { coordinate: string; tube: number }[];
  /** Tubes in a rack: the slot of their coordinate in the rack (the rack is the `tube_rack` relationship). */
  rackSlot?: number | null;
}

export const labwareAttrs = (record: StoredRecord): LabwareAttrs => record.attrs as unknown as LabwareAttrs;

export const generatedBarcode = (prefix: string, number: number): LabwareBarcode => ({ ...encodeBarcode(prefix, number), external: false });

/** A barcode the client gave: in this service's own format (migrated labware) it keeps all its forms. */
export function externalBarcode(value: string): LabwareBarcode {
  const text = value.trim();
  const own = decodeBarcode(text);
  if (own) return { ...encodeBarcode(own.prefix, own.number), external: true };
  return { human_barcode: text, machine_barcode: text, ean13_barcode: /^\d{13}$/.test(text) ? text : null, external: true };
}

/** The one spelling a barcode is indexed and looked up by: any form of a generated barcode → its human form. */
export const canonicalBarcode = (value: string): string => decodeBarcode(value)?.human_barcode ?? value.trim().toUpperCase();

export const renderBarcode = (record: StoredRecord) => {
  const { human_barcode, machine_barcode, ean13_barcode } = labwareAttrs(record).barcode;
  return { ean13_barcode, machine_barcode, human_barcode };
};

/** The receptacle type of a labware type: plates hold wells, tubes one receptacle. */
export const receptacleType = (labwareType: string): string => (labwareType === 'plates' ? 'wells' : 'receptacles');

export function receptacleRefs(record: StoredRecord): Ref[] {
  const type = receptacleType(record.type);
  return labwareAttrs(record).receptacles.map((_, i) => ({ type, id: slotId(record.id, i + 1) }));
}

export function aliquotRefs(record: StoredRecord, slot?: number): Ref[] {
  const receptacles = labwareAttrs(record).receptacles;
  const lists = slot === undefined ? receptacles : [receptacles[slot - 1] ?? []];
  return lists.flat().map((a) => ({ type: 'aliquots', id: aliquotId(record.id, a.n) }));
}

/** Receptacle records (wells, a tube's receptacle) as views of their labware. */
export function receptacleViews(labware: StoredRecord): StoredRecord[] {
  const attrs = labwareAttrs(labware);
  const type = receptacleType(labware.type);
  const layout = attrs.size ? layoutForSize(attrs.size) : undefined;
  return attrs.receptacles.map((_, i) => {
    const slot = i + 1;
    return {
      family: 'receptacles',
      id: slotId(labware.id, slot),
      type,
      uuid: slotUuid(labware.uuid, slot),
      createdAt: labware.createdAt,
      updatedAt: labware.updatedAt,
      version: labware.version,
      attrs: { ...(layout ? { position: { name: positionAt(layout, i) } } : {}), state: attrs.state },
      rels: {
        [type === 'wells' ? 'plate' : 'labware']: { type: labware.type, id: labware.id },
        aliquots: aliquotRefs(labware, slot),
      },
    };
  });
}

/** Aliquot records as views of their labware. */
export function aliquotViews(labware: StoredRecord): StoredRecord[] {
  const type = receptacleType(labware.type);
  return labwareAttrs(labware).receptacles.flatMap((aliquots, i) =>
    aliquots.map((a) => ({
      family: 'aliquots',
      id: aliquotId(labware.id, a.n),
      type: 'aliquots',
      uuid: '',
      createdAt: labware.createdAt,
      updatedAt: labware.updatedAt,
      version: labware.version,
      attrs: {
        tag_oligo: a.tag?.oligo ?? null,
        tag_index: a.tag?.index ?? null,
        tag2_oligo: a.tag2?.oligo ?? null,
        tag2_index: a.tag2?.index ?? null,
        library_type: a.library_type,
      },
      rels: {
        sample: { type: 'samples', id: a.sample },
        study: a.study === null ? null : { type: 'studies', id: a.study },
        receptacle: { type, id: slotId(labware.id, i + 1) },
      },
    })),
  );
}
