import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc } from '../support/api.ts';
import { createQcable } from '../support/qc.ts';
import { expectError, idsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/**
 * lot_types and lots (contract §3 and §5): read-only reference data loaded from the default set, found by
 * the filters the lookups need (`name`, `lot_number`, `uuid`), navigable from a qcable the way limber and
 * gatekeeper include them (`lot.lot_type.target_purpose`, `lot.template`, `lots … include=qcables`).
 */

beforeAll(freshStore);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function findOne(type: string, filter: string, value: string): Promise<any> {
  const res = await call('GET', `/api/v2/${type}?filter[${filter}]=${encodeURIComponent(value)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data, `${type} ${filter}=${value}`).toHaveLength(1);
  expect(res.body.meta.record_count).toBe(1);
  return res.body.data[0];
}

describe('lot_types', () => {
  it.each([
    ['Tag Plates', 'created', { template_class: 'TagLayoutTemplate', qcable_name: 'Tag Plate', printer_type: '96 Well Plate' }],
    ['QC Plates', 'pending', { template_class: 'PlateTemplate', qcable_name: null, printer_type: null }],
  ])('finds %j by name and uuid; its qcables start %j', async (name, initial, gatekeepers) => {
    const lotType = await findOne('lot_types', 'name', name);
    expect(lotType.attributes).toEqual({ uuid: expect.stringMatching(UUID_V4), name, qcable_initial_state: initial, ...gatekeepers });
    expect(await findOne('lot_types', 'uuid', lotType.attributes.uuid)).toEqual(lotType);
    expect((await call('GET', `/api/v2/lot_types/${lotType.id}`)).body.data).toEqual(lotType);
  });

  it('names are matched ignoring case; an unknown name finds nothing', async () => {
    expect((await findOne('lot_types', 'name', 'tag plates')).attributes.name).toBe('Tag Plates');
    expect((await call('GET', '/api/v2/lot_types?filter[name]=Nope')).body.data).toEqual([]);
  });

  it('Tag Plates targets the Tag Plate purpose; QC Plates has no target purpose', async () => {
    const tag = await call('GET', `/api/v2/lot_types?filter[name]=${encodeURIComponent('Tag Plates')}&include=target_purpose`);
    // The reference's `class_name: "Purpose"` (contract §7.4): linked and included as `purposes`.
    expect(tag.body.data[0].relationships.target_purpose.data).toMatchObject({ type: 'purposes' });
    expect(tag.body.included.map((r: any) => [r.type, r.attributes.name])).toEqual([['purposes', 'Tag Plate']]);
    const qc = await findOne('lot_types', 'name', 'QC Plates');
    expect((await call('GET', `/api/v2/lot_types/${qc.id}/target_purpose`)).body.data).toBeNull();
  });

  it('lists both and refuses writes (405) and unknown filters (400)', async () => {
    const all = await call('GET', '/api/v2/lot_types');
    expect(all.body.data.map((t: any) => t.attributes.name).sort()).toEqual(['QC Plates', 'Tag Plates']);
    const post = await call('POST', '/api/v2/lot_types', { body: doc('lot_types', { name: 'New' }) });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.Allow).toBe('GET');
    expectError(await call('GET', '/api/v2/lot_types?filter[lot_number]=x'), 400, 'filter_not_allowed');
  });
});

describe('lots', () => {
  it.each([
    ['LOT-0001', 'Tag Plates', 'Test i7 column'],
    ['LOT-0002', 'Tag Plates', 'Test dual column'],
    ['LOT-0003', 'QC Plates', null],
  ])('finds %j by lot_number and uuid, of lot type %j and template %j', async (lotNumber, lotType, template) => {
    const lot = await findOne('lots', 'lot_number', lotNumber);
    expect(lot.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      lot_number: lotNumber,
      lot_type_name: lotType,
      template_name: template,
      template_type: template && 'TagLayoutTemplate',
      template_id: template && Number((await call('GET', `/api/v2/lots/${lot.id}/template`)).body.data.id),
      // Loaded lots need no receipt date (registered ones do: qcable-creators.test.ts).
      received_at: null,
    });
    expect(Object.keys(lot.relationships).sort()).toEqual(['lot_type', 'qcables', 'tag_layout_template', 'template', 'user']);
    expect(await findOne('lots', 'uuid', lot.attributes.uuid)).toEqual(lot);
    const withType = await call('GET', `/api/v2/lots/${lot.id}?include=lot_type`);
    expect(withType.body.included.map((r: any) => r.attributes.name)).toEqual([lotType]);
  });

  it('finds several lot numbers at once, ignoring case', async () => {
    const res = await call('GET', '/api/v2/lots?filter[lot_number]=lot-0001,LOT-0003');
    expect(res.body.data.map((l: any) => l.attributes.lot_number)).toEqual(['LOT-0001', 'LOT-0003']);
  });

  it("answers limber's template includes: a lot of tag plates its template under both names, a lot of QC plates none", async () => {
    const lot = await findOne('lots', 'lot_number', 'LOT-0001');
    const res = await call('GET', `/api/v2/lots/${lot.id}?include=template,tag_layout_template`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const template = res.body.data.relationships.template.data;
    expect(template.type).toBe('tag_layout_templates');
    expect(res.body.data.relationships.tag_layout_template.data).toEqual(template);
    expect(res.body.included.map((r: any) => r.attributes.name)).toEqual(['Test i7 column']);
    expect((await call('GET', `/api/v2/lots/${lot.id}/template`)).body.data.attributes.name).toBe('Test i7 column');
    const qc = await findOne('lots', 'lot_number', 'LOT-0003');
    expect((await call('GET', `/api/v2/lots/${qc.id}/tag_layout_template`)).body.data).toBeNull();
  });

  it("lists a lot's qcables (gatekeeper: lots?filter[uuid]=…&include=lot_type,qcables)", async () => {
    const lot = await findOne('lots', 'lot_number', 'LOT-0002');
    const first = await createQcable('LOT-0002');
    const second = await createQcable('LOT-0002');
    await createQcable('LOT-0001');
    const res = await call('GET', `/api/v2/lots?filter[uuid]=${lot.attributes.uuid}&include=lot_type,qcables&page[page]=1&page[per_page]=1`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data[0].relationships.qcables.data).toEqual([
      { type: 'qcables', id: first.qcable.id },
      { type: 'qcables', id: second.qcable.id },
    ]);
    const included = res.body.included.filter((r: any) => r.type === 'qcables');
    expect(included.map((q: any) => q.attributes.state)).toEqual(['created', 'created']);
    expect(idsOf(await call('GET', `/api/v2/lots/${lot.id}/qcables`))).toEqual([first.qcable.id, second.qcable.id]);
  });

  it('refuses changes (405; lots are registered, never changed: qcable-creators.test.ts) and unknown filters (400)', async () => {
    const lot = await findOne('lots', 'lot_number', 'LOT-0001');
    expectError(await call('PATCH', `/api/v2/lots/${lot.id}`, { body: doc('lots', { lot_number: 'LOT-9' }, undefined, lot.id) }), 405, 'method_not_allowed');
    for (const filter of ['name', 'template_name', 'lot_type']) expectError(await call('GET', `/api/v2/lots?filter[${filter}]=x`), 400, 'filter_not_allowed');
    expectError(await call('GET', '/api/v2/lots?fields[lots]=no_such_field'), 400, 'invalid_field');
  });
});
