import * as z from '#lib/zod.ts';
import { compatibilityProblems, SUBMISSION_STATES, submissionMachine } from '#lib/domain/submissions.ts';
import { refKey, refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { refsOf, linkOf, type StoredRecord } from '#lib/store/records.ts';
import { attr, defineResource, reverse, timestamps, toOne, uuidAttribute, uuidFilter, uuidOfAttribute, type WriteInput } from '#lib/jsonapi/resource.ts';
import { defaultCreate } from '#lib/jsonapi/write.ts';
import { requestTypesOf } from '#lib/resources/orders.ts';
import { problemErrors } from '#lib/jsonapi/problems.ts';
import { text } from '#lib/resources/reference.ts';
import { buildSubmission, chained, optionsOf } from '#lib/operations/submission-build.ts';

/**
 * Submissions (contract §3, §6, §7.3): what work a lab asks for, created by POST only. As Limber makes
 * them, from orders made before (`order_uuids`, lib/resources/orders.ts): `and_submit` builds every order's
 * requests in the same write (lib/domain/submissions.ts), through request books, and the submission passes
 * building → pending → processing → ready in that write, an event each; without it the submission stays
 * `building` (the reference's API has no later submit either: its submissions take no PATCH). A submission
 * made without orders is `pending` at once, and orders name it (as before templates). The requests that
 * carry the work out link to it; a submission lists its orders and requests from the other side (one Query each).
 */

const ORDER_UUIDS = '/data/attributes/order_uuids';

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
    order_uuids: attr('W', () => z.array(z.string({ error: 'must be a uuid string' })), { transient: true }),
    and_submit: attr('W', () => z.boolean(), { transient: true }),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: { user: toOne('users', 'WO'), orders: reverse('orders', 'submission'), requests: reverse('requests', 'submission') },
  filters: { uuid: uuidFilter },
  create: (ctx, input) =>
    input.attributes.order_uuids === undefined || input.attributes.order_uuids === null ? submissionWithoutOrders(ctx, input) : submitOrders(ctx, input),
});

/** A submission named by its orders later (as before templates): pending at once; `and_submit` has nothing to build. */
function submissionWithoutOrders(ctx: WriteContext, input: WriteInput): Promise<StoredRecord> {
  if (input.attributes.and_submit === true) throw errors.missingRequired(ORDER_UUIDS, 'order_uuids');
  return defaultCreate(ctx, submissions, { ...input, attributes: { ...input.attributes, state: 'pending' } });
}

/**
 * The orders `order_uuids` names (one batched read): each found (404), named once and in no submission yet
 * (422), each pointing at its place in the list; and orders that may go together (lib/domain/submissions.ts).
 */
async function readOrders(ctx: WriteContext, uuids: readonly string[]): Promise<{ orders: StoredRecord[]; types: Map<StoredRecord, StoredRecord[]> }> {
  if (uuids.length === 0) throw errors.invalidValue(ORDER_UUIDS, "order_uuids - can't be empty: a submission is made of orders");
  const found = await ctx.loader.byUuids(uuids, ['orders']);
  const at = (i: number) => pointer('data', 'attributes', 'order_uuids', i);
  const problems = uuids.flatMap((uuid, i) => {
    const order = found[i];
    if (!order) return [errors.notFound(`order_uuids - entry ${i}: no orders with uuid ${show(uuid)}`, { pointer: at(i) })];
    if (found.indexOf(order) !== i) return [errors.invalidValue(at(i), `order_uuids - entry ${i}: order ${uuid} is named twice`)];
    const submission = linkOf(order, 'submission');
    return submission ? [errors.invalidValue(at(i), `order_uuids - entry ${i}: order ${uuid} is in submission ${submission.id} already`)] : [];
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  const orders = found as StoredRecord[];
  const types = await requestTypesOf(ctx, orders);
  const incompatible = compatibilityProblems(orders.map((o) => ({ id: o.id, readLength: optionsOf(o).read_length, requestTypes: types.get(o)!.map(chained) })));
  if (incompatible.length > 0) throw JsonApiError.all(problemErrors(incompatible, () => ({ pointer: ORDER_UUIDS, field: 'order_uuids' })));
  return { orders, types };
}

/**
 * A submission of orders made before (Limber's): `building`; with `and_submit` its requests are built and it
 * moves on to `ready` (lib/domain/submissions.ts, buildPassage), each state a version with its
 * `submissions.state_changed` event, so Limber's `building_in_progress?` is false when the POST answers.
 */
async function submitOrders(ctx: WriteContext, input: WriteInput): Promise<StoredRecord> {
  const { orders, types } = await readOrders(ctx, input.attributes.order_uuids as string[]);
  const submission = await defaultCreate(ctx, submissions, { ...input, attributes: { ...input.attributes, state: submissionMachine.initial } });
  for (const order of orders) ctx.uow.update(order, { rels: { submission: refOf(submission) } });
  if (input.attributes.and_submit !== true) return submission;
  return buildSubmission(ctx, submission, orders, types, () => ({ pointer: ORDER_UUIDS, field: 'order_uuids' }));
}
