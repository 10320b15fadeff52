import { refKey } from '#lib/jsonapi/context.ts';
import { toMany, type RelationshipDef } from '#lib/jsonapi/resource.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { refsOf, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { labwareAttrs, receptacleRefs } from '#lib/operations/labware-records.ts';

/** What a labware's pages read of the work on it (contract §6): its samples and the submissions of the requests out of it. */

const distinct = (refs: Ref[]): Ref[] => [...new Map(refs.map((r) => [refKey(r), r])).values()].sort((a, b) => a.id - b.id);

/** The samples of a labware's aliquots, each once (read from the labware itself). */
export const labwareSamples: RelationshipDef = {
  ...toMany('samples', 'R'),
  resolve: async (_ctx, records) =>
    new Map(
      records.map((r): [StoredRecord, RelValue] => [
        r,
        distinct(labwareAttrs(r).receptacles.flatMap((receptacle) => receptacle.aliquots.map((a) => ({ type: 'samples', id: a.sample })))),
      ]),
    ),
};

/**
 * The submissions of the requests out of a labware's receptacles (the reference's `direct_submissions`):
 * one Query of the requests' asset index per labware (a plate's wells are read together), one batched read.
 */
export const directSubmissions: RelationshipDef = {
  ...toMany('submissions', 'R'),
  resolve: async (ctx, records) => {
    const receptacles = new Map(records.map((r) => [r, receptacleRefs(r)]));
    const out = await resolveReverse(ctx, 'direct_submissions', { type: 'requests', relationship: 'asset' }, [...receptacles.values()].flat());
    const byKey = new Map([...out].map(([ref, requests]) => [refKey(ref), refsOf(requests)]));
    const requests = await ctx.loader.load([...byKey.values()].flat());
    return new Map(
      [...receptacles].map(([r, refs]): [StoredRecord, RelValue] => [
        r,
        distinct(refs.flatMap((ref) => byKey.get(refKey(ref)) ?? []).flatMap((request) => refsOf(requests.get(refKey(request))?.rels.submission))),
      ]),
    );
  },
};
