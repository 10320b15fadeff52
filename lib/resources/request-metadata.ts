import * as z from '#lib/zod.ts';
import { requestOptions } from '#lib/domain/requests.ts';
import type { WriteContext } from '#lib/jsonapi/context.ts';
import { errors, type JsonApiError } from '#lib/jsonapi/errors.ts';
import { attr, lazySchema, defineResource, timestamps, toOne, uuidAttribute } from '#lib/jsonapi/resource.ts';
import { defaultCreate, defaultUpdate } from '#lib/jsonapi/write.ts';
import { changeRequests } from '#lib/operations/request-books.ts';
import { linkOf, type StoredRecord } from '#lib/store/records.ts';

/**
 * Request metadata (contract §2, reference-behaviour.md §2.12): pooling figures of a single-cell
 * request, at most one record per request. The request records its metadata and renders its values as
 * `options`, so reading them through `wells.aliquots.request.request_metadata` costs no query.
 */
const REQUEST = '/data/relationships/request';
const positiveInteger = lazySchema(() => z.number().check(z.refine((n) => Number.isSafeInteger(n) && n > 0, 'must be a positive integer')));

const requestOf = (metadata: StoredRecord) => linkOf(metadata, 'request');

/** Links a request to its metadata (or to none), with the values it renders as options (a write of its book). */
const link = (ctx: WriteContext, request: StoredRecord, metadata: StoredRecord | null) =>
  changeRequests(ctx, new Map([[request.id, { metadata: metadata?.id ?? null, options: metadata ? requestOptions(metadata.attrs) : {} }]]));

export const requestMetadata = defineResource({
  type: 'request_metadata',
  methods: ['list', 'read', 'create', 'update'],
  attributes: {
    ...uuidAttribute,
    number_of_pools: attr('WO', positiveInteger),
    cells_per_chip_well: attr('WO', positiveInteger),
    // Set in the submission in the reference; nothing in this service sets it yet.
    allowance_band: attr('R', () => z.string()),
    ...timestamps,
  },
  relationships: { request: toOne('requests', 'RW', { required: true }) },
  // One record per request, also under concurrency: a guard item per request id.
  indexes: { request: { values: (r) => [requestOf(r)?.id], unique: { field: 'request', pointer: REQUEST } } },
  filters: {},

  validate: (_ctx, input, current) => {
    const request = input.relationships.request as StoredRecord | null | undefined;
    const problems: JsonApiError[] = [];
    // A missing request on POST is the engine's `required`; PATCH may move the record, never detach it.
    if (current && request === null) problems.push(errors.missingRequired(REQUEST, 'request'));
    const holder = request && linkOf(request, 'request_metadata');
    if (request && holder && holder.id !== current?.id) problems.push(errors.notUnique(REQUEST, 'request', request.id, `request_metadata ${holder.id}`));
    return problems;
  },

  create: async (ctx, input) => {
    const metadata = await defaultCreate(ctx, requestMetadata, input);
    await link(ctx, input.relationships.request as StoredRecord, metadata);
    return metadata;
  },

  // PATCH may only move the record to another request (contract §2): the previous request forgets it.
  update: async (ctx, current, input) => {
    const next = input.relationships.request as StoredRecord | undefined;
    const previous = requestOf(current);
    if (!next || next.id === previous?.id) return current;
    const old = previous && (await ctx.loader.one(previous));
    if (old) await link(ctx, old, null);
    const metadata = await defaultUpdate(ctx, requestMetadata, current, input);
    await link(ctx, next, metadata);
    return metadata;
  },
});
