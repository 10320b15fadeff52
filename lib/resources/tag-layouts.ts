import * as z from '#lib/zod.ts';
import { positionAt, layoutForSize } from '#lib/domain/geometry.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import type { Tag } from '#lib/domain/labware.ts';
import {
  DEFAULT_TAGS_PER_WELL,
  layTags,
  TAG_DIRECTIONS,
  TAG_WALKERS,
  tagList,
  usesTagsPerWell,
  walkerName,
  walkPlate,
  type TagDirection,
  type TagWalker,
} from '#lib/domain/tag-layout.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, show } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, own, timestamps, toOne, uuidAttribute, uuidFilter, uuidOfAttribute, type WriteInput } from '#lib/jsonapi/resource.ts';
import { relValue } from '#lib/jsonapi/write.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { poolsOf } from '#lib/operations/material-moves.ts';
import { accepted, attributeAt, relationshipAt, type Locate } from '#lib/jsonapi/problems.ts';
import { linkedTo, refsOf, type StoredRecord } from '#lib/store/records.ts';

/**
 * Tag layouts (interface.md, contract §2, reference-behaviour.md §4.3): the tags of a group laid out on a
 * plate's aliquots by a direction and a walker, given or taken from a template. The algorithms are lab rules
 * (lib/domain/tag-layout.ts); the whole layout is one conditional write of the plate, so a clash anywhere
 * writes nothing.
 */

/** What a template supplies; sending any of them with `tag_layout_template_uuid` is a 400 (contract §2). */
const TEMPLATE_SUPPLIES = ['direction', 'walking_by', 'tag_group', 'tag2_group'] as const;
/** Walkers that group wells by their pools (one Query of the requests out of the plate). */
const POOL_WALKERS: readonly TagWalker[] = ['wells in pools', 'manual by pool'];
const TEMPLATE = '/data/attributes/tag_layout_template_uuid';

const attributes = {
  ...uuidAttribute,
  direction: attr('RW', () => z.enum(TAG_DIRECTIONS)),
  walking_by: attr('RW', () => z.enum(TAG_WALKERS)),
  initial_tag: attr('RW', () => z.number().check(z.int(), z.gte(0))),
  // Stored and rendered for the group walkers, which use it; null otherwise (contract §2).
  tags_per_well: attr('RW', () => z.number().check(z.int(), z.positive())),
  substitutions: attr('RW', () =>
    z.record(z.string().check(z.regex(/^[1-9][0-9]*$/, 'keys must be tag indexes')), z.string().check(z.regex(/^[1-9][0-9]*$/, 'must be a tag index'))),
  ),
  replace_tags: attr('W', () => z.boolean(), { transient: true }),
  enforce_uniqueness: attr('W', () => z.boolean(), { transient: true }),
  tag_layout_template_uuid: attr('W', () => z.string({ error: 'must be a uuid string' }), { transient: true, readsUuid: true }),
  plate_uuid: uuidOfAttribute('plate'),
  tag_group_uuid: uuidOfAttribute('tag_group'),
  tag2_group_uuid: uuidOfAttribute('tag2_group'),
  user_uuid: uuidOfAttribute('user'),
  ...timestamps,
};

const relationships = {
  plate: toOne('plates', 'RW', { required: true }),
  tag_group: toOne('tag_groups', 'RW'),
  tag2_group: toOne('tag_groups', 'RW'),
  user: toOne('users', 'RW', { required: true }),
};

type Input = WriteInput<typeof attributes, typeof relationships>;

const inputAt: Locate = (path) => (own(attributes, path[0]!) ? attributeAt : relationshipAt)(path);

/** The layout's algorithm and groups: from its template, or as sent. */
interface Scheme {
  direction: TagDirection;
  walkingBy: TagWalker;
  tagGroup: StoredRecord;
  tag2Group: StoredRecord | null;
}

async function templateScheme(ctx: WriteContext, input: Input, uuid: string): Promise<Scheme> {
  for (const name of TEMPLATE_SUPPLIES) {
    if (!input.sent.has(name)) continue;
    const where = own(attributes, name) ? `/data/attributes/${name}` : `/data/relationships/${name}`;
    throw errors.templateConflict(`Cannot provide '${name}' while also providing 'tag_layout_template_uuid'.`, where);
  }
  const template = await ctx.loader.byUuid(uuid, ['tag_layout_templates']);
  if (!template) throw errors.notFound(`tag_layout_template_uuid - no tag_layout_templates with uuid ${show(uuid)}`, { pointer: TEMPLATE });
  const groups = await ctx.loader.load([linkedTo(template, 'tag_group'), ...refsOf(template.rels.tag2_group)]);
  const [tagGroup, tag2Group] = [...groups.values()];
  return {
    direction: template.attrs.direction as TagDirection,
    walkingBy: template.attrs.walking_by as TagWalker,
    tagGroup: tagGroup!,
    tag2Group: tag2Group ?? null,
  };
}

function sentScheme(input: Input): Scheme {
  const { direction, walking_by: walkingBy } = input.attributes;
  const { tag_group: tagGroup, tag2_group: tag2Group } = input.relationships;
  const missing = [
    ...(direction ? [] : [errors.missingRequired('/data/attributes/direction', 'direction')]),
    ...(walkingBy ? [] : [errors.missingRequired('/data/attributes/walking_by', 'walking_by')]),
    ...(tagGroup ? [] : [errors.missingRequired('/data/relationships/tag_group', 'tag_group')]),
  ];
  if (missing.length > 0) throw JsonApiError.all(missing);
  return { direction: direction!, walkingBy: walkingBy!, tagGroup: tagGroup!, tag2Group: tag2Group ?? null };
}

const tagsOf = (group: StoredRecord): Tag[] => group.attrs.tags as Tag[];

/**
 * The substitutions that apply to a tag2 group: those naming its tags. They are checked against the tag
 * group (a substitution it lacks is a 422); the reference applies the same ones to both groups.
 */
function substitutionsFor(group: StoredRecord, substitutions: Record<string, string>): Record<string, string> {
  const indexes = new Set(tagsOf(group).map((t) => String(t.index)));
  return Object.fromEntries(Object.entries(substitutions).filter(([from, to]) => indexes.has(from) && indexes.has(to)));
}

export const tagLayouts = defineResource({
  type: 'tag_layouts',
  methods: ['list', 'read', 'create'],
  attributes,
  relationships,
  filters: { uuid: uuidFilter },

  create: async (ctx, input) => {
    const templateUuid = input.attributes.tag_layout_template_uuid;
    const scheme = templateUuid ? await templateScheme(ctx, input, templateUuid) : sentScheme(input);
    const plate = input.relationships.plate!;
    const contents = labwareAttrs(plate);
    const layout = layoutForSize(contents.receptacles.length)!;
    const pools = POOL_WALKERS.includes(scheme.walkingBy) ? await poolsOf(ctx, plate) : [];
    const tagsPerWell = usesTagsPerWell(scheme.walkingBy) ? (input.attributes.tags_per_well ?? DEFAULT_TAGS_PER_WELL) : null;
    const substitutions = input.attributes.substitutions ?? {};
    const initialTag = input.attributes.initial_tag ?? 0;
    const plan = accepted(
      walkPlate({
        size: layout.size,
        direction: scheme.direction,
        walkingBy: scheme.walkingBy,
        wells: contents.receptacles.map((r, i) => ({ occupied: r.aliquots.length > 0, pool: pools[i] ?? null })),
        ...(tagsPerWell ? { tagsPerWell } : {}),
        dual: scheme.tag2Group !== null,
      }),
      inputAt,
    );
    const tags = accepted(tagList(tagsOf(scheme.tagGroup), substitutions), inputAt);
    const tags2 = scheme.tag2Group && accepted(tagList(tagsOf(scheme.tag2Group), substitutionsFor(scheme.tag2Group, substitutions)), inputAt);
    const tagged = accepted(
      layTags(contents, plan, {
        tags,
        tags2,
        initialTag,
        replaceTags: input.attributes.replace_tags ?? false,
        wellName: (slot) => `well ${positionAt(layout, slot - 1)} (wells ${slotId(plate.id, slot)})`,
      }),
      inputAt,
    );
    ctx.uow.update(plate, { attrs: { receptacles: tagged.receptacles, aliquotCount: tagged.aliquotCount, owner: input.relationships.user!.id } });
    return ctx.uow.create('tag_layouts', {
      attrs: { direction: scheme.direction, walking_by: walkerName(scheme.walkingBy), initial_tag: initialTag, tags_per_well: tagsPerWell, substitutions },
      rels: { plate: refOf(plate), tag_group: refOf(scheme.tagGroup), tag2_group: relValue(scheme.tag2Group), user: refOf(input.relationships.user!) },
    });
  },
});
