import * as z from '#lib/zod.ts';
import { REQUEST_STATES } from '#lib/domain/machines.ts';
import type { WorkOrderChange } from '#lib/domain/work-orders.ts';
import { errors, pointer, show } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, toMany, toOne, type FilterDef } from '#lib/jsonapi/resource.ts';
import { changeWorkOrder } from '#lib/operations/work-orders.ts';

/**
 * Work orders (the reference's WorkOrder): one per source receptacle of a submission of GridION requests,
 * made as the submission is built (lib/operations/work-orders.ts, from lib/operations/submission-build.ts).
 * Rendered as the reference renders them: `quantity` as number and unit, `options` its first request's
 * metadata. PATCH changes `state` and `at_risk`, on the work order and on each of its requests.
 */

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

const CHANGEABLE = ['state', 'at_risk'] as const;

export const workOrders = defineResource({
  type: 'work_orders',
  methods: ['list', 'read', 'update'],
  attributes: {
    at_risk: attr('RW', () => z.boolean()),
    options: attr('R', () => z.record(z.string(), z.unknown())),
    order_type: attr('R', () => z.string()),
    quantity: attr('R', () => z.object({ number: z.number(), unit_of_measurement: z.string() })),
    state: attr('RW', () => z.enum(REQUEST_STATES)),
  },
  relationships: {
    study: toOne('studies', 'R'),
    project: toOne('projects', 'R'),
    source_receptacle: toOne('receptacles', 'R'),
    samples: toMany('samples', 'R'),
  },
  filters: { order_type: attributeFilter('order_type'), state: attributeFilter('state', REQUEST_STATES) },
  update: (ctx, current, input) => {
    const change: WorkOrderChange = {};
    for (const name of CHANGEABLE) {
      const value = input.attributes[name];
      if (value === null) throw errors.missingRequired(pointer('data', 'attributes', name), name);
      if (value !== undefined) Object.assign(change, { [name]: value });
    }
    return changeWorkOrder(ctx, current, change);
  },
});
