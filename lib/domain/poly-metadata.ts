/**
 * Poly metadata rules (reference-behaviour.md §2.9, contract §2): key/value entries on records of a few
 * types, each key once per record, ignoring case.
 */

/** The types a poly metadatum may belong to, with the class names the reference stores for them. */
export const METADATABLE_CLASS_NAMES = {
  requests: 'Request',
  wells: 'Well',
  samples: 'Sample',
  plates: 'Plate',
  tubes: 'Tube',
  tube_racks: 'TubeRack',
  aliquots: 'Aliquot',
} as const;
export type MetadatableType = keyof typeof METADATABLE_CLASS_NAMES;
export const METADATABLE_TYPES = Object.keys(METADATABLE_CLASS_NAMES) as MetadatableType[];

/** The type a `filter[metadatable_type]` value names: a JSON:API type or the reference's class name. */
export function metadatableTypeNamed(name: string): MetadatableType | undefined {
  return METADATABLE_TYPES.find((type) => type === name || METADATABLE_CLASS_NAMES[type] === name);
}

/** The reference's key column is 255 characters; a key also names index entries, whose keys DynamoDB bounds. */
export const MAX_KEY_LENGTH = 255;

export interface KeyOfRecord {
  type: string;
  id: number;
  key: string;
}

/**
 * A key as uniqueness and `filter[key]` compare it. Keys differing only in case are one key, in every
 * script: lower-casing alone keeps `straße` apart from `STRASSE` and `ος` from `ΟΣ`, so the key is
 * upper-cased first (full case mapping: ß → SS, ς → Σ) and then lower-cased, after canonical composition
 * (a precomposed `é` and `e` + accent are the same text). ASCII keys fold as lower-casing did.
 */
export const foldKey = (key: string): string => key.normalize('NFC').toUpperCase().toLowerCase();

/** What makes a metadatum unique: its record and its folded key (a type has no `/`, so this is unambiguous). */
export const keyOfRecord = ({ type, id, key }: KeyOfRecord): string => `${type}/${id}/${foldKey(key)}`;

/** For each entry whose record and key an earlier entry of the same list already has, the index of that earlier entry. */
export function repeatedKeys(entries: readonly KeyOfRecord[]): Map<number, number> {
  const first = new Map<string, number>();
  const repeats = new Map<number, number>();
  for (const [index, entry] of entries.entries()) {
    const unique = keyOfRecord(entry);
    const earlier = first.get(unique);
    if (earlier === undefined) first.set(unique, index);
    else repeats.set(index, earlier);
  }
  return repeats;
}
