import { z } from 'zod';
import type { WriteContext } from '#lib/jsonapi/context.ts';
import { parseWriteDocument } from '#lib/jsonapi/document.ts';
import { errors, JsonApiError } from '#lib/jsonapi/errors.ts';
import { Registry } from '#lib/jsonapi/registry.ts';
import { attr, timestamps, uuidAttribute, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { defaultCreate, resolveInput, validateValues } from '#lib/jsonapi/write.ts';
import { registry } from '#lib/resources/index.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/**
 * A test-only type with two custom actions, to prove actions through the engine before a real resource
 * declares one (poly_metadata's bulk_create, contract §2):
 *
 * - `POST /api/v2/test_counters/bulk_create` with `data` an array of resource objects: creates them all or
 *   none, each through the engine's own parsing and validation (errors point at `/data/<index>/…`), 201.
 * - `POST /api/v2/test_counters/tally` with `data` naming one counter: adds one to its `count`, 200. It reads
 *   before it writes, so concurrent tallies of one counter conflict and are retried from fresh reads.
 */
const TYPE = 'test_counters';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The error with its pointers moved from the document's `/data` to `/data/<index>`. */
function atEntry(index: number, error: unknown): unknown {
  if (!(error instanceof JsonApiError)) return error;
  const moved = error.errors.map((e) =>
    e.source?.pointer?.startsWith('/data') ? { ...e, source: { ...e.source, pointer: `/data/${index}${e.source.pointer.slice('/data'.length)}` } } : e,
  );
  return new JsonApiError(moved, error.headers);
}

async function bulkCreate(ctx: WriteContext, body: unknown) {
  const def = ctx.registry.require(TYPE);
  if (!isObject(body) || !Array.isArray(body.data)) throw errors.invalidMember('/data', 'data must be an array of resource objects');
  const created: StoredRecord[] = [];
  for (const [index, data] of body.data.entries()) {
    try {
      const parsed = parseWriteDocument(ctx.registry, def, { data }, 'create');
      const input = await resolveInput(ctx, def, parsed, validateValues(def, parsed), 'create');
      created.push(await defaultCreate(ctx, def, input));
    } catch (error) {
      throw atEntry(index, error);
    }
  }
  return { status: 201 as const, data: created };
}

async function tally(ctx: WriteContext, body: unknown) {
  const id = isObject(body) && isObject(body.data) ? Number(body.data.id) : Number.NaN;
  const counter = Number.isInteger(id) ? await ctx.loader.one({ type: TYPE, id }) : undefined;
  if (!counter) throw errors.notFound(`no ${TYPE} with id ${String(id)}`, { pointer: '/data/id' });
  return { status: 200 as const, data: ctx.uow.update(counter, { attrs: { count: Number(counter.attrs.count ?? 0) + 1 } }) };
}

export const testCounters: ResourceDef = {
  type: TYPE,
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    label: attr('RW', z.string().min(1), { required: true }),
    count: attr('R', z.number().int()),
    ...timestamps,
  },
  relationships: {},
  filters: {},
  actions: {
    bulk_create: { method: 'POST', run: bulkCreate },
    tally: { method: 'POST', run: tally },
  },
};

/** The service's registry plus the test-only types. */
export const countersRegistry = new Registry([...registry.types.map((type) => registry.require(type)), testCounters]);
