import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, rel } from '../support/fixtures.ts';
import { adminUuid, contentsOf, filledPlate, postTransfer, templateUuid, uuidOf } from '../support/lab.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { refused } from '../support/table.ts';

/**
 * tag_layouts (interface.md, contract §2, reference-behaviour.md §4.3) over HTTP: a template's scheme or one
 * sent, the deprecated `*_uuid` attributes, replace_tags, the group walkers, and every refusal writing
 * nothing. The walkers themselves are unit-tested (test/unit/tag-layout.test.ts).
 */

beforeAll(freshStore);

let user: string;
let i7: string;
let i5: string;
let short: string;
let dualTemplate: string;
beforeAll(async () => {
  [user, i7, i5, short, dualTemplate] = await Promise.all([
    adminUuid(),
    uuidOf('tag_groups', 'name', 'Test Tags i7'),
    uuidOf('tag_groups', 'name', 'Test Tags i5'),
    uuidOf('tag_groups', 'name', 'Short Tags'),
    uuidOf('tag_layout_templates', 'name', 'Test dual column'),
  ]);
});

const layout = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  call('POST', '/api/v2/tag_layouts', { body: doc('tag_layouts', { user_uuid: user, ...attributes }, relationships) });

describe('POST /tag_layouts', () => {
  it("lays out a template's dual tags (limber's tagged plate): column, wells of plate, both groups", async () => {
    const { plate, samples } = await filledPlate(10);
    const res = await layout({ plate_uuid: plate.attributes.uuid, tag_layout_template_uuid: dualTemplate, enforce_uniqueness: true });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      direction: 'column',
      walking_by: 'wells of plate',
      initial_tag: 0,
      tags_per_well: null,
      substitutions: {},
    });
    const read = await call('GET', `/api/v2/tag_layouts/${res.body.data.id}?include=tag_group,tag2_group,plate`);
    expect(read.body.included.map((r: any) => `${r.type}:${r.attributes.name ?? r.id}`).sort()).toEqual(
      [`plates:${plate.id}`, 'tag_groups:Test Tags i5', 'tag_groups:Test Tags i7'].sort(),
    );
    const tagged = await contentsOf('plates', plate.id);
    // Column order: A1…H1 take tags 1…8, A2 tag 9, B2 tag 10.
    const expected = ['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'G1', 'H1', 'A2', 'B2'].map((well, i) => [
      well,
      [{ sample: samples.get(well), tag: i + 1, tag2: i + 1 }],
    ]);
    expect(tagged).toEqual(new Map(expected as [string, unknown][]));
  });

  it('lays out a scheme sent (custom tagging): direction, walker, initial_tag and substitutions', async () => {
    const { plate, samples } = await filledPlate(3);
    const res = await layout({
      plate_uuid: plate.attributes.uuid,
      tag_group_uuid: short,
      direction: 'row',
      walking_by: 'manual by plate',
      initial_tag: 2,
      substitutions: { '3': '5' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The reference reports the manual walker by its canonical name.
    expect(res.body.data.attributes).toMatchObject({ direction: 'row', walking_by: 'wells of plate', initial_tag: 2, substitutions: { '3': '5' } });
    // Row order visits A1, B1, C1 (one well per row); indexes 0, 1, 2 + 2 → tags 3, 4, 5; 3 is replaced by 5.
    expect(await contentsOf('plates', plate.id)).toEqual(
      new Map([
        ['A1', [{ sample: samples.get('A1'), tag: 5, tag2: null }]],
        ['B1', [{ sample: samples.get('B1'), tag: 4, tag2: null }]],
        ['C1', [{ sample: samples.get('C1'), tag: 5, tag2: null }]],
      ]),
    );
  });

  it('group walkers give each sample tags_per_well tags (one aliquot each) and render tags_per_well', async () => {
    const { plate, samples } = await filledPlate(2);
    const res = await layout({ plate_uuid: plate.attributes.uuid, tag_group_uuid: i7, direction: 'column', walking_by: 'as group by plate', tags_per_well: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes.tags_per_well).toBe(3);
    const tagged = await contentsOf('plates', plate.id);
    expect(tagged.get('A1')).toEqual([1, 2, 3].map((tag) => ({ sample: samples.get('A1'), tag, tag2: null })));
    expect(tagged.get('B1')).toEqual([4, 5, 6].map((tag) => ({ sample: samples.get('B1'), tag, tag2: null })));
    const dual = await refused(
      'POST',
      '/api/v2/tag_layouts',
      doc('tag_layouts', {
        user_uuid: user,
        plate_uuid: plate.attributes.uuid,
        tag_group_uuid: i7,
        tag2_group_uuid: i5,
        direction: 'column',
        walking_by: 'as group by plate',
      }),
    );
    expectError(dual, 422, undefined, '/data/relationships/tag2_group');
  });

  it('keeps tags already carried unless replace_tags; a retag that gives two samples of one well the same tags is a clash, writing nothing', async () => {
    // Two samples tagged apart (Short Tags 1 and 2), pooled into one well.
    const { plate: source, samples } = await filledPlate(2);
    expect((await layout({ plate_uuid: source.attributes.uuid, tag_group_uuid: short, direction: 'column', walking_by: 'wells of plate' })).status).toBe(201);
    const pool = await createPlate();
    const pooled = await postTransfer({
      template: await templateUuid('Custom pooling'),
      source: source.attributes.uuid,
      destination: pool.attributes.uuid,
      user,
      transfers: { A1: 'A1', B1: 'A1' },
    });
    expect(pooled.status, JSON.stringify(pooled.body)).toBe(201);
    const kept = [
      { sample: samples.get('A1'), tag: 1, tag2: null },
      { sample: samples.get('B1'), tag: 2, tag2: null },
    ];
    expect((await contentsOf('plates', pool.id)).get('A1')).toEqual(kept);

    // Without replace_tags the tagged aliquots keep their tags (and gain no tag2 from nowhere).
    const keep = await layout({ plate_uuid: pool.attributes.uuid, tag_group_uuid: i7, direction: 'column', walking_by: 'wells of plate' });
    expect(keep.status, JSON.stringify(keep.body)).toBe(201);
    expect((await contentsOf('plates', pool.id)).get('A1')).toEqual(kept);

    const clash = await refused(
      'POST',
      '/api/v2/tag_layouts',
      doc('tag_layouts', {
        user_uuid: user,
        plate_uuid: pool.attributes.uuid,
        tag_group_uuid: i7,
        direction: 'column',
        walking_by: 'wells of plate',
        replace_tags: true,
      }),
    );
    const error = expectError(clash, 422, 'invalid_value');
    expect(error.detail).toContain('tag clash');
    expect(error.detail).toContain(`sample ${samples.get('A1')}`);
    expect(error.detail).toContain(`sample ${samples.get('B1')}`);
  });
});

describe('POST /tag_layouts refused, writing nothing', () => {
  it('a template and any of what it supplies: 400 naming it', async () => {
    const plate = (await createPlate()).attributes.uuid;
    for (const [extra, pointer] of [
      [{ direction: 'row' }, '/data/attributes/direction'],
      [{ walking_by: 'wells of plate' }, '/data/attributes/walking_by'],
      [{ tag_group_uuid: i7 }, '/data/relationships/tag_group'],
    ] as const) {
      const res = await refused(
        'POST',
        '/api/v2/tag_layouts',
        doc('tag_layouts', { user_uuid: user, plate_uuid: plate, tag_layout_template_uuid: dualTemplate, ...extra }),
      );
      const error = expectError(res, 400, 'template_conflict', pointer);
      expect(error.detail).toMatch(/^Cannot provide '(direction|walking_by|tag_group)' while also providing 'tag_layout_template_uuid'\.$/);
    }
    const byRelationship = await refused(
      'POST',
      '/api/v2/tag_layouts',
      doc(
        'tag_layouts',
        { user_uuid: user, plate_uuid: plate, tag_layout_template_uuid: dualTemplate },
        { tag2_group: rel('tag_groups', await idOf('tag_groups', 'name', 'Test Tags i5')) },
      ),
    );
    expectError(byRelationship, 400, 'template_conflict', '/data/relationships/tag2_group');
  });

  it('unknown direction or walker (422), none sent without a template (422), an unknown template (404), a non-boolean enforce_uniqueness (422), no plate or user (422)', async () => {
    const plate = (await createPlate()).attributes.uuid;
    const post = (attributes: Record<string, unknown>) => refused('POST', '/api/v2/tag_layouts', doc('tag_layouts', attributes));
    expectError(
      await post({ user_uuid: user, plate_uuid: plate, tag_group_uuid: i7, direction: 'diagonal', walking_by: 'wells of plate' }),
      422,
      'invalid_value',
      '/data/attributes/direction',
    );
    expectError(
      await post({ user_uuid: user, plate_uuid: plate, tag_group_uuid: i7, direction: 'row', walking_by: 'sideways' }),
      422,
      'invalid_value',
      '/data/attributes/walking_by',
    );
    const none = await post({ user_uuid: user, plate_uuid: plate });
    for (const name of ['direction', 'walking_by']) expectError(none, 422, 'required', `/data/attributes/${name}`);
    expectError(none, 422, 'required', '/data/relationships/tag_group');
    expectError(
      await post({ user_uuid: user, plate_uuid: plate, tag_layout_template_uuid: '00000000-0000-4000-8000-000000000000' }),
      404,
      'record_not_found',
      '/data/attributes/tag_layout_template_uuid',
    );
    expectError(
      await post({ user_uuid: user, plate_uuid: plate, tag_layout_template_uuid: dualTemplate, enforce_uniqueness: 'yes' }),
      422,
      'invalid_type',
      '/data/attributes/enforce_uniqueness',
    );
    const anonymous = await post({ tag_layout_template_uuid: dualTemplate });
    expectError(anonymous, 422, 'required', '/data/relationships/plate');
    expectError(anonymous, 422, 'required', '/data/relationships/user');
    expectError(
      await post({ user_uuid: user, plate_uuid: plate, tag_group_uuid: short, direction: 'row', walking_by: 'wells of plate', substitutions: { '1': '99' } }),
      422,
      'invalid_value',
    );
  });

  it('PATCH is 405', async () => {
    const { plate } = await filledPlate(1);
    const made = await layout({ plate_uuid: plate.attributes.uuid, tag_layout_template_uuid: dualTemplate });
    expect(made.status).toBe(201);
    expectError(await refused('PATCH', `/api/v2/tag_layouts/${made.body.data.id}`, doc('tag_layouts', {}, undefined, made.body.data.id)), 405);
  });
});
