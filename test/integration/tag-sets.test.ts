import { beforeAll, describe, expect, it } from 'vitest';
import { loadReferenceData, ReferenceDataError } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { call } from '../support/api.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/**
 * tag_sets and tag_group_adapter_types (contract §7.5; the reference's TagSetResource and
 * TagGroupAdapterTypeResource): reference data, a tag group naming its adapter type; tag sets filtered
 * by their tag group's adapter type name and by visibility (applied by default, as the reference's
 * `filter :visible, default: true`), and loaded only when their two groups share an adapter type
 * (TagSet#tag_group_adapter_types_must_match).
 */

beforeAll(async () => {
  await freshStore();
  // A hidden group and a set of it, and a Chromium set, beside the default ones.
  await loadReferenceData(registry, {
    tag_groups: [
      { name: 'Old Tags', tags: [{ index: 1, oligo: 'ACGT' }], visible: false, tag_group_adapter_type: 'Standard' },
      { name: 'Chromium Tags', tags: [{ index: 1, oligo: 'TTTT' }], tag_group_adapter_type: 'Chromium' },
      { name: 'Untyped Tags', tags: [{ index: 1, oligo: 'CCCC' }] },
    ],
    tag_sets: [
      { name: 'Old set', tag_group: 'Old Tags' },
      { name: 'Dual with old', tag_group: 'Test Tags i7', tag2_group: 'Old Tags' },
      { name: 'Chromium set', tag_group: 'Chromium Tags' },
    ],
  });
});

const names = async (query: string): Promise<string[]> => {
  const res = await call('GET', `/api/v2/tag_sets${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((s: any) => s.attributes.name).sort();
};

describe('tag_group_adapter_types', () => {
  it('lists the adapter types; each lists its tag groups; a tag group links its adapter type', async () => {
    const res = await call('GET', '/api/v2/tag_group_adapter_types?include=tag_groups');
    expect(res.status).toBe(200);
    const standard = res.body.data.find((t: any) => t.attributes.name === 'Standard');
    expect(standard.attributes).toEqual({ uuid: expect.any(String), name: 'Standard' });
    const groups = standard.relationships.tag_groups.data.map((ref: any) => res.body.included.find((r: any) => r.id === ref.id).attributes.name);
    expect(groups.sort()).toEqual(['Old Tags', 'Test Tags i5', 'Test Tags i7']);
    const group = await call('GET', `/api/v2/tag_groups?filter[name]=Chromium Tags&include=tag_group_adapter_type`);
    expect(group.body.included.map((r: any) => r.attributes.name)).toEqual(['Chromium']);
    expect(group.body.data[0].attributes).not.toHaveProperty('visible');
  });
});

describe('tag_sets', () => {
  it('renders name and uuid, its groups included', async () => {
    const res = await call('GET', '/api/v2/tag_sets?filter[name]=Test dual i7 i5&include=tag_group,tag2_group');
    expect(res.body.data[0].attributes).toEqual({ uuid: expect.any(String), name: 'Test dual i7 i5' });
    expect(res.body.included.map((r: any) => r.attributes.name).sort()).toEqual(['Test Tags i5', 'Test Tags i7']);
  });

  it('lists only visible sets unless asked otherwise: a hidden tag group, or a hidden tag2 group, hides the set', async () => {
    const res = await call('GET', '/api/v2/tag_sets');
    expect(res.body.data.map((s: any) => s.attributes.name).sort()).toEqual(['Chromium set', 'Test dual i7 i5', 'Test i7 only']);
    expect(res.body.meta.record_count).toBe(3);
    // The default is not written into the links: the next page applies it again.
    expect(res.body.links.first).not.toContain('visible');
    // Like the reference's filter, any value applies the scope, and the default applies beside other filters.
    expect(await names('?filter[visible]=false')).toEqual(['Chromium set', 'Test dual i7 i5', 'Test i7 only']);
    expect(await names('?filter[name]=Old set')).toEqual([]);
  });

  it('filters by adapter type name (ignoring case) and by visibility, and both at once', async () => {
    expect(await names('?filter[tag_group_adapter_type_name]=chromium')).toEqual(['Chromium set']);
    expect(await names('?filter[tag_group_adapter_type_name]=Standard')).toEqual(['Test dual i7 i5', 'Test i7 only']);
    expect(await names('?filter[visible]=true')).toEqual(['Chromium set', 'Test dual i7 i5', 'Test i7 only']);
    expect(await names('?filter[visible]=true&filter[tag_group_adapter_type_name]=Standard')).toEqual(['Test dual i7 i5', 'Test i7 only']);
    expect(await names('?filter[tag_group_adapter_type_name]=Nope')).toEqual([]);
  });

  it("refuses to load a set whose groups' adapter types differ, naming both; writes nothing of the document", async () => {
    const loading = loadReferenceData(registry, {
      tag_groups: [{ name: 'Unloaded Tags', tags: [{ index: 1, oligo: 'GGGG' }], tag_group_adapter_type: 'Standard' }],
      tag_sets: [
        { name: 'Mixed set', tag_group: 'Test Tags i7', tag2_group: 'Chromium Tags' },
        { name: 'Half typed', tag_group: 'Chromium Tags', tag2_group: 'Untyped Tags' },
      ],
    });
    await expect(loading).rejects.toBeInstanceOf(ReferenceDataError);
    await expect(loading).rejects.toThrow(
      [
        'invalid reference data:',
        `  tag_sets[0].tag_group: tag_group "Test Tags i7" has adapter type "Standard" and tag2_group "Chromium Tags" has adapter type "Chromium": the adapter types of a tag set's tag groups must match`,
        `  tag_sets[1].tag_group: tag_group "Chromium Tags" has adapter type "Chromium" and tag2_group "Untyped Tags" has no adapter type: the adapter types of a tag set's tag groups must match`,
      ].join('\n'),
    );
    expect((await call('GET', '/api/v2/tag_groups?filter[name]=Unloaded Tags')).body.data).toEqual([]);
    expect(await names('?filter[name]=Mixed set')).toEqual([]);
  });

  it("checks a set against its groups as the document leaves them: a group's new adapter type, a stored group kept", async () => {
    // 'Untyped Tags' (stored without an adapter type) becomes Chromium in the same document, so it pairs with 'Chromium Tags'.
    await loadReferenceData(registry, {
      tag_groups: [{ name: 'Untyped Tags', tags: [{ index: 1, oligo: 'CCCC' }], tag_group_adapter_type: 'Chromium' }],
      tag_sets: [{ name: 'Chromium dual', tag_group: 'Chromium Tags', tag2_group: 'Untyped Tags' }],
    });
    expect(await names('?filter[tag_group_adapter_type_name]=Chromium')).toEqual(['Chromium dual', 'Chromium set']);
    // An update naming only tag_group (tag2_group is optional) is checked against the stored tag2_group (Untyped Tags, now Chromium).
    await expect(loadReferenceData(registry, { tag_sets: [{ name: 'Chromium dual', tag_group: 'Test Tags i7' }] })).rejects.toThrow(
      'tag_sets[0].tag_group: tag_group "Test Tags i7" has adapter type "Standard" and tag2_group "Untyped Tags" has adapter type "Chromium"',
    );
  });

  it('is read-only reference data', async () => {
    expectError(await call('POST', '/api/v2/tag_sets', { body: { data: { type: 'tag_sets', attributes: { name: 'x' } } } }), 405, 'method_not_allowed');
  });
});
