import { labwareOfSlot, slotId, slotOf } from '#lib/domain/labware-ids.ts';
import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { toMany, type RelationshipDef } from '#lib/jsonapi/resource.ts';
import { refsOf, linkOf, linkedTo, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { labwareAttrs, receptacleType } from '#lib/operations/labware-records.ts';
import { childLinks } from '#lib/resources/lineage.ts';

/**
 * Where a receptacle's material came from and went, one transfer step away (Limber's `upstream_*` and
 * `downstream_*` of wells): a transfer request lives in its target receptacle and names its source
 * (lib/domain/labware.ts), so upstream is read from the receptacle's own labware and the sources' labware
 * (one batched read), and downstream from its labware's children (one Query of the parent index per
 * labware, bounded by MAX_CHILDREN, then one batched read) — never a read per receptacle.
 */

/** The labware that holds a receptacle (a well's plate, a tube's receptacle's tube). */
const holderOf = (receptacle: StoredRecord): Ref => linkOf(receptacle, 'plate') ?? linkedTo(receptacle, 'labware');

/** The source receptacle ids of the transfer requests into a receptacle, read from its labware. */
const sourcesIn = (labware: StoredRecord | undefined, receptacleId: number): number[] =>
  (labware ? (labwareAttrs(labware).receptacles[slotOf(receptacleId) - 1]?.transfers ?? []) : []).map((t) => t.source);

/** Each receptacle's neighbours one step away, as receptacle refs (wells or tube receptacles) with their labware. */
type Neighbours = Map<StoredRecord, { receptacle: Ref; labware: Ref }[]>;

async function upstream(ctx: RequestContext, receptacles: StoredRecord[]): Promise<Neighbours> {
  const holders = await ctx.loader.load(receptacles.map(holderOf));
  const sources = new Map(receptacles.map((r) => [r, sourcesIn(holders.get(refKey(holderOf(r))), r.id)]));
  const labware = await ctx.loader.load([...new Set([...sources.values()].flat().map(labwareOfSlot))].map((id) => ({ type: 'labware', id })));
  const byId = new Map([...labware.values()].map((l) => [l.id, l]));
  return new Map(
    [...sources].map(([r, ids]) => [
      r,
      ids.flatMap((id) => {
        const holder = byId.get(labwareOfSlot(id));
        return holder ? [{ receptacle: { type: receptacleType(holder.type), id }, labware: { type: holder.type, id: holder.id } }] : [];
      }),
    ]),
  );
}

async function downstream(ctx: RequestContext, receptacles: StoredRecord[]): Promise<Neighbours> {
  const holders = [...new Map(receptacles.map((r) => [holderOf(r).id, holderOf(r)])).values()];
  const children = [...new Map([...(await childLinks(ctx, holders)).values()].flat().map((c) => [c.id, c])).values()];
  const loaded = await ctx.loader.load(children);
  const fed = new Map<number, { receptacle: Ref; labware: Ref }[]>();
  for (const child of loaded.values()) {
    for (const [i, receptacle] of labwareAttrs(child).receptacles.entries()) {
      for (const { source } of receptacle.transfers ?? []) {
        const target = { receptacle: { type: receptacleType(child.type), id: slotId(child.id, i + 1) }, labware: { type: child.type, id: child.id } };
        fed.set(source, [...(fed.get(source) ?? []), target]);
      }
    }
  }
  return new Map(receptacles.map((r) => [r, fed.get(r.id) ?? []]));
}

type Choose = (n: { receptacle: Ref; labware: Ref }) => Ref | undefined;

/** One of the eight relationships: neighbours one way, as what `pick` takes of each, each once, in id order. */
function neighbours(type: string, walk: typeof upstream, pick: Choose): RelationshipDef {
  return {
    ...toMany(type, 'R'),
    resolve: async (ctx, records) => {
      const found = await walk(ctx, records);
      return new Map(
        [...found].map(([r, list]): [StoredRecord, RelValue] => {
          const refs = new Map(list.flatMap((n) => [pick(n)].filter((p): p is Ref => p !== undefined)).map((ref) => [refKey(ref), ref]));
          return [r, [...refs.values()].sort((a, b) => a.id - b.id)];
        }),
      );
    },
  };
}

const ofType =
  (type: string, side: 'receptacle' | 'labware'): Choose =>
  (n) =>
    n[side].type === type ? n[side] : undefined;

/** Limber's well relationships to the labware and wells one transfer away (assets: labware of any type). */
export const receptacleLineage = {
  upstream_assets: neighbours('labware', upstream, (n) => n.labware),
  upstream_plates: neighbours('plates', upstream, ofType('plates', 'labware')),
  upstream_tubes: neighbours('tubes', upstream, ofType('tubes', 'labware')),
  upstream_wells: neighbours('wells', upstream, ofType('wells', 'receptacle')),
  downstream_assets: neighbours('labware', downstream, (n) => n.labware),
  downstream_plates: neighbours('plates', downstream, ofType('plates', 'labware')),
  downstream_tubes: neighbours('tubes', downstream, ofType('tubes', 'labware')),
  downstream_wells: neighbours('wells', downstream, ofType('wells', 'receptacle')),
};

/**
 * The requests whose target is the receptacle (the reference's `requests_as_target`): a request gets its
 * target when work on it completes there, and the aliquots it made there carry it, so the candidates are
 * the requests of the receptacle's aliquots (no index: one batched read), kept when they name it as target.
 */
export const requestsAsTarget: RelationshipDef = {
  ...toMany('requests', 'R'),
  resolve: async (ctx, records) => {
    const aliquots = await ctx.loader.load(records.flatMap((r) => refsOf(r.rels.aliquots)));
    const candidates = new Map(records.map((r) => [r, refsOf(r.rels.aliquots).flatMap((a) => refsOf(aliquots.get(refKey(a))?.rels.request))]));
    const requests = await ctx.loader.load([...candidates.values()].flat());
    return new Map(
      [...candidates].map(([r, refs]): [StoredRecord, RelValue] => {
        const targeted = refs.filter((ref) => refsOf(requests.get(refKey(ref))?.rels.target_asset).some((t) => t.id === r.id));
        return [r, [...new Map(targeted.map((ref) => [ref.id, ref])).values()].sort((a, b) => a.id - b.id)];
      }),
    );
  },
};
