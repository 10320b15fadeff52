/**
 * The keys of today's single-table layout, written out by hand (the floor does not use ElectroDB).
 * They must match what lib/store/entities.ts produces: `$lts#<composite>_<value>` partition keys and
 * `$<entity>_<version>` sort keys, ids zero-padded to 12 digits. If the layout changes, change it here.
 */
import type { Item } from './db.ts';

export interface Key {
  pk: string;
  sk: string;
}

const pad = (id: number): string => String(id).padStart(12, '0');

/** A record (one resource, or an aggregate such as a plate with its wells). */
export const recordKey = (family: string, id: number): Key => ({ pk: `$lts#family_${family}#id_${pad(id)}`, sk: '$record_1' });

/** The index keys a record item carries (the byType and byTypeUpdated indexes). */
export const recordIndexKeys = (type: string, id: number, updatedAt: string) => ({
  gsi1pk: `$lts#type_${type}`,
  gsi1sk: `$record_1#id_${pad(id)}`,
  gsi2pk: `$lts#type_${type}`,
  gsi2sk: `$record_1#updatedAt_${updatedAt}#id_${pad(id)}`,
});

/** The partition key of a lookup slot's entries under one key, `<scope>#<value>` (byLookup1, byLookup2: a labware's barcode, its purpose). */
export const lookupPk = (slot: 1 | 2, key: string): string => `$lts#lookup${slot}_${key}`;

/** The partition key of a type's listing on the byType index. */
export const typeListingPk = (type: string): string => `$lts#type_${type}`;

/** One of a family's count shards (lib/store/counts.ts): a number per counted key, `n:<type>`. */
export const COUNT_SHARDS = 16;
export const countPartitionPk = (family: string): string => `$lts#counts_${family}`;
export const COUNT_SHARD_SK_PREFIX = '$counts#shard_';
export const countShardKey = (family: string, shard: number): Key => ({
  pk: countPartitionPk(family),
  sk: `${COUNT_SHARD_SK_PREFIX}${String(shard).padStart(2, '0')}`,
});

/** An index entry; a unique one (ref `-`) is also the uniqueness guard. */
export const termKey = (scope: string, value: string, ref = '-'): Key => ({ pk: `$lts#scope_${scope}#value_${value}`, sk: `$term_1#ref_${ref}` });

/** A request (outbox) item. */
export const requestKey = (key: string): Key => ({ pk: `$lts#key_${key}`, sk: '$request_1' });

/** An id sequence (lib/store/sequences.ts). */
export const sequenceKey = (family: string): Key => ({ pk: `$lts#sequence_${family}`, sk: '$sequence' });

/** ElectroDB's markers, which every item of the service carries (so floor items are the same size). */
export const entityMarkers = (entity: string) => ({ __edb_e__: entity, __edb_v__: '1' });

/** A new parent link of a labware (lineage's index entry, lib/resources/lineage.ts). */
export const parentLink = (parent: number, child: Item): Item => {
  const ref = `${pad(child.id as number)}#labware`;
  return {
    ...termKey('labware.parents', String(parent), ref),
    ...entityMarkers('term'),
    scope: 'labware.parents',
    value: String(parent),
    ref,
    family: 'labware',
    type: child.type,
    id: child.id,
  };
};

/** A new parent link of a labware, as a transaction's Put. */
export const parentLinkPut = (table: string, parent: number, child: Item) => ({ Put: { TableName: table, Item: parentLink(parent, child) } });
