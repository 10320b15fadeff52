import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { registry as serviceRegistry } from '#lib/resources/index.ts';
import { dynamo } from '#lib/store/client.ts';
import { countUpdate } from '#lib/store/counts.ts';
import { store } from '#lib/store/entities.ts';
import { termValue, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { reserve } from '#lib/store/sequences.ts';
import { lookupAttributes } from '#lib/store/write-plan.ts';
import { encodeUuid } from '#lib/store/uuids.ts';
import { emptyReceptacle, emptyReceptacles, type Labware } from '#lib/domain/labware.ts';
import type { BookedRequest } from '#lib/domain/request-books.ts';
import type { Ref } from '#lib/store/records.ts';

type Build = (i: number) => { attrs: Record<string, unknown>; rels: Record<string, RelValue> };

/**
 * `count` new records of a type as the service would store them, not yet written: ids from the service's
 * own sequence (one reservation), so API writes afterwards do not collide. For records that name each
 * other (a sample and its metadata record): make both, link them, then `putRecords`.
 */
async function newRecords(type: string, count: number, build: Build, registry: Registry = serviceRegistry): Promise<StoredRecord[]> {
  const family = registry.familyOf(type);
  const { first, createdAt } = await reserve(family, count, new Date().toISOString());
  return Array.from({ length: count }, (_, i) => ({
    family,
    id: first + i,
    type,
    uuid: encodeUuid(family, first + i),
    createdAt,
    updatedAt: createdAt,
    version: 1,
    ...build(i),
  }));
}

/** Writes items straight into the table in batches of 25, eight batches at a time. */
export async function putItems(items: readonly Record<string, unknown>[]): Promise<void> {
  const table = config().LTS_TABLE_NAME;
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) chunks.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      let pending = chunks[next++]!.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const result = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/**
 * Writes records straight into the table (record items, their index items, their counts) in batches of
 * 25, eight batches at a time, as the service would have stored them.
 */
async function putRecords(records: StoredRecord[], registry: Registry = serviceRegistry): Promise<void> {
  const { record, term } = store().entities;
  const items = records.flatMap((r) => [
    record.create({ ...r, ...lookupAttributes(r, registry.lookupsOf(r)) }).params().Item,
    ...registry
      .termsOf(r)
      .map((t) => term.create({ scope: t.scope, value: termValue(t.value), ref: t.ref ?? '-', family: r.family, type: r.type, id: r.id }).params().Item),
  ]);
  await putItems(items);

  const deltas = new Map<string, Map<string, number>>();
  for (const r of records) {
    const family = deltas.get(r.family) ?? deltas.set(r.family, new Map()).get(r.family)!;
    for (const [key, n] of Object.entries(registry.countsOf(r))) family.set(key, (family.get(key) ?? 0) + n);
  }
  for (const [family, counts] of deltas) await dynamo().send(new UpdateCommand(countUpdate(family, counts, 0).Update as never));
}

/**
 * Writes records straight into the table, as the service would store them (record items, their index
 * items, their counts), without going through the API: the way to set up collections of thousands of
 * records in seconds, for tests that are not about the API's write path. `registry` stores them as other
 * definitions than the service's would (test-only types).
 */
export async function seedRecords(type: string, count: number, build: Build, registry: Registry = serviceRegistry): Promise<StoredRecord[]> {
  const records = await newRecords(type, count, build, registry);
  await putRecords(records, registry);
  return records;
}

/**
 * `count` samples, each with its own (empty) metadata record, the two naming each other as a sample
 * created through the API does; each named `${prefix}-${i}` (a unique name, with its guard item).
 */
export async function seedSamples(count: number, prefix: string): Promise<StoredRecord[]> {
  const samples = await newRecords('samples', count, (i) => ({ attrs: { name: `${prefix}-${i}` }, rels: { studies: [], component_samples: [] } }));
  const metadata = await newRecords('sample_metadata', count, (i) => ({ attrs: {}, rels: { sample: refOf(samples[i]!) } }));
  for (const [i, sample] of samples.entries()) sample.rels.sample_metadata = refOf(metadata[i]!);
  await putRecords([...samples, ...metadata]);
  return samples;
}

/** What a seeded plate's well holds: aliquots of samples (of a study); none for an empty well. */
export type SeededWell = { sample: number; study: number | null }[];

/**
 * `count` plates of `size` wells of a purpose, as the service stores them, well `slot` (1-based, column
 * order) of plate `i` holding what `well(i, slot)` says; each its own external barcode `${prefix}${i}`.
 */
export function seedPlates(
  count: number,
  purpose: number,
  prefix: string,
  size: number,
  well: (i: number, slot: number) => SeededWell,
): Promise<StoredRecord[]> {
  return seedRecords('plates', count, (i) => {
    let n = 0;
    const receptacles = Array.from({ length: size }, (_, slot) => ({
      ...emptyReceptacle(),
      aliquots: well(i, slot + 1).map((held) => ({ n: ++n, ...held, tag: null, tag2: null, library_type: null })),
    }));
    return {
      attrs: {
        name: null,
        barcode: { human_barcode: `${prefix}${i}`, machine_barcode: `${prefix}${i}`, ean13_barcode: null, external: true },
        state: 'pending',
        size,
        receptacles,
        aliquotCount: n,
      },
      rels: { purpose: { type: 'plate_purposes', id: purpose }, parents: [], custom_metadatum_collection: null },
    };
  });
}

/** `count` 384-well plates of a purpose, every well holding one aliquot of `sample`; each its own external barcode `${prefix}${i}`. */
export const seedFullPlates = (count: number, purpose: number, sample: number, prefix: string): Promise<StoredRecord[]> =>
  seedPlates(count, purpose, prefix, 384, () => [{ sample, study: null }]);

/** `count` empty plates of a purpose (its size, 96 by default), as the service stores them; each its own external barcode. */
export function seedEmptyPlates(count: number, purpose: number, size = 96): Promise<StoredRecord[]> {
  return seedRecords('plates', count, (i) => {
    const barcode = `EMPTY${process.pid}-${purpose}-${Date.now()}-${i}`;
    const attrs: Labware = {
      name: null,
      barcode: { human_barcode: barcode, machine_barcode: barcode, ean13_barcode: null, external: true },
      state: 'pending',
      size,
      receptacles: emptyReceptacles(size),
      aliquotCount: 0,
    };
    return {
      attrs: attrs as unknown as Record<string, unknown>,
      rels: { purpose: { type: 'plate_purposes', id: purpose }, parents: [], custom_metadatum_collection: null },
    };
  });
}

/** `count` empty tubes of a purpose, as the service stores them; each its own barcode, and optionally a name and parents. */
export function seedTubes(
  count: number,
  purpose: number,
  each: (i: number) => { barcode: Labware['barcode']; name?: string; parents?: Ref[] },
): Promise<StoredRecord[]> {
  return seedRecords('tubes', count, (i) => {
    const { barcode, name = null, parents = [] } = each(i);
    const attrs: Labware = { name, barcode, state: 'pending', receptacles: emptyReceptacles(1), aliquotCount: 0, rackSlot: null };
    return {
      attrs: attrs as unknown as Record<string, unknown>,
      rels: { purpose: { type: 'tube_purposes', id: purpose }, parents, custom_metadatum_collection: null, tube_rack: null },
    };
  });
}

/**
 * A request book as the service stores it (lib/domain/request-books.ts): `requests` of a submission (or
 * none) out of one labware, made now; their ids are the book's id × 1,000 + their place.
 */
export async function seedRequestBook(
  book: { submission: number | null; labware: number; page?: number },
  requests: Omit<BookedRequest, 'created' | 'updated'>[],
): Promise<StoredRecord> {
  const now = Date.now();
  const [seeded] = await seedRecords('request_books', 1, () => ({
    attrs: { page: 1, ...book, requests: requests.map((request) => ({ ...request, created: now, updated: now })) },
    rels: {},
  }));
  return seeded!;
}
