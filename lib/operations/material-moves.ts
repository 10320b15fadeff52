import * as z from '#lib/zod.ts';
import { withinRequest, type WriteShape } from '#lib/domain/budgets.ts';
import { slotId, transferRequestId } from '#lib/domain/labware-ids.ts';
import type { Contents } from '#lib/domain/labware.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import {
  applyMoves,
  destinyOf,
  openRequestOf,
  outerRequestOf,
  pairsNamedOnce,
  type Destiny,
  type MaterialMove,
  type OpenRequest,
} from '#lib/domain/material-moves.ts';
import { outcome } from '#lib/domain/problems.ts';
import { refKey, refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, pointer } from '#lib/jsonapi/errors.ts';
import { accepted, attributeAt, throwProblems } from '#lib/jsonapi/problems.ts';
import { lazySchema } from '#lib/jsonapi/resource.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { labwareAttrs, parentsOf, receptacleRefs, receptacleType } from '#lib/operations/labware-records.ts';
import { linkOf, refsOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * Material moved between receptacles an operation names one by one (transfer request collections by
 * receptacle uuid, bulk transfers by plate uuid and well): read → plan → write through the one planner
 * (lib/domain/material-moves.ts). The operation reads and checks what its entries name; this reads each
 * entry's open requests out of its source (its pool and outer request), plans the moves (each pair once,
 * the write's items counted against the request's bound, the moves applied to the targets' aggregates) and stages each target
 * labware once, with its new parents. Also here: where a labware's material goes on (destiniesOf), which
 * transfers and tag layouts read.
 */

/** An entry's uuid of a receptacle or labware. */
export const uuidText = lazySchema(() => z.string({ error: 'must be a uuid string' }).check(z.minLength(1)));
/** An entry's `submission_id`: a number, or its digits as Limber may send them. */
export const submissionId = lazySchema(() =>
  z.union([z.number().check(z.int(), z.positive()), z.pipe(z.string().check(z.regex(/^\d+$/, 'must be an id')), z.transform(Number))]),
);

/**
 * Refuses a list of entries that is empty or longer than one operation takes, at the list's attribute,
 * before anything is read. `empty` says what an entry names; `holder` what holds at most `max` of them.
 */
export function checkEntryCount(field: string, count: number, max: number, wording: { empty: string; holder: string }): void {
  if (count === 0) throw errors.invalidValue(pointer('data', 'attributes', field), `${field} - can't be empty: name at least one ${wording.empty}`);
  if (count > max) throw errors.tooLarge(pointer('data', 'attributes', field), `${field} - has ${count} entries; ${wording.holder} holds at most ${max}`);
}

/** A receptacle an entry names: its labware and slot. */
export interface Named {
  labware: StoredRecord;
  slot: number;
}

/** One entry of the operation, read: where from, where to, and what it carries. */
export interface NamedMove {
  source: Named;
  target: Named;
  /** The outer request named (an id), else null: the open request out of the source in the entry's submission is taken. */
  outerRequest: number | null;
  submission: number | null;
  volume: number | null;
  /** Where the entry is in the request (`[field, index]`): problems point at its fields. */
  at: readonly string[];
  /** The entry's source and target as the client named them and the fields that name them: the rules' problems point there. */
  names: { source: string; target: string; sourceField: string; targetField: string };
}

export interface MoveOptions {
  /** The attribute listing the entries, where budget problems point. */
  field: string;
  /** Who owns the targets after the write. */
  user: number;
  /** What the write holds with this many target labware and new links of a target to a source's labware (lib/domain/budgets.ts). */
  items: (targets: number, newLinks: number) => WriteShape;
  /** More attributes a target's write sets (a plate listing the transfers into it). */
  alsoSet?: (labware: StoredRecord) => Record<string, unknown>;
}

/**
 * The open requests with a submission out of each receptacle (wells or tubes' receptacles, of any
 * labware), in request id order: one Query per labware they are in (the requests are indexed by their
 * labware), however many receptacles.
 */
export async function openRequestsOut(ctx: RequestContext, receptacles: readonly Ref[]): Promise<Map<Ref, OpenRequest[]>> {
  const reverse = ctx.registry.require('receptacles').relationships.requests_as_source!.reverse!;
  const requestsOut = await resolveReverse(ctx, 'requests_as_source', reverse, receptacles);
  const requests = await ctx.loader.load([...requestsOut.values()].flatMap(refsOf));
  const open = (request: StoredRecord | undefined) =>
    openRequestOf(request && { id: request.id, state: request.attrs.state, submission: linkOf(request, 'submission')?.id ?? null });
  return new Map(receptacles.map((slot) => [slot, refsOf(requestsOut.get(slot)).flatMap((ref) => open(requests.get(refKey(ref))) ?? [])]));
}

/**
 * The pools of a labware's receptacles (contract §2): what the "by submission" transfers and the pool
 * walkers of tag layouts group wells by; and with each, the request of that pool out of the receptacle
 * that material moved on from it is bound for (contract §6). The requests out of all its receptacles are
 * one Query (they are indexed by their labware), however many wells it has.
 */
export async function destiniesOf(ctx: RequestContext, labware: StoredRecord): Promise<Destiny[]> {
  // The receptacles by reference: the lookup needs no more, and a 384-well plate's full views cost a stamp about a millisecond.
  const slots = receptacleRefs(labware);
  const open = await openRequestsOut(ctx, slots);
  return labwareAttrs(labware).receptacles.map((receptacle, i) => destinyOf(receptacle, open.get(slots[i]!) ?? []));
}

/** The pools alone (destiniesOf). */
export const poolsOf = async (ctx: RequestContext, labware: StoredRecord): Promise<(number | null)[]> => (await destiniesOf(ctx, labware)).map((d) => d.pool);

/**
 * Plans, checks and stages the moves; answers the transfer requests made, in id order. Throws the
 * request's errors (tag clashes, budgets, a pair named twice) before anything is staged.
 */
export async function moveMaterial(ctx: WriteContext, read: readonly NamedMove[], options: MoveOptions): Promise<Ref[]> {
  const open = await readOpenRequests(ctx, read);
  return writeMoves(ctx, planMoves(read, open, options), options);
}

/**
 * The open requests out of each source whose entry names no outer request (they give its pool and outer
 * request), by receptacle id: one Query per labware. Limber's stamps name them all.
 */
async function readOpenRequests(ctx: WriteContext, read: readonly NamedMove[]): Promise<Map<number, OpenRequest[]>> {
  const sources = new Map(read.filter((r) => r.outerRequest === null).map(({ source }) => [slotId(source.labware.id, source.slot), source]));
  const sourceRefs = [...sources.keys()].map((id) => ({ type: receptacleType(sources.get(id)!.labware.type), id }));
  const open = sourceRefs.length > 0 ? await openRequestsOut(ctx, sourceRefs) : new Map<Ref, OpenRequest[]>();
  return new Map(sourceRefs.map((ref) => [ref.id, open.get(ref)!]));
}

/** One move per entry (each source and target pair once), the targets' new parents within the item budget, and the targets' contents after the moves. */
function planMoves(read: readonly NamedMove[], openOf: ReadonlyMap<number, OpenRequest[]>, options: MoveOptions) {
  const moves = read.map(({ source, target, outerRequest, submission, volume, at, names }): MaterialMove<number> => {
    const sourceId = slotId(source.labware.id, source.slot);
    const receptacle = labwareAttrs(source.labware).receptacles[source.slot - 1]!;
    const openOut = openOf.get(sourceId) ?? [];
    const pool = submission ?? destinyOf(receptacle, openOut).pool;
    return {
      source: { id: sourceId, receptacle, tube: source.labware.type === 'tubes', pool, outerRequest: outerRequestOf(outerRequest, pool, openOut), volume },
      target: target.labware.id,
      slot: target.slot,
      input: [...at, names.sourceField],
    };
  });
  const pairs = read.map(({ source, target, at, names }) => ({
    source: slotId(source.labware.id, source.slot),
    target: slotId(target.labware.id, target.slot),
    at,
    names,
  }));
  accepted(
    outcome(pairsNamedOnce(pairs), () => undefined),
    attributeAt,
  );
  const targets = new Map(read.map(({ target }) => [target.labware.id, target.labware]));
  const parents = new Map(
    [...targets.values()].map((labware) => {
      const added = read.filter((r) => r.target.labware.id === labware.id && r.source.labware.id !== labware.id).map((r) => refOf(r.source.labware));
      return [labware.id, accepted(linkParents(refOf(labware), parentsOf(labware), added), attributeAt)];
    }),
  );
  withinBudget(targets, parents, options);
  // Transfer requests recorded and aliquots copied, all or nothing.
  const before = new Map([...targets].map(([id, labware]): [number, Contents] => [id, labwareAttrs(labware)]));
  const after = accepted(
    applyMoves(before, moves, (id, slot) => `${receptacleType(targets.get(id)!.type)} ${slotId(id, slot)}`),
    attributeAt,
  );
  return { targets, parents, after };
}

/** Each target labware is one item; each new link of a target to a source's labware one more: past the bound of one request, a 422 at the entries. */
function withinBudget(targets: ReadonlyMap<number, StoredRecord>, parents: ReadonlyMap<number, Ref[]>, options: MoveOptions): void {
  const newLinks = [...targets.values()].reduce((n, labware) => n + parents.get(labware.id)!.length - parentsOf(labware).length, 0);
  const what = `fills ${targets.size} labware (${newLinks} of them newly children of a source), which`;
  throwProblems(withinRequest(options.items(targets.size, newLinks), what, [options.field]), attributeAt);
}

/** Stages each target once; answers the transfer requests the moves made, in id order. */
function writeMoves(ctx: WriteContext, { targets, parents, after }: ReturnType<typeof planMoves>, options: MoveOptions): Ref[] {
  const made: Ref[] = [];
  for (const [id, labware] of targets) {
    const { receptacles, aliquotCount, transferRequestCount = 0 } = after.get(id)!;
    const attrs = { receptacles, aliquotCount, transferRequestCount, owner: options.user, ...options.alsoSet?.(labware) };
    ctx.uow.update(labware, { attrs, rels: { parents: parents.get(id)! } });
    for (let n = (labwareAttrs(labware).transferRequestCount ?? 0) + 1; n <= transferRequestCount; n++)
      made.push({ type: 'transfer_requests', id: transferRequestId(id, n) });
  }
  return made.sort((a, b) => a.id - b.id);
}
