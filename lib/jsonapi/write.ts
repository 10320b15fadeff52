import { createHash } from 'node:crypto';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import type { ParsedWrite, WriteMode } from '#lib/jsonapi/document.ts';
import { MAX_STRING_LENGTH, valueProblem, type ValueProblem } from '#lib/jsonapi/input-values.ts';
import type { ResourceDef, WriteInput } from '#lib/jsonapi/resource.ts';
import { loadAttributes, renderResource } from '#lib/jsonapi/render.ts';
import { recordKey, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { sameJson } from '#lib/store/unit-of-work.ts';

/** A value's problem (lib/jsonapi/input-values.ts) as the 422 at its member, naming the attribute and where in it. */
const valueError = (name: string, problem: ValueProblem): JsonApiError =>
  errors.invalidValue(pointer('data', 'attributes', name, ...problem.at), `${[name, ...problem.at].join('.')} - ${problem.detail}`);

/**
 * Checks attribute values (422s, one per problem): first what no value may hold, as sent; then each
 * against its schema, and what the schema made against the same rule (a schema may make numbers of text,
 * as a volume sent as "2.5"). Returns the parsed values.
 */
export function validateValues(def: ResourceDef, parsed: ParsedWrite): Record<string, unknown> {
  const problems: JsonApiError[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(parsed.attributes)) {
    const attribute = def.attributes[name]!;
    const maxString = attribute.maxStringLength ?? MAX_STRING_LENGTH;
    const sent = valueProblem(raw, maxString);
    if (sent) {
      problems.push(valueError(name, sent));
      continue;
    }
    if (raw === null) {
      values[name] = raw;
      continue;
    }
    const result = attribute.schema.safeParse(raw);
    if (result.success) {
      const made = valueProblem(result.data, maxString);
      if (made) problems.push(valueError(name, made));
      else values[name] = result.data;
      continue;
    }
    for (const issue of result.error.issues) {
      const at = pointer('data', 'attributes', name, ...issue.path.map(String));
      const detail = `${[name, ...issue.path].join('.')} - ${issue.message}, got ${show(raw)}`;
      problems.push(issue.code === 'invalid_type' ? errors.wrongType(at, detail) : errors.invalidValue(at, detail));
    }
  }
  if (problems.length > 0) throw JsonApiError.all(problems);
  return values;
}

/**
 * Turns a parsed write into the input a resource's hooks see, checking it in the contract's order (§1.2;
 * docs/decisions.md, "Request path"): references first (relationship linkage, then `*_uuid` attributes: 404s, or
 * a 400 for a uuid attribute that is no string), reported on their own, since the checks after them judge the
 * records the references resolve to; then required values (422 on create) and the definition's own rules
 * (`validate`, 422), reported together.
 */
export async function resolveInput(
  ctx: WriteContext,
  def: ResourceDef,
  parsed: ParsedWrite,
  values: Record<string, unknown>,
  mode: WriteMode,
  current?: StoredRecord,
): Promise<WriteInput> {
  const input: WriteInput = { attributes: {}, relationships: {}, sent: new Set() };
  const refs = linkedRefs(parsed);
  // Everything the write names, by linkage or by uuid (a transfer's `source_uuid`, `user_uuid`, its template's uuid, …), in one read.
  await ctx.loader.prefetch(refs, namedUuids(def, values));

  const unresolved = await resolveLinkage(ctx, def, parsed, refs, input);
  unresolved.push(...(await resolveUuidAttributes(ctx, def, parsed, values, input)));
  if (unresolved.length > 0) throw JsonApiError.all(unresolved);

  const problems = mode === 'create' ? checkRequired(def, input) : [];
  if (def.validate) problems.push(...(await def.validate(ctx, input, current)));
  if (problems.length > 0) throw JsonApiError.all(problems);
  return input;
}

/** The records a write's relationship linkage names, in the order sent. */
function linkedRefs(parsed: ParsedWrite): Ref[] {
  return Object.values(parsed.links).flatMap((v) => (v === null ? [] : Array.isArray(v) ? v : [v]));
}

/** The uuids a write's attributes name: `*_uuid(s)` attributes, and those an attribute reads itself (`readsUuid`). */
function namedUuids(def: ResourceDef, values: Record<string, unknown>): string[] {
  return Object.entries(values).flatMap(([name, value]) => {
    const attribute = def.attributes[name]!;
    return attribute.uuidOf || attribute.readsUuid ? ([] as unknown[]).concat(value).filter((uuid): uuid is string => typeof uuid === 'string') : [];
  });
}

/**
 * Sets each relationship sent to the records its linkage names; a 404 for each that names no record. A
 * to-many relationship keeps the records found, so the other relationships and uuid attributes can still
 * be checked and every missing reference reported at once.
 */
async function resolveLinkage(ctx: WriteContext, def: ResourceDef, parsed: ParsedWrite, refs: Ref[], input: WriteInput): Promise<JsonApiError[]> {
  const problems: JsonApiError[] = [];
  const loaded = await ctx.loader.load(refs);
  for (const [name, value] of Object.entries(parsed.links)) {
    input.sent.add(name);
    const { types } = def.relationships[name]!;
    const pick = (ref: { type: string; id: number }, at: string) => {
      const found = loaded.get(`${ref.type}:${ref.id}`);
      // Linkage of the type the relationship renders (`purposes`) may name a record of a kind it does not take (a tube purpose for a plate).
      const record = found && ctx.registry.satisfies(found.type, types) ? found : undefined;
      if (!record) problems.push(errors.notFound(`${name} - no ${found ? types.join(' or ') : ref.type} with id ${ref.id}`, { pointer: at }));
      return record;
    };
    const at = pointer('data', 'relationships', name, 'data');
    input.relationships[name] =
      value === null
        ? null
        : Array.isArray(value)
          ? value.map((r, i) => pick(r, at + pointer(i))).filter((r): r is StoredRecord => !!r)
          : (pick(value, at) ?? null);
  }
  return problems;
}

/**
 * Copies the attribute values into the input and resolves the deprecated `*_uuid(s)` attributes to the
 * records of their relationship: a 404 for each uuid that names no record, a 400 for a value that is no
 * uuid string. One pass over the attributes in the order sent, so `input.sent` keeps that order.
 */
async function resolveUuidAttributes(
  ctx: WriteContext,
  def: ResourceDef,
  parsed: ParsedWrite,
  values: Record<string, unknown>,
  input: WriteInput,
): Promise<JsonApiError[]> {
  const problems: JsonApiError[] = [];
  for (const [name, value] of Object.entries(values)) {
    const target = def.attributes[name]!.uuidOf;
    if (!target) {
      input.attributes[name] = value;
      input.sent.add(name);
      continue;
    }
    // The relationship wins over its deprecated uuid attribute, even when it is {"data": null}.
    if (target in parsed.links || value === null || value === undefined) continue;
    input.sent.add(target).add(name);
    const types = def.relationships[target]!.types;
    const notFound = (uuid: unknown, at: string) => errors.notFound(`${name} - no ${types.join(' or ')} with uuid ${show(uuid)}`, { pointer: at });
    if (Array.isArray(value)) {
      const records = await ctx.loader.byUuids(value, types);
      for (const [i, record] of records.entries()) if (!record) problems.push(notFound(value[i], pointer('data', 'attributes', name, i)));
      input.relationships[target] = records.filter((record): record is StoredRecord => record !== undefined);
      continue;
    }
    if (typeof value !== 'string') {
      problems.push(errors.wrongType(`/data/attributes/${name}`, `${name} - must be a uuid string, got ${show(value)}`));
      continue;
    }
    const record = await ctx.loader.byUuid(value, types);
    if (!record) problems.push(notFound(value, `/data/attributes/${name}`));
    else input.relationships[target] = record;
  }
  return problems;
}

/**
 * A create must give every required attribute and relationship (422 each, attributes first); an update
 * changes only what it sends, so the record keeps the values it has.
 */
function checkRequired(def: ResourceDef, input: WriteInput): JsonApiError[] {
  const problems: JsonApiError[] = [];
  for (const [name, attribute] of Object.entries(def.attributes)) {
    if (attribute.required && (input.attributes[name] === undefined || input.attributes[name] === null))
      problems.push(errors.missingRequired(`/data/attributes/${name}`, name));
  }
  for (const [name, relationship] of Object.entries(def.relationships)) {
    const value = input.relationships[name];
    if (relationship.required && (value === undefined || value === null || (Array.isArray(value) && value.length === 0))) {
      problems.push(errors.missingRequired(`/data/relationships/${name}`, name));
    }
  }
  return problems;
}

/** Attributes the default operations store: those sent, minus the ones a resource consumes itself. */
export function storedAttributes(def: ResourceDef, input: WriteInput): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input.attributes).filter(([name]) => !def.attributes[name]!.transient));
}

export function relValue(value: StoredRecord | StoredRecord[] | null | undefined): RelValue {
  return value === null || value === undefined ? null : Array.isArray(value) ? value.map(refOf) : refOf(value);
}

export function storedRelationships(input: WriteInput): Record<string, RelValue> {
  return Object.fromEntries(Object.entries(input.relationships).map(([name, value]) => [name, relValue(value)]));
}

/** Creates the record a write describes, under `id` if one was reserved already, else under a fresh one. */
export async function defaultCreate(ctx: WriteContext, def: ResourceDef, input: WriteInput, id?: number): Promise<StoredRecord> {
  return ctx.uow.create(def.type, { attrs: storedAttributes(def, input), rels: storedRelationships(input), ...(id !== undefined ? { id } : {}) });
}

export async function defaultUpdate(ctx: WriteContext, def: ResourceDef, current: StoredRecord, input: WriteInput): Promise<StoredRecord> {
  return ctx.uow.update(current, { attrs: storedAttributes(def, input), rels: storedRelationships(input) });
}

/**
 * Records one event per record the unit of work created or changed (contract §4), data as the API
 * renders it — and for the request's own records when they live inside another (a POSTed aliquot).
 * Attributes a GET loads (a rack's state from its tubes, a lot's names, a pick list's picks) are loaded
 * here too, through the write's own reads, so an event carries what a GET shows — but for an attribute
 * kept out of events (`notInEvents`: a QC file's contents, past the bus's 256 KB).
 */
export async function recordEvents(
  ctx: WriteContext,
  input: Pick<WriteInput, 'relationships'>,
  primary: StoredRecord | readonly StoredRecord[],
  mode: 'create' | 'update',
): Promise<void> {
  const user = input.relationships.user;
  const actor = {
    api_key: ctx.apiKey?.name ?? null,
    user: user && !Array.isArray(user) ? { type: user.type, id: String(user.id), uuid: user.uuid } : null,
  };
  const written = writtenRecords(ctx);
  // A write that changed nothing (a stock registration that would repeat the last) is no event, not even its answer's record's.
  if (written.length === 0) return;
  const unwritten = ([] as StoredRecord[])
    .concat(primary)
    .filter((record) => !written.some(({ record: r }) => r.family === record.family && r.id === record.id))
    .map((record) => ({ record, action: mode === 'create' ? 'created' : 'updated' }));
  const events = [...unwritten, ...written];
  const loaded = await loadAttributes(
    ctx,
    events.map(({ record }) => record),
    new Map(),
    true,
  );
  for (const { record, action } of events) {
    ctx.uow.addEvent({
      type: `${record.type}.${action}`,
      resource: { type: record.type, id: String(record.id), uuid: record.uuid || null, version: record.version },
      data: renderResource(ctx, record, new Map(), new Map(), loaded.get(record)),
      actor,
    });
  }
}

/**
 * The records a write created or changed, each with its event's action. A record of an internal type (a
 * request book) is no event itself: the records it holds are, those it gained created, those that differ
 * changed. A record created and then moved on in the same write (a submission built as it is made) is an
 * event per version: created in its first state, then each move.
 */
function writtenRecords(ctx: WriteContext): { record: StoredRecord; action: string }[] {
  const { registry, uow } = ctx;
  const held = (record: StoredRecord) => registry.embeddedIn(record.type).flatMap((def) => registry.viewsOf(def, record));
  const isInternal = (record: StoredRecord) => registry.require(record.type).internal === true;
  const changed = (before: StoredRecord, after: StoredRecord, event?: string) =>
    event ?? ('state' in after.attrs && before.attrs.state !== after.attrs.state ? 'state_changed' : 'updated');
  const createdThrough = (record: StoredRecord) => {
    const moves = uow.movesOf(record);
    if (moves.length === 0) return [{ record, action: 'created' }];
    return [{ record: moves[0]!.before, action: 'created' }, ...moves.map(({ event }, i) => ({ record: moves[i + 1]?.before ?? record, action: event }))];
  };
  const written = uow.created.flatMap((record) => (isInternal(record) ? held(record).map((r) => ({ record: r, action: 'created' })) : createdThrough(record)));
  for (const { before, after, event } of uow.updated) {
    if (!isInternal(after)) {
      written.push({ record: after, action: changed(before, after, event) });
      continue;
    }
    const earlier = new Map(held(before).map((r) => [recordKey(r.family, r.id), r]));
    for (const record of held(after)) {
      const was = earlier.get(recordKey(record.family, record.id));
      if (!was) written.push({ record, action: 'created' });
      else if (!sameJson(was.attrs, record.attrs) || !sameJson(was.rels, record.rels)) written.push({ record, action: changed(was, record) });
    }
  }
  return written;
}

export const requestHash = (method: string, path: string, body: string | undefined): string =>
  createHash('sha256')
    .update(`${method}\n${path}\n${body ?? ''}`)
    .digest('hex');
