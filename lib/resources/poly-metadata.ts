import * as z from '#lib/zod.ts';
import { LARGE_WRITE_ITEM_LIMIT, MAX_POLY_METADATA_PER_WRITE, POLY_METADATUM_ITEMS } from '#lib/domain/budgets.ts';
import {
  foldKey,
  keyOfRecord,
  MAX_KEY_LENGTH,
  METADATABLE_CLASS_NAMES,
  METADATABLE_TYPES,
  metadatableTypeNamed,
  repeatedKeys,
  type KeyOfRecord,
} from '#lib/domain/poly-metadata.ts';
import type { WriteContext } from '#lib/jsonapi/context.ts';
import { resolveEntries } from '#lib/jsonapi/entries.ts';
import { errors, JsonApiError, show } from '#lib/jsonapi/errors.ts';
import { aggregateIndex, attr, timestamps, toOne, uuidAttribute, type IndexDef, type ResourceDef, type WriteInput } from '#lib/jsonapi/resource.ts';
import { defaultCreate, defaultUpdate, storedAttributes, storedRelationships } from '#lib/jsonapi/write.ts';
import { findHolders, linkOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * Poly metadata (contract §2, reference-behaviour.md §2.9): a key and a value on one record of a few
 * types (`metadatable`), each key once per record ignoring case. Records read theirs back through
 * `poly_metadata: reverse('poly_metadata', 'metadatable')`.
 */
const TYPE = 'poly_metadata';

const notBlank = (text: string) => text.trim() !== '';
const metadatableOf = (record: StoredRecord) => linkOf(record, 'metadatable');
const keyOf = (key: unknown, metadatable: Ref): KeyOfRecord => ({ type: metadatable.type, id: metadatable.id, key: String(key) });

/** Three of these cost a transaction item each (the others are lookup slots): lib/domain/budgets.ts, polyMetadataItems. */
const indexes: Record<string, IndexDef> = {
  /**
   * One metadatum per record and folded key: a guard item. Checked before the write (`checkKeysFree`, with
   * the entry's pointer); one taken at the commit by a concurrent write makes the write start again from
   * fresh reads, where that check then reports it.
   */
  key_per_record: { values: (r) => [keyOfRecord(keyOf(r.attrs.key, metadatableOf(r)!))], unique: 'retry' },
  // The metadata of a plate's wells and aliquots are one Query (the reverse relationship's index).
  metadatable: aggregateIndex('metadatable'),
  // A record's metadata are few: a filter on its id reads them whole (limber's `filter[key]` with `filter[metadatable_id]`).
  metadatable_id: { values: (r) => [metadatableOf(r)?.id], selective: true },
  // Broad listings only: lookup slots, which cost no transaction item (eventually consistent).
  key: { values: (r) => [r.attrs.key], normalize: foldKey, slot: 1 },
  metadatable_type: { values: (r) => [metadatableOf(r)?.type], slot: 2 },
};

/** `filter[metadatable_type]` takes JSON:API types or the reference's class names; anything else is a 400 naming both lists. */
async function metadatableTypes(_ctx: unknown, names: string[]): Promise<string[]> {
  const unknown = names.filter((name) => !metadatableTypeNamed(name));
  if (unknown.length > 0) {
    throw errors.invalidParameter(
      'filter[metadatable_type]',
      `filter[metadatable_type] - ${unknown.map(show).join(', ')} names no type poly metadata belong to; use one of ${METADATABLE_TYPES.join(', ')} or ${Object.values(METADATABLE_CLASS_NAMES).join(', ')}`,
    );
  }
  return names.map((name) => metadatableTypeNamed(name)!);
}

interface KeyClaim {
  of: KeyOfRecord;
  /** Where the request gave the key (or the record, when only that changed). */
  pointer: string;
}

const onRecord = (of: KeyOfRecord) => `${of.type} ${of.id} (keys are unique per record, ignoring case)`;

/**
 * Refuses (422, each at its pointer) a key another metadatum of the same record already has, or that an
 * earlier entry of the same request claims. `self` is the metadatum a PATCH changes.
 */
async function checkKeysFree(ctx: WriteContext, claims: readonly KeyClaim[], self?: number): Promise<void> {
  const problems: JsonApiError[] = [];
  for (const [index, earlier] of repeatedKeys(claims.map((c) => c.of))) {
    const { of, pointer } = claims[index]!;
    problems.push(errors.notUnique(pointer, 'key', of.key, `entry ${earlier} of this request on ${onRecord(of)}`));
  }
  const holders = await findHolders(
    ctx.registry.indexScope(polyMetadata, 'key_per_record'),
    claims.map((c) => keyOfRecord(c.of)),
  );
  for (const { of, pointer } of claims) {
    const holder = holders.get(keyOfRecord(of));
    if (holder && holder.id !== self) problems.push(errors.notUnique(pointer, 'key', of.key, `poly_metadata ${holder.id} on ${onRecord(of)}`));
  }
  if (problems.length > 0) throw JsonApiError.all(problems);
}

const claimOf = (input: WriteInput, at = ''): KeyClaim => ({
  of: keyOf(input.attributes.key, input.relationships.metadatable as StoredRecord),
  pointer: `/data${at}/attributes/key`,
});

/** `POST /api/v2/poly_metadata/bulk_create`: every entry created, or none (one write, of several transactions past 24), 201 with the array. */
async function bulkCreate(ctx: WriteContext, body: unknown) {
  const inputs = await resolveEntries(ctx, polyMetadata, body, {
    max: MAX_POLY_METADATA_PER_WRITE,
    why: `each writes ${POLY_METADATUM_ITEMS} of the ${LARGE_WRITE_ITEM_LIMIT} records and index entries one request may write`,
  });
  await checkKeysFree(
    ctx,
    inputs.map((input, index) => claimOf(input, `/${index}`)),
  );
  // One id reservation for all of them.
  const ids = await ctx.uow.allocateIds(TYPE, inputs.length);
  const data = await Promise.all(
    inputs.map((input, index) => ctx.uow.create(TYPE, { id: ids[index]!, attrs: storedAttributes(polyMetadata, input), rels: storedRelationships(input) })),
  );
  return { status: 201 as const, data };
}

export const polyMetadata: ResourceDef = {
  type: TYPE,
  methods: ['list', 'read', 'create', 'update'],
  attributes: {
    ...uuidAttribute,
    key: attr(
      'RW',
      () => z.string().check(z.maxLength(MAX_KEY_LENGTH, `must be at most ${MAX_KEY_LENGTH} characters`), z.refine(notBlank, 'must not be blank')),
      {
        required: true,
      },
    ),
    value: attr('RW', () => z.string().check(z.refine(notBlank, 'must not be blank')), { required: true }),
    ...timestamps,
  },
  relationships: { metadatable: toOne(METADATABLE_TYPES, 'RW', { required: true }) },
  indexes,
  filters: {
    key: { index: 'key' },
    metadatable_id: { index: 'metadatable_id' },
    metadatable_type: { index: 'metadatable_type', translate: metadatableTypes },
  },

  // A metadatum always has its key, value and record (a POST without them is the engine's `required`).
  validate: (_ctx, input, current) => {
    if (!current) return [];
    return [
      ...['key', 'value'].filter((name) => input.attributes[name] === null).map((name) => errors.missingRequired(`/data/attributes/${name}`, name)),
      ...(input.relationships.metadatable === null ? [errors.missingRequired('/data/relationships/metadatable', 'metadatable')] : []),
    ];
  },

  create: async (ctx, input) => {
    await checkKeysFree(ctx, [claimOf(input)]);
    return defaultCreate(ctx, polyMetadata, input);
  },

  update: async (ctx, current, input) => {
    const metadatable = (input.relationships.metadatable as StoredRecord | undefined) ?? metadatableOf(current)!;
    const after = keyOf(input.attributes.key ?? current.attrs.key, metadatable);
    if (keyOfRecord(after) !== keyOfRecord(keyOf(current.attrs.key, metadatableOf(current)!))) {
      const pointer = 'key' in input.attributes ? '/data/attributes/key' : '/data/relationships/metadatable';
      await checkKeysFree(ctx, [{ of: after, pointer }], current.id);
    }
    return defaultUpdate(ctx, polyMetadata, current, input);
  },

  actions: { bulk_create: { method: 'POST', run: bulkCreate } },
};
