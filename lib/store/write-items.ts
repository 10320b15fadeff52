import { config } from '#lib/config.ts';
import { padId, type StoredRecord, termItemKey, TYPE_LISTING_SK_PREFIX, typeListingKey } from '#lib/store/records.ts';
import { tableDefinition } from '#lib/store/table.ts';

/**
 * The Put items of a write's transaction (records, index entries, the request item), built directly in
 * the form ElectroDB's `create`/`put(...).params()` give them for the entities of lib/store/entities.ts
 * (test/unit/write-items.test.ts holds the two together for every shape of item). Why: ElectroDB's
 * parameter building took about as much CPU per item as the rest of a create's own code, and every
 * write puts three or more such items. Reads by key are built the same way (`recordItemKey`).
 */
const { partitionKey: pk, sortKey: sk } = tableDefinition;
const [byType, byTypeUpdated, byLookup1, byLookup2, byLookup2Updated] = tableDefinition.indexes;
const entity = (name: string) => ({ __edb_e__: name, __edb_v__: '1' });
/** A new item: DynamoDB refuses it if its key is taken. */
const absent = () => ({ ConditionExpression: `attribute_not_exists(#pk) AND attribute_not_exists(#sk)`, ExpressionAttributeNames: { '#pk': pk, '#sk': sk } });

/** A record's values in the lookup slots and their sort values (lib/store/write-plan.ts, lookupAttributes). */
export interface RecordLookups {
  lookup1?: string;
  lookup1Id?: number;
  lookup2?: string;
  lookup2Id?: number;
  lookup2UpdatedAt?: string;
}

/** A record item's Put: new (its key must be free), or replacing the version read (`version`) that no larger write holds. */
export function recordPut(record: StoredRecord & RecordLookups, expected: { version: number } | 'new') {
  const { family, id, type, uuid, createdAt, updatedAt, version, attrs, rels, lookup1, lookup1Id, lookup2, lookup2Id, lookup2UpdatedAt } = record;
  const padded = padId(id);
  const Item: Record<string, unknown> = {
    family,
    id,
    type,
    uuid,
    createdAt,
    updatedAt,
    version,
    attrs,
    rels,
    [pk]: `$lts#family_${family}#id_${padded}`,
    [sk]: '$record_1',
    [byType.partitionKey]: typeListingKey(type),
    [byType.sortKey]: `${TYPE_LISTING_SK_PREFIX}${padded}`,
    [byTypeUpdated.partitionKey]: typeListingKey(type),
    [byTypeUpdated.sortKey]: `$record_1#updatedAt_${updatedAt}#id_${padded}`,
    ...entity('record'),
  };
  // Sparse indexes: a record without a lookup value has no key in them.
  if (lookup1 !== undefined) {
    Object.assign(Item, { lookup1, lookup1Id });
    Object.assign(Item, { [byLookup1.partitionKey]: `$lts#lookup1_${lookup1}`, [byLookup1.sortKey]: `$record_1#lookup1Id_${padId(lookup1Id!)}` });
  }
  if (lookup2 !== undefined) {
    Object.assign(Item, { lookup2, lookup2Id, lookup2UpdatedAt });
    Object.assign(Item, {
      [byLookup2.partitionKey]: `$lts#lookup2_${lookup2}`,
      [byLookup2.sortKey]: `$record_1#lookup2Id_${padId(lookup2Id!)}`,
      [byLookup2Updated.partitionKey]: `$lts#lookup2_${lookup2}`,
      [byLookup2Updated.sortKey]: `$record_1#lookup2UpdatedAt_${lookup2UpdatedAt}#lookup2Id_${padId(lookup2Id!)}`,
    });
  }
  const condition = expected === 'new' ? absent() : unlockedAt(expected.version);
  return { Item, TableName: config().LTS_TABLE_NAME, ...condition };
}

/**
 * The condition of replacing or deleting a record: still the version read, and no larger write holds it
 * (lib/store/large-write.ts marks what it stages; such a mark is never written over).
 */
export const unlockedAt = (version: number) => ({
  ConditionExpression: '#version = :version0 AND attribute_not_exists(#tx)',
  ExpressionAttributeNames: { '#version': 'version', '#tx': 'tx' },
  ExpressionAttributeValues: { ':version0': version },
});

/** An index entry's Put: a unique entry new (its value must be free), a listed one written over whatever is there. */
export function termPut(term: { scope: string; value: string; ref: string; family: string; type: string; id: number }, unique: boolean) {
  const { scope, value, ref, family, type, id } = term;
  const key = termItemKey(scope, value, ref);
  const Item = { scope, value, ref, family, type, id, [pk]: key.pk, [sk]: key.sk, ...entity('term') };
  return { Item, TableName: config().LTS_TABLE_NAME, ...(unique ? absent() : {}) };
}

/** The request item's Put (new: a request key is written once). */
export function requestPut(request: { key: string; committedAt: string; ttl: number; requestHash?: string } & Record<string, unknown>) {
  const Item = { ...request, [pk]: `$lts#key_${request.key}`, [sk]: '$request_1', ...entity('request') };
  return { Item, TableName: config().LTS_TABLE_NAME, ...absent() };
}
