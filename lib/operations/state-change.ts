import { stateChangeItems, withinRequest } from '#lib/domain/budgets.ts';
import { layoutForSize, positionAt, positionIndex } from '#lib/domain/geometry.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import { labwareState, type Labware, type Receptacle } from '#lib/domain/labware.ts';
import type { RequestState } from '#lib/domain/machines.ts';
import type { Problem } from '#lib/domain/problems.ts';
import { qcableStateChange } from '#lib/domain/qcables.ts';
import { rackSlot, rackState } from '#lib/domain/racks.ts';
import type { RequestChange } from '#lib/domain/request-books.ts';
import { changeState, outerRequestsOf, stateChangerOf, type RequestFacts, type StateChanger, type TargetedReceptacle } from '#lib/domain/state-changers.ts';
import { refKey, refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer } from '#lib/jsonapi/errors.ts';
import { attributeAt, problemErrors, throwProblems } from '#lib/jsonapi/problems.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { labwareAttrs, receptacleRefs, receptacleType } from '#lib/operations/labware-records.ts';
import { planBookChanges, readBooksOf, writeBookChanges, type PlannedBook } from '#lib/operations/request-books.ts';
import { findTerms, linkOf, linkedTo, refsOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * A state change (lib/resources/state-changes.ts; reference-behaviour.md §7.3): read → plan → write.
 * readStateChange reads everything first: the target's qcable (a labware of its qcable's purpose moves its
 * qcable by the qcable machine), else the targeted receptacles (a rack's are its tubes'), the purpose that
 * chooses the state changer, an input plate's requests out, and the requests the targets name with their
 * books. planStateChange decides without I/O: the qcable machine, or changeState
 * (lib/domain/state-changers.ts) with the request books it changes, within the bound of one request
 * (stateChangeItems in lib/domain/budgets.ts). writeStateChange stages the labware (its state change
 * listed), the books and the record, each conditional on the version read: of concurrent changes of one
 * labware one commits, the others run again from fresh reads (and then find the move made).
 */

const TARGET_STATE = '/data/attributes/target_state';

/** The state change's write input, as the definition's attributes and relationships type it. */
interface StateChangeInput {
  attributes: {
    target_state?: string | null;
    reason?: string | null;
    contents?: string[] | null;
    customer_accepts_responsibility?: boolean | string | null;
  };
  relationships: { target?: StoredRecord | null; user?: StoredRecord | null };
}

/** What the client asked for. */
interface Asked {
  target: StoredRecord;
  user: StoredRecord;
  targetState: string;
  reason: string | null;
  contents: string[] | null;
  customerAccepts: boolean;
}

export async function createStateChange(ctx: WriteContext, input: StateChangeInput): Promise<StoredRecord> {
  const { target_state: targetState, reason, contents, customer_accepts_responsibility: accepts } = input.attributes;
  const asked: Asked = {
    target: input.relationships.target!,
    user: input.relationships.user!,
    targetState: targetState!,
    reason: reason ?? null,
    contents: contents ?? null,
    // A boolean, or the strings Limber's forms send as it, which the reference casts.
    customerAccepts: accepts === true || accepts === 'true' || accepts === '1',
  };
  const read = await readStateChange(ctx, asked);
  return writeStateChange(ctx, asked, read, planStateChange(asked, read, Date.parse(ctx.uow.now)));
}

/** The qcable of a labware, if it has one: the one-per-labware index entry, read consistently. */
export async function qcableOfLabware(ctx: RequestContext, labware: StoredRecord): Promise<StoredRecord | undefined> {
  const [hit] = await findTerms(ctx.registry.indexScope('qcables', 'labware'), String(labware.id));
  return hit ? ctx.loader.one({ type: hit.type, id: hit.id }) : undefined;
}

/**
 * The qcable whose machine a labware's state changes move (reference-behaviour.md §7.3): its qcable while the
 * labware is still of the purpose its lot type makes (a tag plate, the reference's QcableLabware changer).
 * Converted to another purpose (Limber's tagged plate becomes a library plate), it changes by that purpose's
 * changer, as in the reference, where the changer is the purpose's. A lot type naming no purpose: always.
 */
async function qcableGoverning(ctx: RequestContext, labware: StoredRecord): Promise<StoredRecord | undefined> {
  const qcable = await qcableOfLabware(ctx, labware);
  if (!qcable) return undefined;
  const lot = await ctx.loader.one(linkedTo(qcable, 'lot'));
  const lotType = lot && (await ctx.loader.one(linkedTo(lot, 'lot_type')));
  const made = lotType && linkOf(lotType, 'target_purpose');
  return !made || made.id === linkOf(labware, 'purpose')?.id ? qcable : undefined;
}

/** A request the targets name, as read, and what a changer knows of it. */
type ReadRequest = { record: StoredRecord; facts: RequestFacts };

/** What a labware's change (no qcable) reads before deciding. */
interface LabwareRead {
  slots: number[];
  changer: StateChanger;
  /** A rack's targeted tubes (their receptacles are its targets); undefined for a plate or a tube. */
  tubes: StoredRecord[] | undefined;
  targets: TargetedReceptacle[];
  others: Receptacle[];
  requests: Map<number, ReadRequest>;
  /** The books of those requests (already read with them). */
  books: StoredRecord[];
}

type StateChangeRead = { id: number } & ({ qcable: StoredRecord } | { qcable?: undefined; labware: LabwareRead });

/** Everything the change needs, read before deciding anything. */
async function readStateChange(ctx: WriteContext, { target, contents }: Asked): Promise<StateChangeRead> {
  // The id and the target's qcable are independent: one round trip for both.
  const [[id], qcable] = await Promise.all([ctx.uow.allocateIds('state_changes', 1), qcableGoverning(ctx, target)]);
  if (qcable) return { id: id!, qcable };
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
  const tubes = holders && [...holders.values()];
  const requestsOut = changer === 'input_plate' ? await requestsOutOf(ctx, target) : undefined;
  const targets = tubes ? tubes.map((tube) => targetOf(tube, 1)) : slots.map((slot) => targetOf(target, slot, requestsOut?.[slot - 1]));
  const others = tubes ? [] : labwareAttrs(target).receptacles.filter((_, i) => !slots.includes(i + 1));
  const requests = await requestFacts(ctx, targets, changer === 'mx_tube' ? labwareAttrs(target).poolTube : undefined);
  const books = await readBooksOf(ctx, requests.keys());
  return { id: id!, labware: { slots, changer, tubes, targets, others, requests, books } };
}

/** The receptacles a change targets, by slot: `contents` (well positions, rack coordinates), absent or empty for all. */
function targetedSlots(labware: StoredRecord, contents: readonly string[] | null): number[] {
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
async function requestFacts(ctx: WriteContext, targets: readonly TargetedReceptacle[], pool: number | undefined): Promise<Map<number, ReadRequest>> {
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
  const found = new Map<number, ReadRequest>();
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

/** What the change writes: the qcable's next state, or the targets' receptacles after it and the books of the requests it moves; and the state it records as previous. */
type StateChangePlan = { previous: string } & ({ qcableState: string } | { qcableState?: undefined; receptacles: Receptacle[]; books: PlannedBook[] });

/** Decides the change without I/O: the qcable machine, or the labware's state changer, within the bound of one request. */
function planStateChange({ target, targetState, customerAccepts }: Asked, read: StateChangeRead, now: number): StateChangePlan {
  if (read.qcable) {
    const step = qcableStateChange(read.qcable.attrs.state, targetState);
    if (!step.ok) throw errors.invalidTransition(TARGET_STATE, `target_state - ${step.detail}`);
    return { previous: String(read.qcable.attrs.state), qcableState: step.state };
  }
  const { changer, tubes, targets, others, requests } = read.labware;
  const changed = changeState({
    changer,
    labware: `${target.type} ${target.id}`,
    targets,
    others,
    targetState,
    customerAcceptsResponsibility: customerAccepts,
    requests: new Map([...requests].map(([id, r]) => [id, r.facts])),
  });
  if (!changed.ok) throw JsonApiError.all(problemsAt(changed.problems));
  const { receptacles, requestMoves } = changed.value;
  // Each request's state, and the customer's responsibility in its `options` (as the reference's request metadata records it).
  const changes = new Map(
    requestMoves.map((move): [number, RequestChange] => {
      const options = requests.get(move.id)!.record.attrs.options as Record<string, unknown>;
      return [move.id, { state: move.to, ...(move.customerAcceptsResponsibility ? { options: { ...options, customer_accepts_responsibility: true } } : {}) }];
    }),
  );
  const books = planBookChanges(read.labware.books, changes, now);
  const labware = 1 + (tubes?.length ?? 0);
  const what = `this change (${requestMoves.length} requests moved, in ${books.length} request books; ${labware} labware)`;
  throwProblems(withinRequest(stateChangeItems(labware, books.length), what, ['target_state']), attributeAt);
  const previous = tubes ? rackState(tubes.map((tube) => labwareState(labwareAttrs(tube)))) : labwareState(labwareAttrs(target));
  return { previous, receptacles, books };
}

/** A state changer's problems: each at the target state, a move the machine does not allow an `invalid_transition`. */
const problemsAt = (problems: readonly Problem[]) =>
  problems.map((problem) =>
    problem.code === 'not_allowed' ? errors.invalidTransition(TARGET_STATE, `target_state - ${problem.detail}`) : problemErrors([problem], attributeAt)[0]!,
  );

/** Stages what the plan changes (the qcable, or the books, the rack's tubes and the targets' receptacles), the target with the change listed, and the change's record. */
function writeStateChange(ctx: WriteContext, asked: Asked, read: StateChangeRead, plan: StateChangePlan): Promise<StoredRecord> {
  const { target, user } = asked;
  const change = { id: read.id, user: user.id };
  if (read.qcable) {
    ctx.uow.update(read.qcable, { attrs: { state: plan.qcableState } });
    recorded(ctx, target, change);
  } else if (plan.qcableState === undefined) {
    writeBookChanges(ctx, plan.books);
    const { slots, tubes } = read.labware;
    if (tubes) {
      for (const [i, tube] of tubes.entries()) ctx.uow.update(tube, { attrs: { receptacles: [plan.receptacles[i]!] } }, { event: 'state_changed' });
      recorded(ctx, target, change);
    } else {
      const after = labwareAttrs(target).receptacles.map((r, i) => (slots.includes(i + 1) ? plan.receptacles[slots.indexOf(i + 1)]! : r));
      recorded(ctx, target, change, { receptacles: after });
    }
  }
  return ctx.uow.create('state_changes', {
    id: read.id,
    attrs: {
      previous_state: plan.previous,
      target_state: asked.targetState,
      reason: asked.reason,
      contents: asked.contents,
      customer_accepts_responsibility: asked.customerAccepts,
    },
    rels: { target: refOf(target), user: refOf(user), qcable: read.qcable ? refOf(read.qcable) : null },
  });
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
