import * as z from '#lib/zod.ts';
import type { JsonApiError } from '#lib/jsonapi/errors.ts';
import { ANY_SERVED_TYPE, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, show } from '#lib/jsonapi/errors.ts';
import type { CollectionPage } from '#lib/jsonapi/listing.ts';
import type { Page, Sort } from '#lib/jsonapi/paging.ts';
import type { RelValue, StoredRecord, TermHit } from '#lib/store/records.ts';
import { namesItsRecord, UUID_ALIAS_SCOPE } from '#lib/store/uuids.ts';

/**
 * Declarative resource definitions: everything the engine needs to list, read, filter, include, render
 * and write a JSON:API type. A resource file holds only what is particular to its type.
 */

/** R read-only · W write-only · RW read-write · WO write-once (set on create, never updated). */
export type Access = 'R' | 'W' | 'RW' | 'WO';
export type Method = 'list' | 'read' | 'create' | 'update';

export interface AttributeDef<T = unknown> {
  access: Access;
  /**
   * The value's shape, null aside (an attribute not required may be null): it validates written values and
   * reference data (a failure is a 422) and describes the rendered value, read-only ones included, so
   * the API's description can be generated for requests and responses alike.
   */
  schema: z.ZodMiniType<T>;
  /** Must be present and not null on create. */
  required?: boolean;
  /** The longest string the value may hold, for an attribute that holds whole files (QC files); MAX_STRING_LENGTH otherwise (lib/jsonapi/input-values.ts). */
  maxStringLength?: number;
  /**
   * Accepted on POST only: a read-only attribute listed in interface.md's "Creation shapes", or a
   * write-only one that only makes sense on create.
   */
  acceptOnCreate?: boolean;
  /** A deprecated `<relationship>_uuid` attribute: names that relationship's record by uuid (a to-many one's records by a list of uuids, `<relationship>_uuids`). */
  uuidOf?: string;
  /** Consumed by the resource's own create/update; the default operations do not store it. */
  transient?: boolean;
  /** A uuid of a record the resource's own create reads (a template): read with the write's references, in one batch. */
  readsUuid?: boolean;
  /** Computes the rendered value; by default the stored attribute is rendered. */
  get?: (record: StoredRecord) => T | null;
  /**
   * Rendered only when `fields[<type>]` names it: for the reference's member names that JSON:API 1.0 does
   * not allow (`multiplexed?`), so a document is valid JSON:API unless the client asks for one by name.
   */
  onlyWhenAsked?: boolean;
  /**
   * Computes the rendered values of many records at once from other records (a submission's number of
   * sequencing requests): read responses call it once per type and response, and only when the attribute
   * is rendered. Events load it too, through the write's own reads (lib/jsonapi/write.ts, recordEvents).
   */
  load?: (ctx: RequestContext, records: StoredRecord[]) => Promise<Map<StoredRecord, T | null>>;
  /** Rendered null in events: a value that could take an event past the bus's limit (a QC file's contents; EventBridge takes 256 KB). */
  notInEvents?: boolean;
  /**
   * The value (a string or a list of them) names records of this reference type by their natural key, as
   * `request_type_keys` names request types: the reference-data loader refuses a name that resolves to none.
   */
  names?: string;
}

export interface RelationshipDef<K extends 'one' | 'many' = 'one' | 'many'> {
  kind: K;
  /** Types a linkage may name (a polymorphic type such as `labware` stands for its members). */
  types: readonly string[];
  /** Other linkage types accepted on input for the first type (e.g. `component_samples` for `samples`). */
  aliases?: readonly string[];
  access: Access;
  required?: boolean;
  acceptOnCreate?: boolean;
  /**
   * Rendered with its stored linkage (`data`) even when not included: contract §1.4's exception for
   * requests' `submission` and `order`, which clients read to group wells into pools.
   */
  alwaysLinked?: boolean;
  /**
   * Resolves the relationship for many records at once (computed relationships). By default the linkage
   * stored on the record is used.
   */
  resolve?: (ctx: RequestContext, records: StoredRecord[]) => Promise<Map<StoredRecord, RelValue>>;
  /** A reverse relationship (made by `reverse()`): resolved by the engine through the pointing type's aggregate index. */
  reverse?: ReverseDef;
  /**
   * The type its linkage names, where the reference types the relationship by a supertype that is not
   * polymorphic there (a labware's `purpose` is `purposes`, a receptacle's `labware` is `labware`: contract
   * §7.4): the record it reaches renders as that type (that definition's attributes and relationships). `types`
   * still says what a write may link; without it the linkage names the record's own type.
   */
  linkedAs?: string;
}

/** The types a relationship's linkage names: its `linkedAs` type, else the types it links (a polymorphic one's records each as its own). */
export const linkedTypes = (relationship: RelationshipDef): readonly string[] => (relationship.linkedAs ? [relationship.linkedAs] : relationship.types);

/** A relationship's value with its linkage typed as the relationship renders it (`linkedAs`). */
export function asLinked(relationship: RelationshipDef, value: RelValue): RelValue {
  const as = relationship.linkedAs;
  if (!as || value === null) return value;
  return Array.isArray(value) ? value.map((ref) => ({ type: as, id: ref.id })) : { type: as, id: value.id };
}

/** The records of `type` whose relationship `relationship` points at the record (lib/jsonapi/reverse.ts). */
export interface ReverseDef {
  type: string;
  relationship: string;
  /** Pointing records one aggregate may have (default MAX_REVERSE_RECORDS, lib/jsonapi/reverse.ts); past it a 400. */
  max?: number;
}

/**
 * What an index is keyed by: values computed from the record, or the aggregates of what one of its
 * relationships points at (see `aggregateIndex`).
 */
export type IndexKey =
  | { values: (record: StoredRecord) => unknown[]; aggregatesOf?: never }
  | {
      /**
       * A relationship of this type: the record is indexed under the aggregate (`family:id` of the item it
       * is stored in: a well's plate, a sample itself) of each record it points at, so a reverse
       * relationship finds the pointing records of a whole plate's wells with one query.
       */
      aggregatesOf: string;
      values?: never;
    };

/** Index entries a record carries so it can be found by a value, optionally unique per value. */
export type IndexDef = IndexKey & {
  /** The index scope; defaults to `<type>.<index name>`. Types that share a scope share the index. */
  scope?: string;
  normalize?: (value: string) => string;
  /**
   * One record per value. A value taken is a 422 on `field`; or, with `'retry'`, the write starts again
   * from fresh reads: for values the write chose itself (a generated barcode), or that the write checks
   * itself and then reports where the request gave them (a poly metadatum's key, in one of many entries).
   */
  unique?: { field: string; pointer: string } | 'retry';
  /** Each value matches at most a few records (e.g. a barcode): a filter on it loads its matches whole. Unique indexes are selective too. */
  selective?: boolean;
  /**
   * Keep per-value record counts in the family's count shards, so a filtered listing knows its
   * `record_count` without reading its matches. Only for indexes with few distinct values (purposes).
   */
  counted?: boolean;
  /**
   * Keep this (single-valued, non-unique) index in a lookup slot of the table's secondary indexes
   * instead of index items: it then costs no item in a write transaction, at the price of being
   * eventually consistent.
   */
  slot?: 1 | 2;
};

/**
 * A type whose records live inside records of another type (wells in their plate, aliquots in their
 * labware): they are read, listed and counted through their parents, and their ids say which parent
 * holds them, so finding one costs one read of its parent.
 */
export interface EmbeddedDef {
  /** The types of the records that hold these. */
  parentTypes: readonly string[];
  /** The id of the parent holding the embedded record with this id. */
  parentId: (id: number) => number;
  /** The embedded records of this type in a parent, in id order. */
  extract: (parent: StoredRecord) => StoredRecord[];
  /** How many `extract` would give, without building them (every write of a parent counts them twice). */
  count: (parent: StoredRecord) => number;
  /**
   * For records whose uuid is their parent's with a slot in its last four hex digits (lib/domain/labware-ids.ts,
   * `slotUuid`): the record at a slot of a parent, built alone (a request book holds thousands of requests;
   * a uuid names one). A uuid then finds its record with one read of the parent wherever uuids are resolved
   * (`filter[uuid]`, `*_uuid` attributes: Loader.byUuids).
   */
  atSlot?: (parent: StoredRecord, slot: number) => StoredRecord | undefined;
}

export type FilterDef =
  | {
      /**
       * Tests records read from the listing the other filters give (or the type's own): for what no index
       * holds, e.g. a state derived from the record, or whether a labware has children. The listing is then
       * read whole (bounded: lib/jsonapi/listing.ts), so its count stays exact.
       */
      test: (ctx: RequestContext, records: StoredRecord[], values: string[]) => Promise<boolean[]> | boolean[];
      /** Whether these values keep every record (`include_used=true`): the listing then ignores the filter. */
      keepsAll?: (values: string[]) => boolean;
      /** Refuses values that mean nothing (a 400 naming the filter and the value). */
      check?: (name: string, values: string[]) => void;
      /** The earliest update time a matching record can have: a listing in update-time order starts there. */
      updatedAfter?: (values: string[]) => string;
      /**
       * Values applied when a listing of the type does not send the filter (JSONAPI::Resources' `filter …,
       * default:`; the reference's tag_sets `visible`): lib/jsonapi/filters.ts, `withDefaultFilters`.
       */
      default?: readonly string[];
    }
  | {
      /** Looks the values up in an index of this type. */
      index: string;
      /** Turns the query values into index values (e.g. purpose names into purpose ids). */
      translate?: (ctx: RequestContext, values: string[]) => Promise<string[]>;
    }
  | {
      /** Finds matching records directly. */
      lookup: (ctx: RequestContext, values: string[]) => Promise<TermHit[]>;
      /** Refuses values that mean nothing (a 400 naming the filter and the value), before anything is read. */
      check?: (name: string, values: string[]) => void;
      matches: (record: StoredRecord, values: string[]) => boolean;
    };

/** The values of a definition's attributes, typed by their schemas (absent when not sent or not stored). */
export type AttributeValues<A> = { [K in keyof A]?: A[K] extends AttributeDef<infer T> ? T | null : never };
/** The records a write names in a definition's relationships, by their kind. */
export type RelationshipRecords<R> = {
  [K in keyof R]?: R[K] extends RelationshipDef<'many'>
    ? StoredRecord[]
    : R[K] extends RelationshipDef<'one'>
      ? StoredRecord | null
      : StoredRecord | StoredRecord[] | null;
};

type Attributes = Record<string, AttributeDef>;
type Relationships = Record<string, RelationshipDef>;

/** A write request after parsing: validated attribute values and resolved relationship records. */
export interface WriteInput<A = Attributes, R = Relationships> {
  attributes: AttributeValues<A>;
  relationships: RelationshipRecords<R>;
  /** Names of the attributes and relationships the client sent (relationships also via `*_uuid`, which is then named too). */
  sent: Set<string>;
}

/** What an action answers: its status and primary data (rendered with the request's include and fields). */
export interface ActionResult {
  /** 201 when it created its primary data (events `<type>.created`), 200 when it changed or read them. */
  status: 200 | 201;
  data: StoredRecord | StoredRecord[];
  /**
   * A body of the action's own, sent instead of the rendered data, for an endpoint whose reference answers
   * no resource object (the Heron reception, lib/resources/heron.ts); `data` still names what it wrote.
   */
  reply?: unknown;
}

/**
 * A custom action of a type, served at `POST /api/v2/<type>/<name>` (e.g. `poly_metadata/bulk_create`);
 * any other method there is a 405. It runs in the write pipeline, like a POST: authentication and write
 * scope, media types, body limit, Idempotency-Key, one unit of work committed as one transaction, events
 * for every record it creates or changes, and after a conflict it runs again from fresh reads (so it must
 * do nothing but read and stage changes in `ctx.uow`).
 */
export type ActionDef = WriteActionDef | MemberActionDef | AnswerActionDef;

export interface WriteActionDef {
  method: 'POST';
  /** Also takes a body sent as `application/json`, as the reference's client of it sends it (lighthouse's Heron receptions). */
  acceptsJson?: true;
  /**
   * For the API's description, when its body is one write document (not a list of them): the definition
   * it is read as, and the type of the record it answers (the action's own type unless named).
   */
  document?: { body: ResourceDef; answers?: string };
  /** Checks the body (the parsed JSON, any value; each problem a JsonApiError) and stages the action's changes. */
  run: (ctx: WriteContext, body: unknown) => Promise<ActionResult>;
  answer?: never;
  on?: never;
}

/**
 * A write action on one record, served at `POST /api/v2/<type>/<id>/<name>` (the reference's
 * `plates/{id}/register_stock_for_plate`, which json_api_client declares `on: :member`). The engine reads
 * the record the id names in the write (fresh after a conflict; a malformed id is a 400, an unknown one a
 * 404) and hands it to `run` with the body; otherwise it is a write action like any other.
 */
export interface MemberActionDef {
  method: 'POST';
  on: 'member';
  run: (ctx: WriteContext, body: unknown, record: StoredRecord) => Promise<ActionResult>;
  answer?: never;
}

/**
 * An action that only answers (the reference's `bait_library_layouts/preview`): a POST outside the write
 * pipeline, so nothing is written, no event is recorded and no Idempotency-Key applies. Its answer is the
 * primary data of a 200: a resource object whose id is the action's name, for it describes no stored record
 * (the reference renders none; JSON:API 1.0 requires one).
 */
export interface AnswerActionDef {
  method: 'POST';
  /** Checks the body (any JSON; each problem a JsonApiError pointing into it) and computes the answer's attributes. */
  answer: (ctx: RequestContext, body: unknown) => Promise<Record<string, unknown>>;
  /** The body's members and the answer's attributes, described for the API's description. */
  body: Record<string, AttributeDef>;
  answers: Record<string, AttributeDef>;
  run?: never;
  on?: never;
}

/**
 * A type's definition. `A` and `R` are its attributes and relationships as declared, so its hooks see
 * typed input (`defineResource` infers them); the engine holds every definition as a plain `ResourceDef`.
 */
export interface ResourceDef<A extends Attributes = Attributes, R extends Relationships = Relationships> {
  type: string;
  /** The id sequence (contract §1.3); defaults to the type. */
  family?: string;
  /**
   * The family whose counter keeps this type's counts (lib/store/counts.ts), when not its own: a type whose
   * records are created with another's (a sample's metadata record) then adds to the same count item in
   * that write, rather than to an item of its own.
   */
  countedWith?: string;
  /** Polymorphic types the records also belong to (listed, counted and found under them too). */
  supertypes?: readonly string[];
  /** For a polymorphic type such as `labware`: its concrete member types (may include itself). */
  members?: readonly string[];
  /** Set when the records live inside other records. */
  embedded?: EmbeddedDef;
  /**
   * Storage only: records that hold records of an embedded type (request books hold requests). Never
   * served, described or routed; their writes are events of the records they hold (lib/jsonapi/write.ts).
   */
  internal?: true;
  methods: readonly Method[];
  /**
   * Reference data: records written by the admin loader (lib/reference/) and, where the methods include
   * `create`, created through the API by admin keys only (purposes); never changed through the API and
   * never deleted, so a write may link them from a copy this process read within the last minute
   * (lib/store/reference-records.ts).
   */
  referenceData?: true;
  /**
   * Reference data that daily work also registers (lots: gatekeeper registers each lot as it arrives): its
   * POST takes a write key, not only an admin one. Its records are still never changed through the API.
   */
  registeredByWriteKeys?: true;
  /** Other `data.type` values a write may carry; '' accepts a missing type (legacy clients). */
  acceptedTypes?: readonly string[];
  attributes: A;
  relationships: R;
  /**
   * An embedded type's indexes are carried by the records that hold its records: one entry per parent and
   * distinct value (a request book is found under each labware its requests' assets are in). Such indexes
   * serve reverse relationships only, so they are neither unique, counted nor in a lookup slot.
   */
  indexes?: Record<string, IndexDef>;
  filters: Record<string, FilterDef>;
  // Hooks are methods (not function properties) so a typed definition is also a plain ResourceDef.
  /** Domain checks beyond the schemas; each problem a 422. `current` is set on update. */
  validate?(ctx: WriteContext, input: WriteInput<A, R>, current?: StoredRecord): Promise<JsonApiError[]> | JsonApiError[];
  /** Replaces the default create (store the sent attributes and relationships). */
  create?(ctx: WriteContext, input: WriteInput<A, R>): Promise<StoredRecord>;
  /** Replaces the default update. */
  update?(ctx: WriteContext, current: StoredRecord, input: WriteInput<A, R>): Promise<StoredRecord>;
  /** Custom actions by name; a name is never read as an id, nor a member action's as a relationship (lib/routes.ts lists them too). */
  actions?: Record<string, ActionDef>;
  /**
   * Serves the type's listing itself, in its one order, from items that are no records (the audit trail,
   * lib/resources/labware-audits.ts): the engine parses the filters' names and the page, and renders.
   */
  listing?: {
    order: Sort;
    page: (ctx: RequestContext, filters: Map<string, string[]>, page: Page) => Promise<CollectionPage>;
  };
}

/** A definition with its attribute and relationship types inferred, for typed hooks. */
/** Whether writing the type needs an API key of admin scope: reference data, unless daily work registers it. */
export const needsAdminKey = (def: Pick<ResourceDef, 'referenceData' | 'registeredByWriteKeys'>): boolean =>
  def.referenceData === true && def.registeredByWriteKeys !== true;

export const defineResource = <const A extends Attributes, const R extends Relationships>(def: ResourceDef<A, R>): ResourceDef<A, R> => def;

/**
 * A definition's own entry for a name the client chose. Definitions are plain objects, so an unguarded
 * `defs[name]` would also find `constructor`, `toString` or `__proto__`.
 */
export function own<T>(entries: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return entries && Object.hasOwn(entries, name) ? entries[name] : undefined;
}

/**
 * A schema built on its first use, then kept. Every function loads every definition (an include can reach
 * any type), but validates the writes of its own types only: building the others' schemas at load would
 * be most of a function's own start-up work (docs/decisions.md, "Cold starts").
 */
export function lazySchema<S>(build: () => S): () => S {
  let built: S | undefined;
  return () => (built ??= build());
}

/** Helpers that keep resource files short. An attribute's schema is given as a function, built on first use (`lazySchema`). */
export const attr = <T>(access: Access, schema: () => z.ZodMiniType<T>, options: Omit<AttributeDef<T>, 'access' | 'schema'> = {}): AttributeDef<T> => {
  const built = lazySchema(schema);
  return {
    access,
    get schema() {
      return built();
    },
    ...options,
  };
};
export const toOne = (
  types: string | readonly string[],
  access: Access,
  options: Omit<RelationshipDef, 'kind' | 'types' | 'access'> = {},
): RelationshipDef<'one'> => ({
  kind: 'one',
  types: typeof types === 'string' ? [types] : types,
  access,
  ...options,
});
export const toMany = (
  types: string | readonly string[],
  access: Access,
  options: Omit<RelationshipDef, 'kind' | 'types' | 'access'> = {},
): RelationshipDef<'many'> => ({
  kind: 'many',
  types: typeof types === 'string' ? [types] : types,
  access,
  ...options,
});
/** A relationship computed from the record alone (no reads). */
export const computed = (
  kind: 'one' | 'many',
  types: string | readonly string[],
  fn: (record: StoredRecord) => RelValue,
  access: RelationshipDef['access'] = 'R',
): RelationshipDef => ({
  ...(kind === 'one' ? toOne(types, access) : toMany(types, access)),
  resolve: async (_ctx, records) => new Map(records.map((r) => [r, fn(r)])),
});

/**
 * A read-only to-many relationship to the records of `type` whose relationship `relationship` points at
 * this record; `type` must index that relationship with `aggregateIndex` (the registry checks at start-up).
 */
export const reverse = (type: string, relationship: string, options: { max?: number } = {}): RelationshipDef<'many'> => ({
  ...toMany(type, 'R'),
  reverse: { type, relationship, ...options },
});

/**
 * The index a reverse relationship reads: entries under the aggregate of what `relationship` points at,
 * in the pointing record's id order, kept in the same transaction as the record (strongly consistent).
 */
export const aggregateIndex = (relationship: string): IndexDef => ({ aggregatesOf: relationship });

/** A time as the service writes it (UTC, milliseconds). */
export const timestamp = lazySchema(() => z.iso.datetime());

/** The standard read-only timestamps, rendered from the record's own. */
export const timestamps = {
  created_at: attr('R', timestamp, { get: (r) => r.createdAt }),
  updated_at: attr('R', timestamp, { get: (r) => r.updatedAt }),
};
export const uuidAttribute = { uuid: attr('R', () => z.uuid(), { get: (r) => r.uuid }) };
/** A deprecated `<relationship>_uuid` attribute naming that relationship's record by uuid (the relationship wins). */
export const uuidOfAttribute = (relationship: string) => attr('W', () => z.string({ error: 'must be a uuid string' }), { uuidOf: relationship });
/** A `<relationship>_uuids` attribute: names a to-many relationship's records by a list of uuids (Limber's `parent_uuids`). */
export const uuidsOfAttribute = (relationship: string) =>
  attr('W', () => z.array(z.string({ error: 'must be a uuid string' }), { error: 'must be a list of uuid strings' }), { uuidOf: relationship });

/** Filters on an index of the same name. */
export const indexFilters = (...names: string[]): Record<string, FilterDef> => Object.fromEntries(names.map((name) => [name, { index: name }]));

export const lowerCase = (value: string): string => value.toLowerCase();

const ID = /^[1-9][0-9]{0,14}$/;
/** Whether a query value names a record id (a positive integer of at most 15 digits). */
export const isRecordId = (value: string): boolean => ID.test(value);

/** `filter[id]` (every type has it, lib/jsonapi/registry.ts): ids name their records, so any number of them is one batched read. */
export const idFilter = (type: string): FilterDef => ({
  check: (name, values) => {
    const bad = values.find((value) => !isRecordId(value));
    if (bad !== undefined) throw errors.invalidParameter(`filter[${name}]`, `filter[${name}] - ${show(bad)} is not an id (a positive integer)`);
  },
  lookup: async (ctx, values) => {
    const loaded = await ctx.loader.load(values.map((value) => ({ type, id: Number(value) })));
    return [...loaded.values()].map((r) => ({ ref: '-', family: r.family, type: r.type, id: r.id }));
  },
  matches: (record, values) => values.includes(String(record.id)),
});

/**
 * A record whose uuid a client chose (a Heron sample's `uuid`, lighthouse's `lh_sample_uuid`): that uuid does
 * not encode the record's key (lib/store/uuids.ts), so a unique entry keyed by it names the record. Written
 * with the record, under attribute_not_exists: a uuid taken is a 422 naming it, nothing written; read by
 * Loader.byUuids (one consistent batched read) for any uuid that does not decode.
 */
export const uuidAliasIndex: IndexDef = {
  values: (record) => (namesItsRecord(record.uuid, record.family, record.id) ? [] : [record.uuid]),
  scope: UUID_ALIAS_SCOPE,
  unique: { field: 'uuid', pointer: '/data/attributes/uuid' },
};

/** `filter[uuid]`: a uuid names its record (lib/store/uuids.ts), so any number of them is one batched read. */
export const uuidFilter: FilterDef = {
  lookup: async (ctx, values) => {
    return (await ctx.loader.byUuids(values, ANY_SERVED_TYPE))
      .filter((r) => r !== undefined)
      .map((r) => ({ ref: '-', family: r.family, type: r.type, id: r.id }));
  },
  matches: (record, values) => values.some((v) => v.toLowerCase() === record.uuid),
};
