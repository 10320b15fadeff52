import { withinRequest, workCompletionItems } from '#lib/domain/budgets.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import type { RequestState } from '#lib/domain/machines.ts';
import type { RequestChange } from '#lib/domain/request-books.ts';
import { outerRequestsOf } from '#lib/domain/state-changers.ts';
import { completeWork, type CompletedReceptacle, type WorkRequest } from '#lib/domain/work-completion.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { relationshipAt, throwProblems } from '#lib/jsonapi/problems.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { labwareAttrs, receptacleRefs } from '#lib/operations/labware-records.ts';
import { booked, changeRequests, indexEntriesChanged } from '#lib/operations/request-books.ts';
import { refsOf, linkOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * A work completion (lib/resources/work-completions.ts; reference-behaviour.md §7.4): read → plan → write.
 * readWorkCompletion reads the submissions named, the target's receptacles and the submissions' requests;
 * planWorkCompletion decides which requests pass and where they now are (lib/domain/work-completion.ts);
 * writeWorkCompletion stages the request books they are in, within the bound of one request
 * (workCompletionItems, lib/domain/budgets.ts), and the record.
 */

/** The work completion's write input, as the definition's attributes and relationships type it. */
interface WorkCompletionInput {
  attributes: { submission_uuids?: string[] | null };
  relationships: { target?: StoredRecord | null; user?: StoredRecord | null; submissions?: StoredRecord[] | null };
}

export async function createWorkCompletion(ctx: WriteContext, input: WorkCompletionInput): Promise<StoredRecord> {
  const read = await readWorkCompletion(ctx, input);
  return writeWorkCompletion(ctx, { target: read.target, user: input.relationships.user!, submissions: read.submissions }, planWorkCompletion(read));
}

/** The submissions named, the target's receptacles, and the submissions' requests with what deciding their next requests needs. */
async function readWorkCompletion(ctx: WriteContext, input: WorkCompletionInput) {
  const target = input.relationships.target!;
  const submissions = await namedSubmissions(ctx, input.relationships.submissions ?? undefined, input.attributes.submission_uuids);
  const [{ receptacles, refs }, work] = await Promise.all([receptaclesOf(ctx, target), requestsOf(ctx, submissions)]);
  return { target, submissions, receptacles, refs, work };
}

/** The requests the completion changes, by id: their state, and a link it made naming a receptacle of the target (one it kept stays as stored). */
function planWorkCompletion({ submissions, receptacles, refs, work }: Awaited<ReturnType<typeof readWorkCompletion>>) {
  const changed = completeWork({ receptacles, submissions: new Set(submissions.map((s) => s.id)), ...work });
  return new Map(
    changed.map((request): [number, RequestChange] => {
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
  );
}

/** Stages the books of the changed requests, refused past the bound of one request, and the record. */
async function writeWorkCompletion(
  ctx: WriteContext,
  { target, user, submissions }: { target: StoredRecord; user: StoredRecord; submissions: StoredRecord[] },
  changes: ReadonlyMap<number, RequestChange>,
): Promise<StoredRecord> {
  const books = await changeRequests(ctx, changes);
  const entries = indexEntriesChanged(ctx, books);
  const what = `completing this work (${changes.size} requests changed, in ${books.length} request books gaining or losing ${entries} index entries)`;
  throwProblems(withinRequest(workCompletionItems(books.length, entries), what, ['target']), relationshipAt);
  return ctx.uow.create('work_completions', {
    attrs: {},
    rels: { target: refOf(target), user: refOf(user), submissions: submissions.map(refOf) },
  });
}

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
