import * as z from '#lib/zod.ts';
import { TRANSACTION_ITEM_LIMIT, workCompletionItems } from '#lib/domain/budgets.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import type { RequestState } from '#lib/domain/machines.ts';
import { outerRequestsOf } from '#lib/domain/state-changers.ts';
import { completeWork, type CompletedReceptacle, type WorkRequest } from '#lib/domain/work-completion.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, timestamps, toMany, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { booked, changeRequests, indexEntriesChanged } from '#lib/operations/request-books.ts';
import { labwareAttrs, receptacleRefs } from '#lib/operations/labware-records.ts';
import { refsOf, linkOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * Work completions (contract §6, reference-behaviour.md §7.4): the lab says the work of some submissions is
 * done on a labware ("Charge and pass" in Limber). The requests that carry it pass and are linked to the
 * receptacles it ended in (lib/domain/work-completion.ts); the record and the request books of every
 * request it changes are one transaction, within workCompletionItems (lib/domain/budgets.ts).
 */
const SUBMISSIONS = '/data/relationships/submissions';

/**
 * The receptacles of a labware with the outer requests of their aliquots, and each one's reference: a
 * plate's wells, a tube's receptacle, a rack's tubes' receptacles (one batched read).
 */
async function receptaclesOf(ctx: WriteContext, labware: StoredRecord): Promise<{ receptacles: CompletedReceptacle[]; refs: Map<number, Ref> }> {
  const holders =
    labware.type === 'tube_racks'
      ? [...(await ctx.loader.load((labwareAttrs(labware).racked ?? []).map((t): Ref => ({ type: 'tubes', id: t.tube })))).values()]
      : [labware];
  const refs = new Map(holders.flatMap((holder) => receptacleRefs(holder).map((ref) => [ref.id, ref] as const)));
  const receptacles = holders.flatMap((holder) =>
    labwareAttrs(holder).receptacles.map((receptacle, i) => ({ id: slotId(holder.id, i + 1), outerRequests: outerRequestsOf(receptacle) })),
  );
  return { receptacles, refs };
}

/** The submissions a completion names: the relationship, else `submission_uuids` (each found, or a 404 pointing at it). */
async function namedSubmissions(ctx: WriteContext, related: StoredRecord[] | undefined, uuids: readonly string[] | null | undefined): Promise<StoredRecord[]> {
  if (related && related.length > 0) return related;
  const given = uuids ?? [];
  if (given.length === 0) throw errors.missingRequired(SUBMISSIONS, 'submissions');
  const found = await ctx.loader.byUuids(given, ['submissions']);
  const missing = given.flatMap((uuid, i) =>
    found[i]
      ? []
      : [errors.notFound(`submission_uuids - no submissions with uuid ${show(uuid)}`, { pointer: pointer('data', 'attributes', 'submission_uuids', i) })],
  );
  if (missing.length > 0) throw JsonApiError.all(missing);
  return found as StoredRecord[];
}

const linkId = (record: StoredRecord, name: string): number | null => linkOf(record, name)?.id ?? null;

/**
 * The requests of the submissions (one Query each, then one batched read), with what deciding their next
 * requests needs: their orders' request types and which request types are multiplexed.
 */
async function requestsOf(ctx: WriteContext, submissions: readonly StoredRecord[]) {
  const reverse = ctx.registry.require('submissions').relationships.requests!.reverse!;
  const found = await resolveReverse(ctx, 'requests', reverse, submissions);
  const records = [...(await ctx.loader.load(submissions.flatMap((s) => refsOf(found.get(s))))).values()];
  const linked = (name: string, type: string) => [...new Set(records.map((r) => linkId(r, name)).filter((id) => id !== null))].map((id): Ref => ({ type, id }));
  const [orders, requestTypes] = await Promise.all([ctx.loader.load(linked('order', 'orders')), ctx.loader.load(linked('request_type', 'request_types'))]);
  const requests = new Map<number, WorkRequest>(
    records.map((r) => [
      r.id,
      {
        id: r.id,
        state: r.attrs.state as RequestState,
        submission: linkId(r, 'submission'),
        order: linkId(r, 'order'),
        requestType: linkId(r, 'request_type')!,
        asset: linkId(r, 'asset'),
        targetAsset: linkId(r, 'target_asset'),
      },
    ]),
  );
  return {
    requests,
    orderRequestTypes: new Map([...orders.values()].map((o) => [o.id, refsOf(o.rels.request_types).map((t) => t.id)])),
    multiplexing: new Set([...requestTypes.values()].filter((t) => t.attrs.for_multiplexing === true).map((t) => t.id)),
  };
}

export const workCompletions = defineResource({
  type: 'work_completions',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    target_uuid: uuidOfAttribute('target'),
    user_uuid: uuidOfAttribute('user'),
    submission_uuids: attr('W', () => z.array(z.string()), { transient: true, acceptOnCreate: true }),
    ...timestamps,
  },
  relationships: {
    target: toOne('labware', 'WO', { required: true }),
    user: toOne('users', 'WO', { required: true }),
    submissions: toMany('submissions', 'WO'),
  },
  filters: { uuid: uuidFilter },

  create: async (ctx, input) => {
    const target = input.relationships.target!;
    const submissions = await namedSubmissions(ctx, input.relationships.submissions, input.attributes.submission_uuids);
    const [{ receptacles, refs }, work] = await Promise.all([receptaclesOf(ctx, target), requestsOf(ctx, submissions)]);
    const changed = completeWork({ receptacles, submissions: new Set(submissions.map((s) => s.id)), ...work });
    // A link the completion made names a receptacle of the target; one it kept stays as stored.
    const books = await changeRequests(
      ctx,
      new Map(
        changed.map((request) => {
          const before = work.requests.get(request.id)!;
          return [
            request.id,
            {
              state: request.state,
              ...(request.asset !== before.asset ? { asset: booked(refs.get(request.asset!)!) } : {}),
              ...(request.targetAsset !== before.targetAsset ? { target: booked(refs.get(request.targetAsset!)!) } : {}),
            },
          ];
        }),
      ),
    );
    const entries = indexEntriesChanged(ctx, books);
    const items = workCompletionItems(books.length, entries);
    if (items > TRANSACTION_ITEM_LIMIT) {
      throw errors.tooLarge(
        '/data/relationships/target',
        `target - completing this work would write ${items} items (${changed.length} requests changed, in ${books.length} request books gaining or losing ${entries} index entries); one work completion may write at most ${TRANSACTION_ITEM_LIMIT} (a DynamoDB transaction)`,
      );
    }
    return ctx.uow.create('work_completions', {
      attrs: {},
      rels: { target: refOf(target), user: refOf(input.relationships.user!), submissions: submissions.map(refOf) },
    });
  },
});
