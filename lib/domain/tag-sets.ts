/**
 * Tag sets (the reference's TagSet): a tag group (i7) and an optional tag2 group (i5) used together, so
 * their adapter types must be the same (TagSet#tag_group_adapter_types_must_match; a group without an
 * adapter type matches only another without one, as the reference compares them).
 */

/** A tag group as the rule sees it: its name, and its adapter type's name or null. */
export interface TagGroupAdapter {
  name: string;
  adapterType: string | null;
}

/** Why a tag set of these groups may not be written, or undefined. Adapter type names are compared as `sameName` says (the name index's normalisation). */
export function tagSetAdapterTypeProblem(
  tagGroup: TagGroupAdapter,
  tag2Group: TagGroupAdapter | null,
  sameName: (a: string, b: string) => boolean,
): string | undefined {
  if (!tag2Group) return undefined;
  const [a, b] = [tagGroup.adapterType, tag2Group.adapterType];
  if (a === b || (a !== null && b !== null && sameName(a, b))) return undefined;
  const shown = (adapterType: string | null) => (adapterType === null ? 'no adapter type' : `adapter type ${JSON.stringify(adapterType)}`);
  return (
    `tag_group ${JSON.stringify(tagGroup.name)} has ${shown(a)} and tag2_group ${JSON.stringify(tag2Group.name)} has ${shown(b)}: ` +
    "the adapter types of a tag set's tag groups must match"
  );
}
