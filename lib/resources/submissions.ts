import * as z from '#lib/zod.ts';
import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { refsOf, type StoredRecord } from '#lib/store/records.ts';
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

/** Sequencing request types by key, as the reference names them (`sequencing`, `illumina_htp_novaseq_6000_paired_end_sequencing`). */
export const isSequencingKey = (key: unknown): boolean => typeof key === 'string' && (key === 'sequencing' || key.endsWith('_sequencing'));

/** For each submission, the records of `type` pointing at it through `relationship`, and what those name in `then`. */
async function related(ctx: RequestContext, submissions: StoredRecord[], type: string, then: string) {
  const pointing = await resolveReverse(ctx, then, { type, relationship: 'submission' }, submissions);
  const records = await ctx.loader.load([...pointing.values()].flatMap(refsOf));
  const named = await ctx.loader.load([...records.values()].flatMap((r) => refsOf(r.rels[then])));
  return new Map(
    submissions.map((s) => {
      const mine = refsOf(pointing.get(s)).flatMap((ref) => records.get(refKey(ref)) ?? []);
      return [s, mine.map((r) => refsOf(r.rels[then]).flatMap((ref) => named.get(refKey(ref)) ?? []))] as const;
    }),
  );
}

export const submissions = defineResource({
  type: 'submissions',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    name: attr('WO', text),
    state: attr('R', () => z.enum(SUBMISSION_STATES)),
    // The reference's: its sequencing requests (Limber reads it to show how many lanes a pool is for).
    lanes_of_sequencing: attr('R', () => z.number().check(z.int()), {
      load: async (ctx, records) => {
        const types = await related(ctx, records, 'requests', 'request_type');
        return new Map(records.map((s) => [s, types.get(s)!.filter(([type]) => isSequencingKey(type?.attrs.key)).length]));
      },
    }),
    // The reference's: whether any of its orders asks for a request type for multiplexing (Limber shows its pooling tab then).
    // Its name is not a valid JSON:API member name, so it is rendered only when fields[submissions] names it, as Limber does.
    'multiplexed?': attr('R', () => z.boolean(), {
      onlyWhenAsked: true,
      load: async (ctx, records) => {
        const types = await related(ctx, records, 'orders', 'request_types');
        return new Map(records.map((s) => [s, types.get(s)!.some((orderTypes) => orderTypes.some((t) => t.attrs.for_multiplexing === true))]));
      },
    }),
    ...timestamps,
  },
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
