import { config } from '#lib/config.ts';
import { bodyBound } from '#lib/http/response-size.ts';
import { Loader, refKey, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { parseFieldsets } from '#lib/jsonapi/fieldsets.ts';
import { checkFilterNames, recordMatches, withDefaultFilters } from '#lib/jsonapi/filters.ts';
import { listRecords, type CollectionPage } from '#lib/jsonapi/listing.ts';
import { inMemoryPage, pageLinks, parsePage, parseSort, positionOf, type Page, type Sort } from '#lib/jsonapi/paging.ts';
import { parseId, parseWriteDocument, type WriteMode } from '#lib/jsonapi/document.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { auditWrite } from '#lib/jsonapi/audit.ts';
import { compoundBody, type Frame, type ReadOptions } from '#lib/jsonapi/compound.ts';
import { parseIncludes, resolveRelationship } from '#lib/jsonapi/include.ts';
import { parseQuery, type ParsedQuery } from '#lib/jsonapi/query.ts';
import type { ApiRequest, ApiResponse, Target } from '#lib/jsonapi/request.ts';
import { linkedTypes, own, type ActionDef, type ActionResult, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { linkage, resourceUrl } from '#lib/jsonapi/render.ts';
import { defaultCreate, defaultUpdate, recordEvents, requestHash, resolveInput, validateValues } from '#lib/jsonapi/write.ts';
import { refsOf, type StoredRecord } from '#lib/store/records.ts';
import { currentDeadline } from '#lib/store/client.ts';
import { ConflictError, IdempotencyRace } from '#lib/store/errors.ts';
import { readRequest } from '#lib/store/payload-items.ts';
import { stableReads } from '#lib/store/visibility.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { IDEMPOTENCY_SECONDS } from '#lib/store/write-plan.ts';

/*
 * The request pipeline: serves one request that authentication and routing have admitted, a read or a write
 * (or an action) committed as one transaction. The request and response types and the path helpers routing
 * uses are lib/jsonapi/request.ts.
 */

const answer = (status: number, body: string, headers: Record<string, string> = {}): ApiResponse => ({ status, headers, body });
const json = (status: number, document: unknown, headers: Record<string, string> = {}): ApiResponse => answer(status, JSON.stringify(document), headers);

function urlId(raw: string): number {
  const id = parseId(raw);
  if (id === undefined) throw errors.invalidId(raw, { parameter: 'id' });
  return id;
}

/** The record a URL's id names: 400 for a malformed id, 404 for one no record of the type has. */
export async function loadOwner(ctx: Pick<RequestContext, 'loader'>, def: ResourceDef, rawId: string): Promise<StoredRecord> {
  const id = urlId(rawId);
  const record = await ctx.loader.one({ type: def.type, id });
  if (!record) throw errors.notFound(`The record identified by ${id} could not be found (${def.type}).`);
  return record;
}

function readOptions(ctx: RequestContext, query: ParsedQuery, rootTypes: readonly string[]): ReadOptions {
  return { fields: parseFieldsets(ctx.registry, query.fields), tree: parseIncludes(ctx.registry, rootTypes, query.include) };
}

/** The body of primary data with its compound document, whole: one record, or a write's answer (which must tell all it did). */
async function wholeBody(ctx: RequestContext, request: ApiRequest, primary: StoredRecord[], options: ReadOptions, shape: 'one' | 'many', frame: Frame) {
  return compoundBody(ctx, primary, options, bodyBound(request.headers['accept-encoding']), shape, frame, false);
}

/**
 * A page of a collection with its compound document, shortened to what one response holds (contract
 * §7.2): then `links.next` continues by cursor from the first record left out — page numbers count
 * whole pages, so they cannot say where a shortened one ends — and `meta.page_shortened` says so.
 */
async function pageResponse(
  ctx: RequestContext,
  request: ApiRequest,
  query: ParsedQuery,
  options: ReadOptions,
  sort: Sort,
  page: Page,
  listed: CollectionPage,
) {
  const { records, count, next } = listed;
  const frame: Frame = (kept, shortenedBy) => ({
    links: pageLinks(ctx, request.path, query, page, sort, count, shortenedBy ? { after: positionOf(records[kept - 1]!, sort), count } : next),
    meta: {
      record_count: count,
      ...(shortenedBy ? { page_shortened: { records: kept, page_size: page.size, limit: shortenedBy === 'bytes' ? 'response_size' : 'read_budget' } } : {}),
    },
  });
  return answer(200, await compoundBody(ctx, records, options, bodyBound(request.headers['accept-encoding']), 'many', frame, true));
}

async function getCollection(ctx: RequestContext, def: ResourceDef, request: ApiRequest, query: ParsedQuery): Promise<ApiResponse> {
  checkFilterNames(def, query.filters);
  const options = readOptions(ctx, query, [def.type]);
  // Defaults filter what is read, not the links: a next page applies them again.
  const filters = withDefaultFilters(def, query.filters);
  if (def.listing) {
    // A listing in one order of its own: asking for another is a 400, not a silent reorder.
    if (query.sort) throw errors.invalidParameter('sort', `sort - ${def.type} are listed in one order (newest first), got ${query.sort.join(',')}`);
    const page = parsePage(query, def.listing.order);
    return pageResponse(ctx, request, query, options, def.listing.order, page, await def.listing.page(ctx, filters, page));
  }
  const sort = parseSort(query.sort);
  const page = parsePage(query, sort);
  return pageResponse(ctx, request, query, options, sort, page, await listRecords(ctx, def, filters, sort, page));
}

async function getRelated(ctx: RequestContext, owner: StoredRecord, name: string, request: ApiRequest, query: ParsedQuery): Promise<ApiResponse> {
  const relationship = ctx.registry.require(owner.type).relationships[name]!;
  const value = (await resolveRelationship(ctx, name, [owner])).get(owner) ?? null;
  const loaded = await ctx.loader.load(refsOf(value));
  const targets = refsOf(value)
    .map((r) => {
      const stored = loaded.get(refKey(r));
      return stored && ctx.registry.as(stored, r.type);
    })
    .filter((r): r is StoredRecord => r !== undefined);
  const options = readOptions(ctx, query, linkedTypes(relationship));
  if (relationship.kind === 'one')
    return answer(200, await wholeBody(ctx, request, targets.slice(0, 1), options, 'one', () => ({ links: { self: `${ctx.baseUrl}${request.path}` } })));
  // A related collection is bounded by its owner, so it is filtered, sorted and paged in memory.
  const targetDef = ctx.registry.get(relationship.types[0]!);
  let matching = targets;
  if (targetDef) {
    checkFilterNames(targetDef, query.filters);
    for (const [filter, values] of query.filters) {
      const keep = await Promise.all(matching.map((r) => recordMatches(ctx, targetDef, targetDef.filters[filter]!, values, r)));
      matching = matching.filter((_, i) => keep[i]);
    }
  } else if (query.filters.size > 0) {
    throw errors.filterNotAllowed(`filter[${[...query.filters.keys()][0]}]`, [...query.filters.keys()][0]!, relationship.types[0]!, []);
  }
  const sort = parseSort(query.sort);
  const page = parsePage(query, sort);
  return pageResponse(ctx, request, query, options, sort, page, inMemoryPage(matching, sort, page));
}

async function get(ctx: RequestContext, def: ResourceDef, target: Target, request: ApiRequest): Promise<ApiResponse> {
  const query = parseQuery(request.query);
  if (target.id === undefined) return getCollection(ctx, def, request, query);
  const owner = await loadOwner(ctx, def, target.id);
  if (target.relationship === undefined) {
    return answer(
      200,
      await wholeBody(ctx, request, [owner], readOptions(ctx, query, [owner.type]), 'one', () => ({ links: { self: resourceUrl(ctx, owner.type, owner.id) } })),
    );
  }
  if (!own(ctx.registry.require(owner.type).relationships, target.relationship)) {
    throw errors.notFound(`${target.relationship} is not a relationship of ${owner.type}`);
  }
  if (!target.linkageOnly) return getRelated(ctx, owner, target.relationship, request, query);
  const value = (await resolveRelationship(ctx, target.relationship, [owner])).get(owner) ?? null;
  const self = resourceUrl(ctx, owner.type, owner.id);
  return json(200, { data: linkage(value), links: { self: `${self}/relationships/${target.relationship}`, related: `${self}/${target.relationship}` } });
}

/**
 * Only writes of the same record (or the same unique value) conflict: among them, writes into different
 * wells of one plate, which is one record. The loser starts again from fresh reads after a fully jittered
 * pause that doubles with each conflict, in units of the attempt's own duration (how long it held its reads
 * before committing: what spreading the contenders out must cover, on a fast Lambda or a busy laptop
 * alike), at most MAX_BACKOFF_MS. It goes on while the request's conflict window lasts: until a quarter of
 * its budget is left, kept for the last attempt's reads, commit and answer. A conflict that outlasts the
 * window is a 409 (the last ConflictError, lib/jsonapi/store-errors.ts). A window in time rather than a
 * count of attempts absorbs a burst however many writers it has (docs/decisions.md, "Request deadlines and
 * conflicting writers"). A generated barcode found taken also starts the write again.
 */
const MIN_BACKOFF_UNIT_MS = 10;
const MAX_BACKOFF_MS = 3_000;
const RESERVED_SHARE_OF_BUDGET = 0.25;

/** When a write stops retrying conflicts: its request's deadline (or, for a message, a budget from now) less the reserve. */
function conflictWindowEnd(): number {
  const deadline = currentDeadline();
  const budgetMs = deadline?.budgetMs ?? config().LTS_REQUEST_BUDGET_MS;
  return (deadline?.at ?? Date.now() + budgetMs) - budgetMs * RESERVED_SHARE_OF_BUDGET;
}

/** Idempotency keys name the request item, whose partition key DynamoDB limits to 2,048 bytes (with the key's name). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

function parseBody(request: ApiRequest): unknown {
  try {
    return JSON.parse(request.body ?? '');
  } catch (error) {
    throw errors.invalidJson((error as Error).message);
  }
}

/** The response to a write: its primary data in a compound document; a single created record's Location. */
async function writeResponse(ctx: RequestContext, request: ApiRequest, { status, data, reply }: ActionResult, options: ReadOptions): Promise<ApiResponse> {
  if (reply !== undefined) return json(status, reply);
  if (Array.isArray(data)) return answer(status, await wholeBody(ctx, request, data, options, 'many', () => ({})));
  const self = resourceUrl(ctx, data.type, data.id);
  return answer(status, await wholeBody(ctx, request, [data], options, 'one', () => ({ links: { self } })), status === 201 ? { Location: self } : {});
}

/**
 * The write pipeline every POST, PATCH and action runs through. `stage` stages the write's changes and
 * events in a fresh unit of work, committed as one transaction; after a conflict it runs again from fresh
 * reads. A POST under an Idempotency-Key answers a repeat with the first response.
 */
async function commitWrite(
  ctx: RequestContext,
  def: ResourceDef,
  request: ApiRequest,
  stage: (wctx: WriteContext) => Promise<ActionResult>,
): Promise<ApiResponse> {
  const query = parseQuery(request.query);
  const options = readOptions(ctx, query, [def.type]);

  const idempotencyKey = request.method === 'POST' || request.replayPatch ? request.headers['idempotency-key'] : undefined;
  if (idempotencyKey !== undefined && idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw errors.invalidHeader('Idempotency-Key', `Idempotency-Key may be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, got ${idempotencyKey.length}`);
  }
  const scopedKey = idempotencyKey ? `${ctx.apiKey?.name ?? ''}\n${idempotencyKey}` : undefined;
  const hash = requestHash(request.method, request.path, request.body);
  const replay = async (): Promise<ApiResponse | undefined> => {
    if (!scopedKey) return undefined;
    const data = await readRequest(scopedKey);
    if (!data?.response || Date.parse(data.committedAt) + IDEMPOTENCY_SECONDS * 1000 < Date.now()) return undefined;
    if (data.requestHash !== hash) throw errors.idempotencyMismatch();
    return data.response;
  };
  const earlier = await replay();
  if (earlier) return earlier;

  const retryUntil = conflictWindowEnd();
  for (let attempt = 1; ; attempt++) {
    const attemptStart = Date.now();
    const uow = new UnitOfWork(ctx.registry, ctx.now);
    const wctx: WriteContext = { ...ctx, uow, loader: new Loader(ctx.registry, (family, rid) => uow.staged(family, rid), true) };
    const result = await stage(wctx);
    // The audit trail is derived here, once for every write and action, from the events it recorded.
    await auditWrite(wctx, result.data);
    const response = await writeResponse(wctx, request, result, options);
    if (scopedKey) uow.rememberResponse(scopedKey, hash, response);
    try {
      await uow.commit();
      return response;
    } catch (error) {
      if (error instanceof IdempotencyRace) return (await replay()) ?? response;
      const left = retryUntil - Date.now();
      if (!(error instanceof ConflictError)) throw error;
      // Another attempt under the same key (a retry of a write past one transaction, which ended this one's) may have answered.
      const answered = await replay();
      if (answered) return answered;
      if (left <= 0) throw error;
      // Another request changed what this one read: start again from fresh reads, after a pause (see MAX_BACKOFF_MS).
      const unit = Math.max(MIN_BACKOFF_UNIT_MS, Date.now() - attemptStart);
      const pause = Math.random() * Math.min(MAX_BACKOFF_MS, unit * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }
}

async function write(ctx: RequestContext, def: ResourceDef, target: Target, request: ApiRequest, mode: WriteMode): Promise<ApiResponse> {
  const id = mode === 'update' ? urlId(target.id!) : undefined;
  const parsed = parseWriteDocument(ctx.registry, def, parseBody(request), mode, id, def.acceptedTypes);
  const values = validateValues(def, parsed);
  return commitWrite(ctx, def, request, async (wctx) => {
    const current = id === undefined ? undefined : await loadOwner(wctx, def, String(id));
    const input = await resolveInput(wctx, def, parsed, values, mode, current);
    const record =
      mode === 'create'
        ? await (def.create ?? ((c, i) => defaultCreate(c, def, i)))(wctx, input)
        : await (def.update ?? ((c, r, i) => defaultUpdate(c, def, r, i)))(wctx, current!, input);
    await recordEvents(wctx, input, record, mode);
    return { status: mode === 'create' ? 201 : 200, data: record };
  });
}

async function runAction(ctx: RequestContext, def: ResourceDef, target: Target, action: ActionDef, request: ApiRequest): Promise<ApiResponse> {
  const body = parseBody(request);
  // JSON:API 1.0 wants an id where the reference renders none: the action's name, which names no record (a GET of it is a 405).
  if (action.answer) return json(200, { data: { type: def.type, id: target.action, attributes: await action.answer(ctx, body) } });
  return commitWrite(ctx, def, request, async (wctx) => {
    const result = action.on === 'member' ? await action.run(wctx, body, await loadOwner(wctx, def, target.id!)) : await action.run(wctx, body);
    // An action names no acting user; its primary data are what it created (201) or changed.
    await recordEvents(wctx, { relationships: {} }, result.data, result.status === 201 ? 'create' : 'update');
    return result;
  });
}

/** Serves one request addressed to `def` once authentication, routing and media types have passed. */
export async function serve(ctx: RequestContext, def: ResourceDef, target: Target, request: ApiRequest): Promise<ApiResponse> {
  // Routing admitted only the action's own method.
  if (target.action !== undefined) return runAction(ctx, def, target, own(def.actions, target.action)!, request);
  switch (request.method) {
    case 'GET':
      // Every read of the answer sees each large write whole or not at all (afresh, with a new loader, if one committed under them).
      return stableReads(() => get({ ...ctx, loader: new Loader(ctx.registry) }, def, target, request));
    case 'POST':
      return write(ctx, def, target, request, 'create');
    case 'PATCH':
      return write(ctx, def, target, request, 'update');
    default:
      throw new Error(`${request.method} reached the engine; routing admits only GET, POST and PATCH`);
  }
}
