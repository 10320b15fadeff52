import * as z from '#lib/zod.ts';
import { labwareOfSlot } from '#lib/domain/labware-ids.ts';
import type { RequestState } from '#lib/domain/machines.ts';
import { platesInSubmission } from '#lib/domain/submission-pools.ts';
import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { attr, defineResource, toMany, type RelationshipDef } from '#lib/jsonapi/resource.ts';
import { resolveReverse } from '#lib/jsonapi/reverse.ts';
import { directSubmissions } from '#lib/resources/labware-work.ts';
import { viewOf } from '#lib/resources/labware-views.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { unrecorded } from '#lib/resources/unrecorded.ts';
import { refsOf, linkedTo, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';

/**
 * Submission pools (the reference's SubmissionPool, contract §6): a submission seen from a plate. A pool is
 * a view of its submission (same id, read with it: lib/jsonapi/resource.ts `embedded`); a plate's pools are
 * the submissions of the requests out of its wells, else those its material came in for (the reference's
 * `all_submission_ids`). `plates_in_submission` is computed when rendered (lib/domain/submission-pools.ts).
 */

const poolOf = (submission: StoredRecord): StoredRecord =>
  viewOf(submission, { family: 'submission_pools', id: submission.id, type: 'submission_pools', uuid: '', attrs: {}, rels: {} });

/** For each pool, its submission's requests (one Query of the requests' submission index per submission, one batched read). */
async function platesOfPools(ctx: RequestContext, pools: StoredRecord[]): Promise<Map<StoredRecord, number>> {
  const submissions = pools.map((p): Ref => ({ type: 'submissions', id: p.id }));
  const pointing = await resolveReverse(ctx, 'requests', { type: 'requests', relationship: 'submission' }, submissions);
  const requests = await ctx.loader.load([...pointing.values()].flatMap(refsOf));
  return new Map(
    pools.map((pool, i) => {
      const mine = refsOf(pointing.get(submissions[i]!)).flatMap((ref) => requests.get(refKey(ref)) ?? []);
      const count = platesInSubmission(
        // Work after a multiplexing step has no asset until its pool is made: it is in no plate.
        mine
          .flatMap((r) => (r.rels.asset ? [r] : []))
          .map((r) => ({
            id: r.id,
            state: r.attrs.state as RequestState,
            requestType: linkedTo(r, 'request_type').id,
            assetLabware: labwareOfSlot(linkedTo(r, 'asset').id),
          })),
      );
      return [pool, count] as const;
    }),
  );
}

export const submissionPools = defineResource({
  type: 'submission_pools',
  methods: ['list', 'read'],
  embedded: { parentTypes: ['submissions'], parentId: (id) => id, extract: (s) => [poolOf(s)], count: () => 1 },
  attributes: { plates_in_submission: attr('R', () => z.number().check(z.int()), { load: platesOfPools }) },
  // Which tag layout templates a pool's plates were tagged with is not recorded (docs/decisions.md, "What Limber's pages read").
  relationships: { tag_layout_templates: unrecorded('many', 'tag_layout_templates') },
  filters: {},
});

/** A plate's submission pools: of the requests out of its wells (one Query, one batched read), else of the transfer requests into them (no read). */
export const submissionPoolsOfPlate: RelationshipDef = {
  ...toMany('submission_pools', 'R'),
  resolve: async (ctx, records) => {
    const out = await directSubmissions.resolve!(ctx, records);
    return new Map(
      records.map((plate): [StoredRecord, RelValue] => {
        const waiting = refsOf(out.get(plate)).map((s) => s.id);
        const carried = labwareAttrs(plate).receptacles.flatMap((r) => (r.transfers ?? []).flatMap((t) => (t.submission ? [t.submission] : [])));
        const ids = waiting.length > 0 ? waiting : [...new Set(carried)].sort((a, b) => a - b);
        return [plate, ids.map((id) => ({ type: 'submission_pools', id }))];
      }),
    );
  },
};
