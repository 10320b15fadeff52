import { refKey, type RequestContext } from '#lib/jsonapi/context.ts';
import { attr, reverse, toOne, type FilterDef, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { linkOf, type StoredRecord } from '#lib/store/records.ts';
import { referenceResource, text, uniqueIndex } from '#lib/resources/reference.ts';

/**
 * Tag sets and tag group adapter types (the reference's TagSet and TagGroup::AdapterType, contract §7.5):
 * reference data, read-only through the API. A tag set pairs a tag group with an optional second one
 * (dual indexing); a tag group names its adapter type (lib/resources/reference.ts, `tag_group_adapter_type`).
 */

export const tagGroupAdapterTypes = referenceResource(
  'tag_group_adapter_types',
  { name: attr('R', text, { required: true }) },
  { indexes: { name: uniqueIndex('name') }, relationships: { tag_groups: reverse('tag_groups', 'tag_group_adapter_type') } },
);

/** Each tag set's groups (its `tag_group`, then its `tag2_group` if any), read in one batch. */
async function groupsOf(ctx: RequestContext, sets: StoredRecord[]): Promise<StoredRecord[][]> {
  const links = sets.map((set) => [linkOf(set, 'tag_group'), linkOf(set, 'tag2_group')].filter((ref) => ref !== null));
  const groups = await ctx.loader.load(links.flat());
  return links.map((refs) => refs.flatMap((ref) => groups.get(refKey(ref)) ?? []));
}

/**
 * `filter[tag_group_adapter_type_name]`: sets whose tag group's adapter type has one of the names (the
 * reference's TagSet.by_adapter_type, ignoring case as names are matched here).
 */
const byAdapterTypeName: FilterDef = {
  test: async (ctx, sets, values) => {
    const groups = (await groupsOf(ctx, sets)).map((found) => found[0]);
    const adapterTypes = await ctx.loader.load(groups.flatMap((group) => (group && linkOf(group, 'tag_group_adapter_type')) ?? []));
    const names = new Set(values.map((value) => value.toLowerCase()));
    return groups.map((group) => {
      const ref = group && linkOf(group, 'tag_group_adapter_type');
      const adapterType = ref && adapterTypes.get(refKey(ref));
      return !!adapterType && names.has(String(adapterType.attrs.name).toLowerCase());
    });
  },
};

/**
 * `filter[visible]`: sets whose tag group is visible and whose tag2 group is absent or visible (the
 * reference's TagSet.visible; a tag group is visible unless loaded with `visible: false`). Applied by default
 * (the reference's `filter :visible, default: true`): a listing without it shows only visible sets; whatever
 * value is sent applies the same scope, as the reference's filter ignores its value.
 */
const visible: FilterDef = {
  test: async (ctx, sets) => (await groupsOf(ctx, sets)).map((groups) => groups.every((group) => group.attrs.visible !== false)),
  default: ['true'],
};

const tagSetsDef = referenceResource(
  'tag_sets',
  { name: attr('R', text, { required: true }) },
  {
    indexes: { name: uniqueIndex('name') },
    relationships: { tag_group: toOne('tag_groups', 'R', { required: true }), tag2_group: toOne('tag_groups', 'R') },
    filters: ['name'],
  },
);
export const tagSets: ResourceDef = { ...tagSetsDef, filters: { ...tagSetsDef.filters, tag_group_adapter_type_name: byAdapterTypeName, visible } };
