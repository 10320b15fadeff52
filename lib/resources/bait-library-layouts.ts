import * as z from '#lib/zod.ts';
import { baitLayout, layBaits, wellLayout, type BaitWell } from '#lib/domain/bait-layout.ts';
import { layoutForSize, positionAt } from '#lib/domain/geometry.ts';
import type { Receptacle } from '#lib/domain/labware.ts';
import { refKey, refOf, type RequestContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, show } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, lazySchema, timestamps, toOne, uuidAttribute, uuidFilter, uuidOfAttribute, type AttributeDef } from '#lib/jsonapi/resource.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { poolsOf } from '#lib/operations/material-moves.ts';
import { accepted, type Locate } from '#lib/jsonapi/problems.ts';
import { baitLibraries, text } from '#lib/resources/reference.ts';
import { findTerms, linkOf, linkedTo, type StoredRecord } from '#lib/store/records.ts';

/**
 * Bait library layouts (the reference's BaitLibraryLayout, Limber's baited plate): the bait libraries the
 * requests of a plate's pooled wells ask for (their `bait_library_name` option) put on the wells'
 * aliquots, and recorded as `layout` (bait library → wells). A plate is laid out once. `preview` answers
 * the layout by well (`well_layout`, what Limber shows before it makes the plate) and writes nothing.
 */

const BAIT_OPTION = 'bait_library_name';
const layoutSchema = lazySchema(() => z.record(z.string(), z.array(z.string())));

/** What a layout of the plate would be: each well's bait library (by name and record) and the layout; or the problems, located by `locate`. */
async function planBaits(ctx: RequestContext, plate: StoredRecord, locate: Locate) {
  const { receptacles } = labwareAttrs(plate);
  const layout = layoutForSize(receptacles.length)!;
  const requestRefs = [...new Set(receptacles.flatMap((r) => r.aliquots.flatMap((a) => (a.request ? [a.request] : []))))].map((id) => ({
    type: 'requests',
    id,
  }));
  const [pools, requests] = await Promise.all([poolsOf(ctx, plate), ctx.loader.load(requestRefs)]);
  const requestOf = (id: number) => requests.get(refKey({ type: 'requests', id }));
  const wells = receptacles.map(
    (receptacle: Receptacle, i): BaitWell => ({
      position: positionAt(layout, i)!,
      pool: pools[i] ?? null,
      requests: receptacle.aliquots.flatMap((a) => {
        const request = a.request ? requestOf(a.request) : undefined;
        if (!request) return [];
        const bait = (request.attrs.options as Record<string, unknown> | undefined)?.[BAIT_OPTION];
        return [{ submission: linkOf(request, 'submission')?.id ?? null, bait: typeof bait === 'string' ? bait : null }];
      }),
    }),
  );
  const asked = [...new Set(wells.flatMap((w) => w.requests.flatMap((r) => (r.bait ? [r.bait] : []))))];
  const libraries = await baitLibrariesNamed(ctx, asked);
  const baits = accepted(layBaits(wells, new Set(libraries.keys()), `plate ${plate.id}`), locate);
  return { baits, libraries, layout: baitLayout(wells, baits) };
}

/** The bait libraries of these names, by name (one lookup of the name index each; a plate asks for a few). */
async function baitLibrariesNamed(ctx: RequestContext, names: string[]): Promise<Map<string, StoredRecord>> {
  const hits = await Promise.all(
    names.map(async (name) => [name, (await findTerms(ctx.registry.indexScope(baitLibraries, 'name'), name.toLowerCase()))[0]] as const),
  );
  const found = await ctx.loader.load(hits.flatMap(([, hit]) => (hit ? [{ type: hit.type, id: hit.id }] : [])));
  return new Map(hits.flatMap(([name, hit]) => (hit && found.has(`${hit.type}:${hit.id}`) ? [[name, found.get(`${hit.type}:${hit.id}`)!] as const] : [])));
}

/** The preview's body: `plate_uuid` and `user_uuid` at its top level, as the reference takes them (Limber's custom endpoint). */
const PREVIEW_BODY: Record<string, AttributeDef> = {
  plate_uuid: attr('W', text, { required: true }),
  user_uuid: attr('W', text, { required: true }),
};

async function preview(ctx: RequestContext, body: unknown): Promise<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.invalidMember('', `the body must be an object with plate_uuid and user_uuid, got ${show(body)}`);
  const given = body as Record<string, unknown>;
  const problems: JsonApiError[] = [];
  const read = async (member: string, type: string) => {
    const uuid = given[member];
    if (uuid === undefined || uuid === null || uuid === '') problems.push(errors.missingMember(`/${member}`, member));
    else if (typeof uuid !== 'string') problems.push(errors.invalidMember(`/${member}`, `${member} must be a uuid string, got ${show(uuid)}`));
    else {
      const record = await ctx.loader.byUuid(uuid, [type]);
      if (record) return record;
      problems.push(errors.notFound(`${member} - no ${type} with uuid ${show(uuid)}`, { pointer: `/${member}` }));
    }
    return undefined;
  };
  const [plate] = await Promise.all([read('plate_uuid', 'plates'), read('user_uuid', 'users')]);
  if (problems.length > 0) throw JsonApiError.all(problems);
  const { layout } = await planBaits(ctx, plate!, () => ({ pointer: '/plate_uuid', field: 'plate_uuid' }));
  return { well_layout: wellLayout(layout) };
}

export const baitLibraryLayouts = defineResource({
  type: 'bait_library_layouts',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    layout: attr('R', layoutSchema),
    plate_uuid: uuidOfAttribute('plate'),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    plate: toOne('plates', 'RW', { required: true }),
    user: toOne('users', 'RW', { required: true }),
  },
  // A plate is laid out once (the reference's uniqueness of plate_id), also under concurrency: a guard item per plate.
  indexes: { plate: { values: (r) => [linkedTo(r, 'plate').id], unique: { field: 'plate', pointer: '/data/relationships/plate' } } },
  filters: { uuid: uuidFilter },
  actions: { preview: { method: 'POST', answer: preview, body: PREVIEW_BODY, answers: { well_layout: attr('R', () => z.record(z.string(), z.string())) } } },

  create: async (ctx, input) => {
    const plate = input.relationships.plate!;
    const user = input.relationships.user!;
    const { baits, libraries, layout } = await planBaits(ctx, plate, () => ({ pointer: '/data/relationships/plate', field: 'plate' }));
    const { receptacles } = labwareAttrs(plate);
    const baited = receptacles.map((receptacle, i) => {
      const library = baits[i] ? libraries.get(baits[i])!.id : undefined;
      return library === undefined ? receptacle : { ...receptacle, aliquots: receptacle.aliquots.map((a) => ({ ...a, bait_library: library })) };
    });
    ctx.uow.update(plate, { attrs: { receptacles: baited, owner: user.id } });
    return ctx.uow.create('bait_library_layouts', { attrs: { layout }, rels: { plate: refOf(plate), user: refOf(user) } });
  },
});
