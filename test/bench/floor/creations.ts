import { canonicalBarcode, generatedBarcode } from '#lib/domain/barcode.ts';
import { emptyReceptacles } from '#lib/domain/labware.ts';
import { registry } from '#lib/resources/index.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { encodeUuid } from '#lib/store/uuids.ts';
import { nextIds, problem, requestPut } from './create.ts';
import { asRecord, type Db, type Item } from './db.ts';
import { COUNT_SHARDS, countShardKey, entityMarkers, lookupPk, parentLink, recordIndexKeys, recordKey, termKey } from './keys.ts';
import { parse, type Attributes } from './lab.ts';
import { byUuids, created, event } from './lab-work.ts';
import { type FloorOp, writeLarge } from './large-write.ts';
import type { Answer } from './reads.ts';

/**
 * The floor's labware creators, as Limber calls them (issue 21, item 6): a plate creation (one plate, a
 * child of one plate) and a specific tube creation (tubes, each a child of the plate). Each is one
 * BatchGetItem of what the body names, the ids beside it (labware, barcode numbers, the creation: one ADD
 * each, however many labware), and one write of the items the service writes: each new labware with its
 * barcode guard and parent link, the creation, the count shards of labware and of the creations, the
 * request item with the events — one transaction, or past 100 items the least a write of several needs
 * (./large-write.ts: 96 tubes are 292 items). What the records index and count is the service's registry's (pure).
 */

/** A new record of the service's shape: its uuid encodes family and id; its lookups are the registry's. */
export function newStored(now: string, type: string, id: number, attrs: Attributes, rels: Attributes): Item {
  const family = registry.familyOf(type);
  const record = { family, id, type, uuid: encodeUuid(family, id), createdAt: now, updatedAt: now, version: 1, attrs, rels } as StoredRecord;
  const pad = (n: number) => String(n).padStart(12, '0');
  const lookups = registry.lookupsOf(record);
  return {
    ...record,
    ...recordKey(family, id),
    ...recordIndexKeys(type, id, now),
    ...entityMarkers('record'),
    ...(lookups.lookup1 !== undefined
      ? { lookup1: lookups.lookup1, lookup1Id: id, gsi3pk: lookupPk(1, lookups.lookup1), gsi3sk: `$record_1#lookup1Id_${pad(id)}` }
      : {}),
    ...(lookups.lookup2 !== undefined
      ? {
          lookup2: lookups.lookup2,
          lookup2Id: id,
          lookup2UpdatedAt: now,
          gsi4pk: lookupPk(2, lookups.lookup2),
          gsi4sk: `$record_1#lookup2Id_${pad(id)}`,
          gsi5pk: lookupPk(2, lookups.lookup2),
          gsi5sk: `$record_1#lookup2UpdatedAt_${now}#lookup2Id_${pad(id)}`,
        }
      : {}),
  };
}

/** New labware of a purpose under one parent: records with their barcode guards and parent links. */
function newLabware(
  now: string,
  type: 'plates' | 'tubes',
  ids: number[],
  numbers: number[],
  purpose: Item,
  parent: Item,
  user: Item,
  named: (i: number) => Attributes,
) {
  const purposeAttrs = purpose.attrs as Attributes;
  return ids.map((id, i) => {
    const barcode = generatedBarcode(String(purposeAttrs.barcode_prefix), numbers[i]!);
    const contents =
      type === 'plates'
        ? { size: Number(purposeAttrs.size ?? 96), state: 'pending', receptacles: emptyReceptacles(Number(purposeAttrs.size ?? 96)) }
        : { state: 'pending', receptacles: emptyReceptacles(1), rackSlot: null };
    const item = newStored(
      now,
      type,
      id,
      { name: null, aliquotCount: 0, ...contents, owner: user.id, ...named(i), barcode },
      {
        purpose: { type: purpose.type, id: purpose.id },
        parents: [{ type: parent.type, id: parent.id }],
        custom_metadatum_collection: null,
        ...(type === 'tubes' ? { tube_rack: null } : {}),
      },
    );
    const guard = canonicalBarcode(barcode.human_barcode);
    const ops: FloorOp[] = [
      { kind: 'create', item, unique: true },
      {
        kind: 'create',
        item: { ...termKey('barcode-guard', guard), ...entityMarkers('term'), scope: 'barcode-guard', value: guard, ref: '-', family: 'labware', type, id },
        unique: true,
      },
      { kind: 'create', item: parentLink(parent.id as number, item), unique: false },
    ];
    return { item, ops };
  });
}

/**
 * The count shard of a family, every key the registry counts for these records added at once; for records
 * changed, what they count now less what they counted `before` (the aliquots and transfer requests a
 * collection adds to its targets).
 */
export function countsPut(table: string, family: string, records: Item[], before: Item[] = []) {
  const deltas = new Map<string, number>();
  const add = (items: Item[], sign: number) => {
    for (const record of items) for (const [key, n] of Object.entries(registry.countsOf(asRecord(record)))) deltas.set(key, (deltas.get(key) ?? 0) + sign * n);
  };
  add(records, 1);
  add(before, -1);
  const entries = [...deltas].filter(([, n]) => n !== 0);
  return {
    Update: {
      TableName: table,
      Key: countShardKey(family, Math.floor(Math.random() * COUNT_SHARDS)),
      UpdateExpression: `ADD ${entries.map((_, i) => `#k${i} :d${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#k${i}`, `n:${k}`])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, d], i) => [`:d${i}`, d])),
    },
  };
}

interface Creation {
  type: string;
  child: 'plates' | 'tubes';
  purposes: string[];
  parent: unknown;
  user: unknown;
  named: (i: number) => Attributes;
  rels: (made: Ref[], purposes: Ref[], parent: Ref, user: Ref) => Attributes;
}

type Ref = { type: string; id: unknown };
const refOf = (item: Item): Ref => ({ type: item.type as string, id: item.id });

async function create(db: Db, table: string, base: string, c: Creation): Promise<Answer> {
  const uuids = [...new Set(c.purposes), c.parent, c.user];
  if (uuids.some((u) => typeof u !== 'string')) return problem(400, 'purposes, parent and user by uuid');
  const count = c.purposes.length;
  const [found, ids, numbers, [id]] = await Promise.all([
    byUuids(db, table, uuids as string[]),
    nextIds(db, table, 'labware', count),
    nextIds(db, table, 'barcodes', count),
    nextIds(db, table, c.type, 1),
  ]);
  if (!found) return problem(404, 'a record named is missing');
  const purposes = c.purposes.map((uuid) => found.get(uuid.toLowerCase())!);
  const [parent, user] = [found.get(String(c.parent).toLowerCase())!, found.get(String(c.user).toLowerCase())!];
  if (parent.type !== 'plates') return problem(422, 'a plate as parent');
  const now = new Date().toISOString();
  const made = ids.map((labwareId, i) => newLabware(now, c.child, [labwareId], [numbers[i]!], purposes[i]!, parent, user, () => c.named(i))[0]!);
  const record = newStored(
    now,
    c.type,
    id!,
    {},
    c.rels(
      made.map((m) => refOf(m.item)),
      purposes.map(refOf),
      refOf(parent),
      refOf(user),
    ),
  );
  await writeLarge(
    db,
    table,
    [...made.flatMap((m) => m.ops), { kind: 'create', item: record, unique: true }],
    [
      countsPut(
        table,
        'labware',
        made.map((m) => m.item),
      ),
      countsPut(table, registry.familyOf(c.type), [record]),
      requestPut(table, now, [
        event(now, base, `${c.type}.created`, asRecord(record), user),
        ...made.map((m) => event(now, base, `${c.child}.created`, asRecord(m.item), user)),
      ]),
    ],
  );
  return created(base, record);
}

/** POST /api/v2/plate_creations {child_purpose_uuid, parent_uuid, user_uuid}: one plate of the purpose, the parent's child. */
export function plateCreation(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  const input = parse(body, 'plate_creations') ?? {};
  return create(db, table, base, {
    type: 'plate_creations',
    child: 'plates',
    purposes: [input.child_purpose_uuid as string],
    parent: input.parent_uuid,
    user: input.user_uuid,
    named: () => ({}),
    rels: ([child], [purpose], parent, user) => ({ child, child_purpose: purpose, parent, user }),
  });
}

/** POST /api/v2/specific_tube_creations {child_purpose_uuids, parent_uuids: [a plate], tube_attributes: [{name}], user_uuid}: a tube per purpose. */
export function specificTubeCreation(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  const input = parse(body, 'specific_tube_creations') ?? {};
  const purposes = input.child_purpose_uuids as string[] | undefined;
  const parents = input.parent_uuids as string[] | undefined;
  const named = (input.tube_attributes as { name?: string }[] | undefined) ?? [];
  if (!Array.isArray(purposes) || !Array.isArray(parents) || parents.length !== 1) return Promise.resolve(problem(400, 'child_purpose_uuids and one parent'));
  return create(db, table, base, {
    type: 'specific_tube_creations',
    child: 'tubes',
    purposes,
    parent: parents[0],
    user: input.user_uuid,
    named: (i) => ({ name: named[i]?.name ?? null }),
    rels: (children, childPurposes, parent, user) => ({ children, child_purposes: childPurposes, parents: [parent], user }),
  });
}
