import * as z from '#lib/zod.ts';
import { REQUEST_STATES } from '#lib/domain/machines.ts';
import { errors, show } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, timestamps, toMany, toOne, uuidAttribute, type FilterDef } from '#lib/jsonapi/resource.ts';

/**
 * Types whose records the reference's own pipelines make and this service has no writer for (its clients
 * only read them): served read-only with the attributes, relationships and filters of the reference's
 * resource files, so a client's reads and includes answer as the reference's do for a lab without such
 * records — an empty collection, a 404 by id. Why each has no writer here: docs/decisions.md, "Types
 * without a writer".
 */

/** Lanes (the reference's Lane: a flowcell's receptacle, made when a sequencing batch is released from its web pipelines). */
export const lanes = defineResource({
  type: 'lanes',
  methods: ['list', 'read'],
  attributes: { ...uuidAttribute, name: attr('R', () => z.string()) },
  relationships: { samples: toMany('samples', 'R'), studies: toMany('studies', 'R'), projects: toMany('projects', 'R') },
  filters: {},
});

/** Fragments (the reference's Fragment: legacy gel fragments, no longer created there either). */
export const fragments = defineResource({
  type: 'fragments',
  methods: ['list', 'read'],
  attributes: { ...uuidAttribute },
  relationships: {},
  filters: {},
});

/** `filter[<name>]` on a stored attribute, values compared exactly (the reference's `where`). */
const attributeFilter = (name: string, allowed?: readonly string[]): FilterDef => ({
  ...(allowed
    ? {
        check: (filter: string, values: string[]) => {
          const bad = values.find((value) => !allowed.includes(value));
          if (bad !== undefined)
            throw errors.invalidParameter(`filter[${filter}]`, `filter[${filter}] - must be one of ${allowed.join(', ')}, got ${show(bad)}`);
        },
      }
    : {}),
  test: (_ctx, records, values) => records.map((r) => values.includes(String(r.attrs[name]))),
});

/**
 * Work orders (the reference's WorkOrder: made by its WorkOrder::Factory when a submission of its
 * `Request::Traction::GridIon` requests is built; `state` and `at_risk` may be PATCHed there). Rendered
 * as the reference renders them: `quantity` as number and unit, `options` its example request's metadata.
 */
export const workOrders = defineResource({
  type: 'work_orders',
  methods: ['list', 'read'],
  attributes: {
    at_risk: attr('R', () => z.boolean()),
    options: attr('R', () => z.record(z.string(), z.unknown())),
    order_type: attr('R', () => z.string()),
    quantity: attr('R', () => z.object({ number: z.number(), unit_of_measurement: z.string() })),
    state: attr('R', () => z.enum(REQUEST_STATES)),
  },
  relationships: {
    study: toOne('studies', 'R'),
    project: toOne('projects', 'R'),
    source_receptacle: toOne('receptacles', 'R'),
    samples: toMany('samples', 'R'),
  },
  filters: { order_type: attributeFilter('order_type'), state: attributeFilter('state', REQUEST_STATES) },
});

/**
 * Pick lists (the reference's PickList: a submission of cherrypick requests that its CherrypickPipeline
 * turns into batches; `links` are those batches' web pages). Read-only here: docs/types.md says why POST
 * is not served.
 */
export const pickLists = defineResource({
  type: 'pick_lists',
  methods: ['list', 'read'],
  attributes: {
    ...timestamps,
    state: attr('R', () => z.enum(['pending', 'built'])),
    links: attr('R', () => z.array(z.object({ name: z.string(), url: z.string() }))),
    pick_attributes: attr('R', () =>
      z.array(z.object({ source_receptacle_id: z.number(), study_id: z.nullable(z.number()), project_id: z.nullable(z.number()) })),
    ),
    asynchronous: attr('R', () => z.boolean()),
  },
  relationships: {},
  filters: {},
});
