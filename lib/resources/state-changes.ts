import * as z from '#lib/zod.ts';
import { TRANSACTION_ITEM_LIMIT, stateChangeItems } from '#lib/domain/budgets.ts';
import { layoutForSize, positionAt, positionIndex } from '#lib/domain/geometry.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import { labwareState, type Labware } from '#lib/domain/labware.ts';
import type { RequestState } from '#lib/domain/machines.ts';
import type { Problem } from '#lib/domain/problems.ts';
import { qcableStateChange } from '#lib/domain/qcables.ts';
import { rackSlot, rackState } from '#lib/domain/racks.ts';
import { changeState, outerRequestsOf, stateChangerOf, type RequestFacts, type RequestMove, type TargetedReceptacle } from '#lib/domain/state-changers.ts';
import { refKey, refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer } from '#lib/jsonapi/errors.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { attr, defineResource, timestamps, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { labwareAttrs, receptacleRefs, receptacleType } from '#lib/resources/labware-views.ts';
import { attributeAt, problemErrors } from '#lib/resources/problems.ts';
import { qcableGoverning } from '#lib/resources/qcables.ts';
import { changeRequests } from '#lib/resources/request-books.ts';
import { refsOf, linkOf, linkedTo, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * State changes (contract §2, §6; reference-behaviour.md §7.3): a request to move a labware to a target
 * state. A labware with a qcable, while of its qcable's purpose (a tag plate), moves its qcable by the qcable
 * machine (lib/resources/qcables.ts, qcableGoverning); any other moves the transfer
 * requests into its targeted receptacles, and the requests their material is bound for, by the state
 * changer of its purpose (lib/domain/state-changers.ts). The labware, the request books of the requests
 * moved (lib/resources/request-books.ts: a plate's first pass is one book, whatever its wells) and the
 * state change are written in one transaction, each conditional on the version read: of concurrent
 * changes of one labware one commits, the others run again from fresh reads (and then find the move made).
 *
 * The state change is a record of its own; its labware lists it (`stateChanges` in the aggregate), so the
 * `state_changes` relationship of labware costs no read and the change no index item (the budget:
 * stateChangeItems in lib/domain/budgets.ts).
 */
const TARGET_STATE = '/data/attributes/target_state';
const FAILURE_STATES: readonly string[] = ['failed', 'cancelled'];

/** A state changer's problems: each at the target state, a move the machine does not allow an `invalid_transition`. */
const problemsAt = (problems: readonly Problem[]) =>
  problems.map((problem) =>
    problem.code === 'not_allowed' ? errors.invalidTransition(TARGET_STATE, `target_state - ${problem.detail}`) : problemErrors([problem], attributeAt)[0]!,
  );

/** The receptacles a change targets, by slot: `contents` (well positions, rack coordinates), absent or empty for all. */
function targetedSlots(labware: StoredRecord, contents: readonly string[] | null | undefined): number[] {
  const attrs = labwareAttrs(labware);
  const all = labware.type === 'tube_racks' ? (attrs.racked ?? []).map((t) => rackSlot(t.coordinate)) : attrs.receptacles.map((_, i) => i + 1);
  if (!contents || contents.length === 0) return all;
  const layout = attrs.size ? layoutForSize(attrs.size) : undefined;
  const problems: JsonApiError[] = [];
  const slots = contents.map((name, i) => {
    const index = layout ? positionIndex(layout, name) : undefined;
    // A rack numbers its coordinates on the 96-position grid, whatever its size (lib/domain/racks.ts).
    const slot = index === undefined ? undefined : labware.type === 'tube_racks' ? rackSlot(name.toUpperCase()) : index + 1;
    if (slot === undefined || !all.includes(slot)) {
      const holds = labware.type === 'tube_racks' ? 'a racked tube' : labware.type === 'plates' ? 'a well' : 'a position (a tube has none)';
      problems.push(
        errors.invalidValue(
          pointer('data', 'attributes', 'contents', i),
          `contents - ${JSON.stringify(name)} is not ${holds} of ${labware.type} ${labware.id}`,
        ),
      );
    }
    return slot ?? 0;
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  return [...new Set(slots)].sort((a, b) => a - b);
}

/** A receptacle of a plate or tube as the changer sees it, named as the lab names it. */
const targetOf = (labware: StoredRecord, slot: number, requestsAsSource?: readonly number[]): TargetedReceptacle => {
  const attrs = labwareAttrs(labware);
  const layout = attrs.size ? layoutForSize(attrs.size) : undefined;
  return {
    id: slotId(labware.id, slot),
    name: layout ? `well ${positionAt(layout, slot - 1)}` : `tube ${attrs.barcode.human_barcode}`,
    receptacle: attrs.receptacles[slot - 1]!,
    ...(requestsAsSource ? { requestsAsSource } : {}),
    ...(attrs.poolTube !== undefined ? { poolOf: attrs.poolTube } : {}),
  };
};

/** The requests out of each receptacle of a labware (`requests_as_source`): one Query for the whole labware. */
async function requestsOutOf(ctx: WriteContext, labware: StoredRecord): Promise<number[][]> {
  const slots = receptacleRefs(labware);
  const reverse = ctx.registry.require(receptacleType(labware.type)).relationships.requests_as_source!.reverse!;
  const found = await resolveReverse(ctx, 'requests_as_source', reverse, slots);
  return slots.map((slot) => refsOf(found.get(slot)).map((r) => r.id));
}

/** The requests of a submission (its `requests`, read from the other side: one Query). */
async function requestsOfSubmission(ctx: WriteContext, id: number): Promise<Ref[]> {
  const submission: Ref = { type: 'submissions', id };
  const reverse = ctx.registry.require(submission.type).relationships.requests!.reverse!;
  return refsOf((await resolveReverse(ctx, 'requests', reverse, [submission])).get(submission));
}

/**
 * What a changer knows of each request the targets name — and, for an MX tube a by-submission transfer made,
 * of its submission's requests (one Query), among them the multiplexed ones that end in it (`endsIn`): one
 * batched read of the requests, one of their request types (reference data, which the process keeps).
 */
async function requestFacts(
  ctx: WriteContext,
  targets: readonly TargetedReceptacle[],
  pool: number | undefined,
): Promise<Map<number, { record: StoredRecord; facts: RequestFacts }>> {
  const pooled = pool === undefined ? [] : await requestsOfSubmission(ctx, pool);
  const ids = new Set([
    ...targets.flatMap((t) => [
      ...outerRequestsOf(t.receptacle),
      ...(t.receptacle.transfers ?? []).flatMap((tr) => (tr.outerRequest ? [tr.outerRequest] : [])),
      ...(t.requestsAsSource ?? []),
    ]),
    ...pooled.map((r) => r.id),
  ]);
  const loaded = await ctx.loader.load([...ids].map((id): Ref => ({ type: 'requests', id })));
  const types = await ctx.loader.load([...loaded.values()].flatMap((r) => refsOf(r.rels.request_type)));
  const found = new Map<number, { record: StoredRecord; facts: RequestFacts }>();
  for (const id of ids) {
    const record = loaded.get(refKey({ type: 'requests', id }));
    if (!record) continue;
    const link = (name: string) => linkOf(record, name)?.id ?? null;
    const type = types.get(refKey(linkedTo(record, 'request_type')));
    found.set(id, {
      record,
      facts: {
        id,
        state: record.attrs.state as RequestState,
        submission: link('submission'),
        targetAsset: link('target_asset'),
        forMultiplexing: type?.attrs.for_multiplexing === true,
      },
    });
  }
  return found;
}

/** Stages the moves of requests (one write of each book they are in): their state, and the customer's responsibility in their `options` (as the reference's request metadata records it). */
function stageRequestMoves(ctx: WriteContext, moves: readonly RequestMove[], records: ReadonlyMap<number, { record: StoredRecord }>) {
  const changes = new Map(
    moves.map((move) => {
      const options = records.get(move.id)!.record.attrs.options as Record<string, unknown>;
      return [move.id, { state: move.to, ...(move.customerAcceptsResponsibility ? { options: { ...options, customer_accepts_responsibility: true } } : {}) }];
    }),
  );
  return changeRequests(ctx, changes);
}

/**
 * A labware with the state change recorded in its list (and its contents changed, when given); the change's
 * user becomes its owner, as a state change makes them in the reference (`Asset::Ownership::ChangesOwner`).
 */
const recorded = (ctx: WriteContext, labware: StoredRecord, change: { id: number; user: number }, attrs: Partial<Labware> = {}) =>
  ctx.uow.update(
    labware,
    { attrs: { ...attrs, stateChanges: [...(labwareAttrs(labware).stateChanges ?? []), change.id], owner: change.user } },
    { event: 'state_changed' },
  );

export const stateChanges = defineResource({
  type: 'state_changes',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    previous_state: attr('R', () => z.string()),
    target_state: attr('WO', () => z.string().check(z.minLength(1)), { required: true }),
    reason: attr('WO', () => z.string()),
    contents: attr('WO', () => z.array(z.string())),
    // A boolean; also the strings Limber's forms send as it (a check box's "1"/"0", a check_box_tag's "true"), which the reference casts.
    customer_accepts_responsibility: attr('WO', () => z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])])),
    target_uuid: uuidOfAttribute('target'),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    target: toOne('labware', 'WO', { required: true }),
    user: toOne('users', 'WO', { required: true }),
    qcable: toOne('qcables', 'R'),
  },
  filters: { uuid: uuidFilter },

  // The reference requires a reason for a failure (StateChange: `validates :reason, if: :targetted_for_failure?`).
  validate: (_ctx, input) =>
    FAILURE_STATES.includes(input.attributes.target_state ?? '') && !input.attributes.reason?.trim()
      ? [errors.missingRequired('/data/attributes/reason', 'reason')]
      : [],

  create: async (ctx, input) => {
    const target = input.relationships.target!;
    const { target_state: targetState, reason, contents } = input.attributes;
    const accepted = input.attributes.customer_accepts_responsibility;
    const customerAccepts = accepted === true || accepted === 'true' || accepted === '1';
    // The id and the target's qcable are independent: one round trip for both.
    const [[id], qcable] = await Promise.all([ctx.uow.allocateIds('state_changes', 1), qcableGoverning(ctx, target)]);
    const change = { id: id!, user: input.relationships.user!.id };
    const record = (previous: string, qcable: StoredRecord | null) =>
      ctx.uow.create('state_changes', {
        id: id!,
        attrs: {
          previous_state: previous,
          target_state: targetState!,
          reason: reason ?? null,
          contents: contents ?? null,
          customer_accepts_responsibility: customerAccepts,
        },
        rels: { target: refOf(target), user: refOf(input.relationships.user!), qcable: qcable ? refOf(qcable) : null },
      });

    if (qcable) {
      const step = qcableStateChange(qcable.attrs.state, targetState!);
      if (!step.ok) throw errors.invalidTransition(TARGET_STATE, `target_state - ${step.detail}`);
      ctx.uow.update(qcable, { attrs: { state: step.state } });
      recorded(ctx, target, change);
      return record(String(qcable.attrs.state), qcable);
    }

    const slots = targetedSlots(target, contents);
    // Racks may have no purpose (contract §2): their changer is the rack's whatever it is.
    const purposeRef = linkOf(target, 'purpose');
    const purpose = purposeRef ? await ctx.loader.one(purposeRef) : undefined;
    const changer = stateChangerOf(target.type, purpose?.attrs);
    // A rack's targets are its tubes' receptacles; a plate's its wells; a tube's its one receptacle.
    const holders =
      target.type === 'tube_racks'
        ? await ctx.loader.load(
            (labwareAttrs(target).racked ?? []).filter((t) => slots.includes(rackSlot(t.coordinate))).map((t) => ({ type: 'tubes', id: t.tube })),
          )
        : undefined;
    const tubes = holders ? [...holders.values()] : [];
    const requestsOut = changer === 'input_plate' ? await requestsOutOf(ctx, target) : undefined;
    const targets = holders ? tubes.map((tube) => targetOf(tube, 1)) : slots.map((slot) => targetOf(target, slot, requestsOut?.[slot - 1]));
    const others = holders ? [] : labwareAttrs(target).receptacles.filter((_, i) => !slots.includes(i + 1));
    const requests = await requestFacts(ctx, targets, changer === 'mx_tube' ? labwareAttrs(target).poolTube : undefined);
    const changed = changeState({
      changer,
      labware: `${target.type} ${target.id}`,
      targets,
      others,
      targetState: targetState!,
      customerAcceptsResponsibility: customerAccepts,
      requests: new Map([...requests].map(([rid, r]) => [rid, r.facts])),
    });
    if (!changed.ok) throw JsonApiError.all(problemsAt(changed.problems));
    const { receptacles, requestMoves } = changed.value;

    const books = await stageRequestMoves(ctx, requestMoves, requests);
    const items = stateChangeItems(1 + tubes.length, books.length);
    if (items > TRANSACTION_ITEM_LIMIT) {
      throw errors.tooLarge(
        TARGET_STATE,
        `target_state - this change would write ${items} items (${requestMoves.length} requests moved, in ${books.length} request books; ${1 + tubes.length} labware); one state change may write at most ${TRANSACTION_ITEM_LIMIT} (a DynamoDB transaction)`,
      );
    }
    const previous = holders ? rackState(tubes.map((tube) => labwareState(labwareAttrs(tube)))) : labwareState(labwareAttrs(target));
    if (holders) {
      for (const [i, tube] of tubes.entries()) ctx.uow.update(tube, { attrs: { receptacles: [receptacles[i]!] } }, { event: 'state_changed' });
      recorded(ctx, target, change);
    } else {
      const after = labwareAttrs(target).receptacles.map((r, i) => (slots.includes(i + 1) ? receptacles[slots.indexOf(i + 1)]! : r));
      recorded(ctx, target, change, { receptacles: after });
    }
    return record(previous, null);
  },
});
