import type { Receptacle } from '#lib/domain/labware.ts';
import { outerRequestOf, type OpenRequest } from '#lib/domain/material-moves.ts';
import { isOpenRequest } from '#lib/domain/requests.ts';
import { poolOf } from '#lib/domain/receptacles.ts';
import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { labwareAttrs, receptacleRefs } from '#lib/operations/labware-records.ts';
import { refsOf, linkOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/** Where a receptacle's material goes on (contract §2, §6): its pool (a submission) and the open request of that pool out of it, if any. */
export interface Destiny {
  pool: number | null;
  outerRequest: number | null;
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

/** Where one receptacle's material goes on, from the open requests out of it (openRequestsOut). */
export function destinyOf(receptacle: Receptacle, open: readonly OpenRequest[]): Destiny {
  const pool = poolOf(
    receptacle,
    open.map((r) => r.submission),
  );
  return { pool, outerRequest: outerRequestOf(null, pool, open) };
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
  return new Map(receptacles.map((slot) => [slot, refsOf(requestsOut.get(slot)).flatMap((ref) => openRequestOf(requests.get(refKey(ref))) ?? [])]));
}

/** A request as a pool's open request: open and of a submission; undefined otherwise. */
export function openRequestOf(request: StoredRecord | undefined): OpenRequest | undefined {
  const submission = request && linkOf(request, 'submission');
  return request && submission && isOpenRequest(request.attrs.state) ? { id: request.id, submission: submission.id } : undefined;
}

/** The pools alone (destiniesOf). */
export const poolsOf = async (ctx: RequestContext, labware: StoredRecord): Promise<(number | null)[]> => (await destiniesOf(ctx, labware)).map((d) => d.pool);
