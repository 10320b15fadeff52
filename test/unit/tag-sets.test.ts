import { describe, expect, it } from 'vitest';
import { tagSetAdapterTypeProblem } from '#lib/domain/tag-sets.ts';

/** The reference's TagSet#tag_group_adapter_types_must_match (lib/domain/tag-sets.ts). */
describe('tagSetAdapterTypeProblem', () => {
  const ignoringCase = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const group = (name: string, adapterType: string | null) => ({ name, adapterType });

  it('accepts a single-index set, and two groups of one adapter type (as the name index matches names)', () => {
    expect(tagSetAdapterTypeProblem(group('i7', 'Chromium'), null, ignoringCase)).toBeUndefined();
    expect(tagSetAdapterTypeProblem(group('i7', 'Standard'), group('i5', 'standard'), ignoringCase)).toBeUndefined();
    expect(tagSetAdapterTypeProblem(group('i7', null), group('i5', null), ignoringCase)).toBeUndefined();
  });

  it('refuses groups of different adapter types, or one without, naming both groups and types', () => {
    expect(tagSetAdapterTypeProblem(group('i7', 'Standard'), group('i5', 'Chromium'), ignoringCase)).toBe(
      `tag_group "i7" has adapter type "Standard" and tag2_group "i5" has adapter type "Chromium": the adapter types of a tag set's tag groups must match`,
    );
    expect(tagSetAdapterTypeProblem(group('i7', null), group('i5', 'Standard'), ignoringCase)).toMatch(
      /^tag_group "i7" has no adapter type and tag2_group "i5" has adapter type "Standard"/,
    );
  });
});
