import * as z from '#lib/zod.ts';
import { MAX_TRANSFER_REQUESTS_PER_COLLECTION, TRANSACTION_ITEM_LIMIT, transferRequestCollectionItems } from '#lib/domain/budgets.ts';
import { parseSlotUuid, slotId, transferRequestId } from '#lib/domain/labware-ids.ts';
import type { Contents } from '#lib/domain/labware.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import { applyMoves, outerRequestOf, type MaterialMove, type OpenRequest } from '#lib/domain/material-moves.ts';
import { outcome, type Problem } from '#lib/domain/problems.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, lazySchema, timestamps, toMany, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { labwareAttrs, receptacleType } from '#lib/resources/labware-views.ts';
import { parentsOf } from '#lib/resources/lineage.ts';
import { destinyOf, openRequestsOut } from '#lib/resources/pools.ts';
import { accepted, attributeAt } from '#lib/resources/problems.ts';
import type { Ref, StoredRecord } from '#lib/store/records.ts';

/**
 * Transfer request collections (contract §6, reference's TransferRequestCollection): material moved
 * between arbitrary receptacles, one transfer request per entry, as Limber's labware creators send them
 * (`transfer_requests_attributes` by uuid). Read → plan → apply → write: the uuids are read in one
 * batched read, each entry becomes a move of the one planner (lib/domain/material-moves.ts), and each
 * target labware changes by one conditional write, all in one transaction (lib/domain/budgets.ts counts it).
 */

const FIELD = 'transfer_requests_attributes';
const uuidText = lazySchema(() => z.string({ error: 'must be a uuid string' }).check(z.minLength(1)));
/** Microlitres: Limber sends them as numbers or as decimal strings (`volume: x.to_s`). */
const volume = lazySchema(() =>
  z
    .union([z.number(), z.pipe(z.string().check(z.regex(/^\s*\d+(\.\d+)?\s*$/, 'must be a number')), z.transform(Number))])
    .check(z.refine((n) => Number.isFinite(n) && n >= 0, 'must be a number of microlitres, 0 or more')),
);
const entry = lazySchema(() =>
  z.strictObject({
    source_asset: uuidText(),
    target_asset: uuidText(),
    outer_request: z.optional(z.nullable(uuidText())),
    submission: z.optional(z.nullable(uuidText())),
    submission_id: z.optional(
      z.nullable(z.union([z.number().check(z.int(), z.positive()), z.pipe(z.string().check(z.regex(/^\d+$/, 'must be an id')), z.transform(Number))])),
    ),
    volume: z.optional(z.nullable(volume())),
    merge_equivalent_aliquots: z.optional(z.nullable(z.boolean())),
    // Sent by Limber's blended-tube and pooling creators; accepted, not applied (docs/decisions.md).
    list_of_aliquot_attributes_to_consider_a_duplicate: z.optional(z.nullable(z.array(z.string()))),
    keep_this_aliquot_when_deduplicating: z.optional(z.nullable(z.boolean())),
    aliquot_attributes: z.optional(z.nullable(z.strictObject({ tag_depth: z.optional(z.nullable(z.union([z.number(), z.string()]))) }))),
  }),
);
type Entry = z.infer<ReturnType<typeof entry>>;

const at = (i: number, field: string): string[] => [FIELD, String(i), field];

/** A receptacle an entry names: its labware and slot. */
interface Named {
  labware: StoredRecord;
  slot: number;
}

/**
 * Reads every uuid the entries name in one batched read and resolves the receptacles: a well's or a tube
 * receptacle's uuid, or (as the reference allows) a tube's own. An unknown uuid is a 404, a uuid of
 * anything else a 422, each pointing at its entry's field.
 */
async function readEntries(ctx: WriteContext, entries: readonly Entry[]) {
  const labwareUuid = (uuid: string) => parseSlotUuid(uuid)?.labwareUuid ?? uuid.toLowerCase();
  const uuids = entries.flatMap((e) => [labwareUuid(e.source_asset), labwareUuid(e.target_asset), e.outer_request ?? '', e.submission ?? '']).filter(Boolean);
  const submissionIds = entries.flatMap((e) => (e.submission_id ? [{ type: 'submissions', id: e.submission_id }] : []));
  await ctx.loader.prefetch(submissionIds, uuids);
  const found = new Map((await ctx.loader.byUuids(uuids, [...ctx.registry.types])).flatMap((r) => (r ? [[r.uuid, r] as const] : [])));
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
  const submissionsById = await ctx.loader.load(submissionIds);
  const read = entries.map((e, i) => {
    const source = receptacle(i, 'source_asset', e.source_asset);
    const target = receptacle(i, 'target_asset', e.target_asset);
    const outerRequest = byType(i, 'outer_request', e.outer_request, 'requests');
    const submission = byType(i, 'submission', e.submission, 'submissions');
    if (e.submission_id && !submissionsById.has(`submissions:${e.submission_id}`))
      problems.push(
        errors.notFound(`${FIELD} - entry ${i} submission_id: no submissions with id ${e.submission_id}`, {
          pointer: pointer('data', 'attributes', ...at(i, 'submission_id')),
        }),
      );
    // An entry's submission: the one named, else its outer request's (the reference's TransferRequest#outer_request=).
    const named = submission?.id ?? e.submission_id ?? (outerRequest?.rels.submission as Ref | null | undefined)?.id ?? null;
    return { entry: e, source, target, outerRequest: outerRequest?.id ?? null, submission: named };
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  return read.map((r) => ({ ...r, source: r.source!, target: r.target! }));
}

export const transferRequestCollections = defineResource({
  type: 'transfer_request_collections',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    transfer_requests_attributes: attr('W', () => z.array(entry()), { required: true, transient: true }),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    transfer_requests: toMany('transfer_requests', 'R'),
    target_tubes: toMany('tubes', 'R'),
    user: toOne('users', 'RW', { required: true }),
  },
  filters: { uuid: uuidFilter },

  create: async (ctx, input) => {
    const entries = input.attributes.transfer_requests_attributes!;
    if (entries.length === 0) throw errors.invalidValue(pointer('data', 'attributes', FIELD), `${FIELD} - can't be empty: name at least one source and target`);
    if (entries.length > MAX_TRANSFER_REQUESTS_PER_COLLECTION)
      throw errors.tooLarge(
        pointer('data', 'attributes', FIELD),
        `${FIELD} - has ${entries.length} entries; one collection holds at most ${MAX_TRANSFER_REQUESTS_PER_COLLECTION}`,
      );

    // Read: the receptacles, requests and submissions named, and the open requests out of each source whose
    // entry names no outer request (they give its pool and outer request); Limber's stamps name them all.
    const read = await readEntries(ctx, entries);
    const unnamed = read.filter((r) => r.outerRequest === null);
    const sources = new Map(unnamed.map(({ source }) => [slotId(source.labware.id, source.slot), source]));
    const sourceRefs = [...sources.keys()].map((id) => ({ type: receptacleType(sources.get(id)!.labware.type), id }));
    const open = sourceRefs.length > 0 ? await openRequestsOut(ctx, sourceRefs) : new Map<Ref, OpenRequest[]>();
    const openOf = new Map(sourceRefs.map((ref) => [ref.id, open.get(ref)!]));

    // Plan: one move per entry; a target named twice for the same source is a mistake.
    const problems: Problem[] = [];
    const pairs = new Map<string, number>();
    const moves = read.map(({ source, target, outerRequest, submission, entry }, i): MaterialMove<number> => {
      const sourceId = slotId(source.labware.id, source.slot);
      const targetId = slotId(target.labware.id, target.slot);
      const earlier = pairs.get(`${sourceId}>${targetId}`);
      if (earlier !== undefined)
        problems.push({
          code: 'given_twice',
          input: at(i, 'target_asset'),
          detail: `entry ${i} target_asset: ${entry.target_asset} already takes ${entry.source_asset} (entry ${earlier}); name each source and target pair once`,
        });
      pairs.set(`${sourceId}>${targetId}`, i);
      const receptacle = labwareAttrs(source.labware).receptacles[source.slot - 1]!;
      const openOut = openOf.get(sourceId) ?? [];
      const pool = submission ?? destinyOf(receptacle, openOut).pool;
      return {
        source: {
          id: sourceId,
          receptacle,
          tube: source.labware.type === 'tubes',
          pool,
          outerRequest: outerRequestOf(outerRequest, pool, openOut),
          volume: entry.volume ?? null,
        },
        target: target.labware.id,
        slot: target.slot,
        input: at(i, 'source_asset'),
      };
    });
    accepted(
      outcome(problems, () => undefined),
      attributeAt,
    );

    // Each target labware is one item; each new link of a target to a source's labware one more.
    const targets = new Map(read.map(({ target }) => [target.labware.id, target.labware]));
    const parents = new Map(
      [...targets.values()].map((labware) => {
        const added = read.filter((r) => r.target.labware.id === labware.id && r.source.labware.id !== labware.id).map((r) => refOf(r.source.labware));
        return [labware.id, accepted(linkParents(refOf(labware), parentsOf(labware), added), attributeAt)];
      }),
    );
    const newLinks = [...targets.values()].reduce((n, labware) => n + parents.get(labware.id)!.length - parentsOf(labware).length, 0);
    const items = transferRequestCollectionItems(targets.size, newLinks);
    if (items > TRANSACTION_ITEM_LIMIT)
      throw errors.tooLarge(
        pointer('data', 'attributes', FIELD),
        `${FIELD} - fills ${targets.size} labware (${newLinks} of them newly children of a source), ${items} items; one request may write at most ${TRANSACTION_ITEM_LIMIT} (a DynamoDB transaction)`,
      );

    // Apply: transfer requests recorded and aliquots copied, all or nothing.
    const before = new Map([...targets].map(([id, labware]): [number, Contents] => [id, labwareAttrs(labware)]));
    const after = accepted(
      applyMoves(before, moves, (id, slot) => `${receptacleType(targets.get(id)!.type)} ${slotId(id, slot)}`),
      attributeAt,
    );

    // Write: each target once, then the collection naming the transfer requests it made.
    const made: Ref[] = [];
    for (const [id, labware] of targets) {
      const { receptacles, aliquotCount, transferRequestCount = 0 } = after.get(id)!;
      const owner = input.relationships.user!.id;
      ctx.uow.update(labware, { attrs: { receptacles, aliquotCount, transferRequestCount, owner }, rels: { parents: parents.get(id)! } });
      for (let n = (labwareAttrs(labware).transferRequestCount ?? 0) + 1; n <= transferRequestCount; n++)
        made.push({ type: 'transfer_requests', id: transferRequestId(id, n) });
    }
    return ctx.uow.create('transfer_request_collections', {
      attrs: {},
      rels: {
        transfer_requests: made.sort((a, b) => a.id - b.id),
        target_tubes: [...targets.values()].filter((t) => t.type === 'tubes').map(refOf),
        user: refOf(input.relationships.user!),
      },
    });
  },
});
