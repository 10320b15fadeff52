import { z } from 'zod';
import type { WriteContext } from '#lib/jsonapi/context.ts';
import { resolveEntries } from '#lib/jsonapi/entries.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { Registry } from '#lib/jsonapi/registry.ts';
import { attr, timestamps, uuidAttribute, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { defaultCreate } from '#lib/jsonapi/write.ts';
import { registry } from '#lib/resources/index.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/**
 * A test-only type with two custom actions, to prove actions through the engine before a real resource
 * declares one (poly_metadata's bulk_create, contract §2):
 *
 * - `POST /api/v2/test_counters/bulk_create` with `data` an array of resource objects: creates them all or
 *   none, each checked as its own POST would be (`resolveEntries`, as poly_metadata's; errors point at `/data/<index>/…`), 201.
 * - `POST /api/v2/test_counters/tally` with `data` naming one counter: adds one to its `count`, 200. It reads
 *   before it writes, so concurrent tallies of one counter conflict and are retried from fresh reads.
 */
const TYPE = 'test_counters';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

async function bulkCreate(ctx: WriteContext, body: unknown) {
  const def = ctx.registry.require(TYPE);
  const created: StoredRecord[] = [];
  const inputs = await resolveEntries(ctx, def, body, { max: 90, why: 'each writes one of the 100 items a transaction holds' });
  for (const input of inputs) created.push(await defaultCreate(ctx, def, input));
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
    label: attr('RW', () => z.string().min(1), { required: true }),
    count: attr('R', () => z.number().int()),
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
