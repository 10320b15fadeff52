import * as z from '#lib/zod.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { aggregateIndex, attr, defineResource, reverse, timestamps, toMany, toOne, uuidAttribute, uuidFilter } from '#lib/jsonapi/resource.ts';
import { defaultCreate } from '#lib/jsonapi/write.ts';
import { text } from '#lib/resources/reference.ts';

/**
 * Submissions and their orders (contract §3): what work a lab asks for, created by POST only. The
 * requests that carry the work out link to them; a submission lists its orders and requests from the
 * other side (one Query each).
 */

/** A submission's states (reference-behaviour.md §5); every submission starts pending (read-only through the API). */
const SUBMISSION_STATES = ['building', 'pending', 'processing', 'ready', 'failed', 'cancelled'] as const;
const SUBMISSION_INITIAL_STATE = 'pending';

export const submissions = defineResource({
  type: 'submissions',
  methods: ['list', 'read', 'create'],
  attributes: { ...uuidAttribute, name: attr('WO', text), state: attr('R', () => z.enum(SUBMISSION_STATES)), ...timestamps },
  relationships: { user: toOne('users', 'WO'), orders: reverse('orders', 'submission'), requests: reverse('requests', 'submission') },
  filters: { uuid: uuidFilter },
  create: (ctx, input): Promise<StoredRecord> =>
    defaultCreate(ctx, submissions, { ...input, attributes: { ...input.attributes, state: SUBMISSION_INITIAL_STATE } }),
});

export const orders = defineResource({
  type: 'orders',
  methods: ['list', 'read', 'create'],
  attributes: { ...uuidAttribute, ...timestamps },
  relationships: {
    submission: toOne('submissions', 'WO', { required: true }),
    study: toOne('studies', 'WO', { required: true }),
    user: toOne('users', 'WO'),
    request_types: toMany('request_types', 'WO'),
  },
  indexes: { submission: aggregateIndex('submission') },
  filters: { uuid: uuidFilter },
});
