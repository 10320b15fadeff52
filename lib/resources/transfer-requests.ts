import * as z from '#lib/zod.ts';
import { labwareOfTransferRequest, slotId, transferRequestId } from '#lib/domain/labware-ids.ts';
import { TRANSFER_REQUEST_STATES } from '#lib/domain/transfer-requests.ts';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, toMany, toOne, uuidAttribute, type RelationshipDef } from '#lib/jsonapi/resource.ts';
import { MAX_REVERSE_RECORDS } from '#lib/jsonapi/reverse.ts';
import { transferRequestCount, transferRequestViews } from '#lib/resources/labware-views.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { lineageRelationships } from '#lib/resources/lineage.ts';
import { refsOf, linkOf, linkedTo, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';

/**
 * Transfer requests (contract §6): material moved from a source receptacle into a target receptacle, and
 * how far the work on it got. They live in their target's aggregate (lib/domain/labware.ts), so they are a
 * view type like aliquots: read, listed and counted through the plates and tubes that hold them.
 */
export const transferRequests = defineResource({
  type: 'transfer_requests',
  family: 'transfer_requests',
  methods: ['list', 'read'],
  embedded: { parentTypes: ['plates', 'tubes'], parentId: labwareOfTransferRequest, extract: transferRequestViews, count: transferRequestCount },
  attributes: {
    ...uuidAttribute,
    state: attr('R', () => z.enum(TRANSFER_REQUEST_STATES)),
    volume: attr('R', () => z.number()),
  },
  relationships: {
    source_asset: toOne('receptacles', 'R'),
    target_asset: toOne('receptacles', 'R'),
    submission: toOne('submissions', 'R'),
    outer_request: toOne('requests', 'R'),
  },
  filters: {},
});

/** A receptacle's labware and its own id; a tube stands for its one receptacle. */
function receptacleOf(record: StoredRecord): { labware: Ref; receptacle: number } {
  if (record.type === 'tubes') return { labware: { type: 'tubes', id: record.id }, receptacle: slotId(record.id, 1) };
  return { labware: linkOf(record, 'plate') ?? linkedTo(record, 'labware'), receptacle: record.id };
}

/**
 * `transfer_requests_as_source` of receptacles (or tubes): the transfer requests out of them. They live in
 * their targets, which are children of the source's labware (every move links its target to its source's
 * labware): one Query of the children of each labware, one batched read of those children. Bounded: past
 * MAX_CHILDREN children (lib/resources/lineage.ts) or MAX_REVERSE_RECORDS transfer requests, a 400.
 */
async function transferRequestsAsSource(ctx: RequestContext, records: StoredRecord[]): Promise<Map<StoredRecord, RelValue>> {
  const wanted = records.map(receptacleOf);
  const labware = [...(await ctx.loader.load(wanted.map((w) => w.labware))).values()];
  const children = await lineageRelationships.children!.resolve!(ctx, labware);
  const loaded = await ctx.loader.load([...children.values()].flatMap(refsOf));
  const sources = new Set(wanted.map((w) => w.receptacle));
  const out = new Map<number, Ref[]>();
  let found = 0;
  for (const child of loaded.values()) {
    for (const receptacle of labwareAttrs(child).receptacles) {
      for (const t of receptacle.transfers ?? []) {
        if (!sources.has(t.source)) continue;
        if (++found > MAX_REVERSE_RECORDS) throw errors.tooManyRelated('transfer_requests_as_source', 'transfer_requests', MAX_REVERSE_RECORDS);
        const list = out.get(t.source) ?? [];
        list.push({ type: 'transfer_requests', id: transferRequestId(child.id, t.n) });
        out.set(t.source, list);
      }
    }
  }
  // Each child is read once (the loader keys by record), so no transfer request is listed twice.
  return new Map(records.map((record, i) => [record, [...(out.get(wanted[i]!.receptacle) ?? [])].sort((a, b) => a.id - b.id)]));
}

/** The relationship, for wells, receptacles and tubes. */
export const transferRequestsAsSourceRelationship: RelationshipDef = { ...toMany('transfer_requests', 'R'), resolve: transferRequestsAsSource };
