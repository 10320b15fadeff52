import { MAX_TRANSFER_REQUESTS_PER_COLLECTION, transferRequestCollectionItems } from '#lib/domain/budgets.ts';
import { parseSlotUuid } from '#lib/domain/labware-ids.ts';
import { ANY_SERVED_TYPE, refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { checkEntryCount, moveMaterial, type Named } from '#lib/operations/material-moves.ts';
import { linkOf, type StoredRecord } from '#lib/store/records.ts';

/**
 * A transfer request collection (lib/resources/transfer-request-collections.ts): read → plan → write. The
 * uuids its entries name are read in one batched read (readEntries), and the entries handed to the material
 * moves (lib/operations/material-moves.ts), which plan them through the one planner and stage each target
 * labware once; the collection lists the transfer requests made and the tubes filled.
 */

const FIELD = 'transfer_requests_attributes';

/** An entry as the definition's schema gives it: what this reads of it. */
interface Entry {
  source_asset: string;
  target_asset: string;
  outer_request?: string | null;
  submission?: string | null;
  submission_id?: number | null;
  volume?: number | null;
}

/** The collection's write input, as the definition's attributes and relationships type it. */
interface CollectionInput {
  attributes: { transfer_requests_attributes?: readonly Entry[] | null };
  relationships: { user?: StoredRecord | null };
}

const at = (i: number, field: string): string[] => [FIELD, String(i), field];

/**
 * Reads every uuid the entries name in one batched read and resolves the receptacles: a well's or a tube
 * receptacle's uuid, or (as the reference allows) a tube's own. An unknown uuid is a 404, a uuid of
 * anything else a 422 (a `submission` of anything else names none), each pointing at its entry's field.
 */
async function readEntries(ctx: WriteContext, entries: readonly Entry[]) {
  const labwareUuid = (uuid: string) => parseSlotUuid(uuid)?.labwareUuid ?? uuid.toLowerCase();
  const uuids = entries.flatMap((e) => [labwareUuid(e.source_asset), labwareUuid(e.target_asset), e.outer_request ?? '', e.submission ?? '']).filter(Boolean);
  const submissionIds = entries.flatMap((e) => (e.submission_id ? [{ type: 'submissions', id: e.submission_id }] : []));
  await ctx.loader.prefetch(submissionIds, uuids);
  const found = new Map((await ctx.loader.byUuids(uuids, ANY_SERVED_TYPE)).flatMap((r) => (r ? [[r.uuid, r] as const] : [])));
  const problems: JsonApiError[] = [];
  const notFound = (i: number, field: string, what: string, uuid: unknown) =>
    problems.push(
      errors.notFound(`${FIELD} - entry ${i} ${field}: no ${what} with uuid ${show(uuid)}`, { pointer: pointer('data', 'attributes', ...at(i, field)) }),
    );

  const receptacle = (i: number, field: 'source_asset' | 'target_asset', uuid: string): Named | undefined => {
    const slot = parseSlotUuid(uuid);
    const record = found.get(labwareUuid(uuid));
    if (slot) {
      if (record && (record.type === 'plates' || record.type === 'tubes') && slot.slot <= labwareAttrs(record).receptacles.length)
        return { labware: record, slot: slot.slot };
      notFound(i, field, 'receptacle', uuid);
      return undefined;
    }
    if (record?.type === 'tubes') return { labware: record, slot: 1 };
    if (!record) notFound(i, field, 'receptacle', uuid);
    else
      problems.push(
        errors.invalidValue(
          pointer('data', 'attributes', ...at(i, field)),
          `${FIELD} - entry ${i} ${field}: ${uuid} is ${record.type} ${record.id}, not a receptacle; name a well, a tube or a tube's receptacle`,
        ),
      );
    return undefined;
  };
  const byType = (i: number, field: string, uuid: string | null | undefined, type: string): StoredRecord | null => {
    if (!uuid) return null;
    const record = found.get(uuid.toLowerCase());
    if (record?.type === type) return record;
    notFound(i, field, type, uuid);
    return null;
  };
  // A uuid of another record names no submission, so the entry has none from it, as the reference's UuidCache
  // finds no Submission by it: Limber's pooled_tubes_by_sample sends its pool's sample uuid there.
  const submissionOf = (i: number, uuid: string | null | undefined): StoredRecord | null => {
    const record = uuid ? found.get(uuid.toLowerCase()) : undefined;
    return record && record.type !== 'submissions' ? null : byType(i, 'submission', uuid, 'submissions');
  };
  const submissionsById = await ctx.loader.load(submissionIds);
  const read = entries.map((e, i) => {
    const source = receptacle(i, 'source_asset', e.source_asset);
    const target = receptacle(i, 'target_asset', e.target_asset);
    const outerRequest = byType(i, 'outer_request', e.outer_request, 'requests');
    const submission = submissionOf(i, e.submission);
    if (e.submission_id && !submissionsById.has(`submissions:${e.submission_id}`))
      problems.push(
        errors.notFound(`${FIELD} - entry ${i} submission_id: no submissions with id ${e.submission_id}`, {
          pointer: pointer('data', 'attributes', ...at(i, 'submission_id')),
        }),
      );
    // An entry's submission: the one named, else its outer request's (the reference's TransferRequest#outer_request=).
    const named = submission?.id ?? e.submission_id ?? (outerRequest && linkOf(outerRequest, 'submission'))?.id ?? null;
    return { entry: e, source, target, outerRequest: outerRequest?.id ?? null, submission: named };
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  return read.map((r) => ({ ...r, source: r.source!, target: r.target! }));
}

export async function createTransferRequestCollection(ctx: WriteContext, input: CollectionInput): Promise<StoredRecord> {
  const entries = input.attributes.transfer_requests_attributes!;
  checkEntryCount(FIELD, entries.length, MAX_TRANSFER_REQUESTS_PER_COLLECTION, { empty: 'source and target', holder: 'one collection' });
  // The collection's id is reserved beside the reads, one round trip fewer (a refused collection skips it, contract §1.3).
  const [read, [id]] = await Promise.all([readEntries(ctx, entries), ctx.uow.allocateIds('transfer_request_collections', 1)]);
  const user = input.relationships.user!;
  const made = await moveMaterial(
    ctx,
    read.map(({ entry, source, target, outerRequest, submission }, i) => ({
      source,
      target,
      outerRequest,
      submission,
      volume: entry.volume ?? null,
      at: [FIELD, String(i)],
      names: { source: entry.source_asset, target: entry.target_asset, sourceField: 'source_asset', targetField: 'target_asset' },
    })),
    { field: FIELD, user: user.id, items: transferRequestCollectionItems },
  );
  const targets = new Map(read.map(({ target }) => [target.labware.id, target.labware]));
  return ctx.uow.create('transfer_request_collections', {
    id: id!,
    attrs: {},
    rels: {
      transfer_requests: made,
      target_tubes: [...targets.values()].filter((t) => t.type === 'tubes').map(refOf),
      user: refOf(user),
    },
  });
}
