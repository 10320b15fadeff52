import * as z from '#lib/zod.ts';
import { initialRequestState, REQUEST_PRIORITIES, requestLinkProblems, requestStateChange } from '#lib/domain/requests.ts';
import { bookOfRequest } from '#lib/domain/labware-ids.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { unrecorded } from '#lib/resources/unrecorded.ts';
import { aggregateIndex, attr, defineResource, reverse, timestamps, toOne, uuidAttribute, uuidFilter, type WriteInput } from '#lib/jsonapi/resource.ts';
import { accepted, attributeAt, problemErrors, relationshipAt } from '#lib/jsonapi/problems.ts';
import { text } from '#lib/resources/reference.ts';
import { requestAtSlot, requestCount, requestViews } from '#lib/resources/request-books.ts';
import { appendRequest, booked, changeRequests } from '#lib/operations/request-books.ts';
import { refsOf, linkOf, type StoredRecord } from '#lib/store/records.ts';

/**
 * Requests (contract §2, reference-behaviour.md §2.11): work asked of a receptacle (`asset`, a well or a
 * tube's receptacle), of a request type, usually for an order of a submission. `state` moves by the
 * request machine (§3.2). Requests live in request books (lib/resources/request-books.ts): those a
 * submission made out of one labware are one item, so the writes that move many of them at once (a
 * plate's first pass, a work completion) write one book, not one item per request. A write of a request is
 * conditional on its book's version read, so of two concurrent writes into one book the loser runs again
 * from the winner's state.
 */
const linked = (input: WriteInput, name: string) => (input.relationships[name] as StoredRecord | null | undefined) ?? undefined;

/** The problems of a new request's links: an order of another submission, a request type its order does not ask for. */
function linkProblems(input: WriteInput) {
  const [order, submission, requestType] = ['order', 'submission', 'request_type'].map((name) => linked(input, name));
  const problems = requestLinkProblems({
    ...(order
      ? { order: { id: order.id, submission: linkOf(order, 'submission')?.id ?? null, requestTypes: refsOf(order.rels.request_types).map((r) => r.id) } }
      : {}),
    ...(submission ? { submission: submission.id } : {}),
    ...(requestType ? { requestType: requestType.id } : {}),
  });
  return problemErrors(problems, relationshipAt);
}

const STATE = '/data/attributes/state';

export const requests = defineResource({
  type: 'requests',
  methods: ['list', 'read', 'create', 'update'],
  attributes: {
    ...uuidAttribute,
    role: attr('WO', text),
    state: attr('RW', () => z.string()),
    priority: attr('WO', () => z.enum(REQUEST_PRIORITIES)),
    // The values of the request's metadata, copied onto the request when the metadata is linked (request_metadata.ts).
    // customer_accepts_responsibility: set by a state change that fails the request when the customer asked to go on (lib/operations/state-change.ts).
    // A request a submission built carries its order's request_options too (lib/resources/submissions.ts).
    options: attr('R', () =>
      z.looseObject({
        number_of_pools: z.optional(z.number().check(z.int())),
        cells_per_chip_well: z.optional(z.number().check(z.int())),
        customer_accepts_responsibility: z.optional(z.boolean()),
      }),
    ),
    // The library type its order's request options name (null for a request made by POST); clients ask for it in fields[requests].
    library_type: attr('R', () => z.string()),
    ...timestamps,
  },
  relationships: {
    // Set once, on POST (listed in interface.md's creation shapes); submission and order always carry linkage.
    submission: toOne('submissions', 'R', { acceptOnCreate: true, alwaysLinked: true }),
    order: toOne('orders', 'R', { acceptOnCreate: true, alwaysLinked: true }),
    request_type: toOne('request_types', 'R', { acceptOnCreate: true, required: true }),
    asset: toOne('receptacles', 'WO', { required: true }),
    // Where the work ended: set by a work completion (lib/operations/work-completion.ts) when not set before.
    target_asset: toOne('receptacles', 'R'),
    request_metadata: toOne('request_metadata', 'R'),
    // Limber includes these on every plate page; neither is recorded here (docs/decisions.md, "What Limber's pages read").
    primer_panel: unrecorded('one', 'primer_panels'),
    pre_capture_pool: unrecorded('one', 'pre_capture_pools'),
    poly_metadata: reverse('poly_metadata', 'metadatable'),
    // Comments about it (lib/resources/comments.ts): one Query per request book.
    comments: reverse('comments', 'commentable'),
  },
  embedded: {
    parentTypes: ['request_books'],
    parentId: bookOfRequest,
    extract: requestViews,
    count: requestCount,
    atSlot: requestAtSlot,
  },
  // Wells (and tube receptacles) read their requests per plate; submissions theirs. Carried by the books: one entry per book and labware (or submission).
  indexes: { asset: aggregateIndex('asset'), submission: aggregateIndex('submission') },
  filters: { uuid: uuidFilter },

  validate: (_ctx, input, current) => (current ? [] : linkProblems(input)),

  create: async (ctx, input) => {
    const [order, submission] = [linked(input, 'order'), linked(input, 'submission')];
    const state = accepted(initialRequestState(input.attributes.state as string | null | undefined), attributeAt);
    const { role, priority } = input.attributes;
    // A request of an order is of the order's submission, named or not.
    const submissionId = submission?.id ?? (order && linkOf(order, 'submission'))?.id ?? null;
    return appendRequest(ctx, submissionId, {
      state,
      requestType: linked(input, 'request_type')!.id,
      asset: booked(refOf(linked(input, 'asset')!)),
      ...(order ? { order: order.id } : {}),
      ...(role ? { role } : {}),
      ...(priority ? { priority } : {}),
    });
  },

  // Only `state` may change (everything else is set once): by the machine, or not at all.
  update: async (ctx, current, input) => {
    const target = input.attributes.state;
    if (target === undefined) return current;
    if (target === null) throw errors.missingRequired(STATE, 'state');
    const outcome = requestStateChange(current.attrs.state, target as string);
    if (!outcome.ok) throw errors.invalidTransition(STATE, `state - ${outcome.detail}`);
    await changeRequests(ctx, new Map([[current.id, { state: outcome.state }]]));
    return (await ctx.loader.one(refOf(current)))!;
  },
});
