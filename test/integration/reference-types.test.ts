import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, type CallResult } from '../support/api.ts';
import { freshStore } from '../support/store.ts';

/**
 * Reference types (contract §3 and §5): every default record of users, studies, projects, the three
 * purpose types, request_types, barcode_printers and submission_templates is findable by the filters
 * the lookups need; barcode_printers and submission_templates refuse writes with 405 + Allow; unknown
 * filters are 400.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function expectError(res: CallResult, status: number, code?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['Content-Type']).toBe('application/vnd.api+json');
  expect(res.body.errors[0].status).toBe(String(status));
  if (code) expect(res.body.errors[0].code).toBe(code);
}

/** GET a collection with a query; the records found. */
async function find(type: string, query: string): Promise<any[]> {
  const res = await call('GET', `/api/v2/${type}?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.meta.record_count).toBe(res.body.data.length);
  for (const record of res.body.data) expect(record.type).toBe(type);
  return res.body.data;
}

/** Exactly one record by a filter. */
async function findOne(type: string, filter: string, value: string): Promise<any> {
  const found = await find(type, `filter[${filter}]=${encodeURIComponent(value)}`);
  expect(found, `${type} filter[${filter}]=${value}`).toHaveLength(1);
  return found[0];
}

async function list(type: string): Promise<any[]> {
  const res = await call('GET', `/api/v2/${type}?page[size]=500`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** uuid filter and item read agree with the record found by its name-like filter. */
async function checkUuidAndItem(type: string, record: any): Promise<void> {
  expect(record.attributes.uuid).toMatch(UUID_V4);
  const byUuid = await findOne(type, 'uuid', record.attributes.uuid);
  expect(byUuid).toEqual(record);
  const item = await call('GET', `/api/v2/${type}/${record.id}`);
  expect(item.status).toBe(200);
  expect(item.body.data).toEqual(record);
  expect(item.body.data.links.self).toBe(`${BASE}/${type}/${record.id}`);
}

async function unknownFiltersAre400(type: string, filters: string[]): Promise<void> {
  for (const filter of filters) {
    const res = await call('GET', `/api/v2/${type}?filter[${filter}]=x`);
    expectError(res, 400, 'filter_not_allowed');
    expect(res.body.errors[0].source).toEqual({ parameter: `filter[${filter}]` });
  }
}

describe('users', () => {
  it('finds admin by login, user_code and uuid; user_code is never rendered', async () => {
    const admin = await findOne('users', 'login', 'admin');
    expect(admin.attributes).toEqual({ uuid: expect.stringMatching(UUID_V4), login: 'admin', first_name: 'Lab', last_name: 'Admin' });
    expect(admin.attributes).not.toHaveProperty('user_code');
    expect(await findOne('users', 'user_code', 'SWIPE-0001')).toEqual(admin);
    await checkUuidAndItem('users', admin);
  });

  it('finds tech1 by login; login and user_code lookups distinguish users', async () => {
    const tech = await findOne('users', 'login', 'tech1');
    expect(tech.attributes.login).toBe('tech1');
    const admin = await findOne('users', 'login', 'admin');
    expect(tech.id).not.toBe(admin.id);
    await checkUuidAndItem('users', tech);
    expect((await findOne('users', 'user_code', 'SWIPE-0001')).id).toBe(admin.id);
    expect(await find('users', 'filter[user_code]=SWIPE-9999')).toEqual([]);
    expect(await find('users', 'filter[login]=nobody')).toEqual([]);
    const both = await find('users', 'filter[login]=admin,tech1');
    expect(both.map((u) => u.attributes.login).sort()).toEqual(['admin', 'tech1']);
  });

  it('lists both default users', async () => {
    const logins = (await list('users')).map((u) => u.attributes.login);
    expect(logins).toEqual(expect.arrayContaining(['admin', 'tech1']));
  });

  it('refuses user_code in a sparse fieldset (it is not a readable field) and unknown filters', async () => {
    expectError(await call('GET', '/api/v2/users?fields[users]=user_code'), 400, 'invalid_field');
    const sparse = await call('GET', '/api/v2/users?filter[login]=admin&fields[users]=login');
    expect(sparse.body.data[0].attributes).toEqual({ login: 'admin' });
    await unknownFiltersAre400('users', ['name', 'first_name', 'email']);
  });
});

describe('studies', () => {
  it.each(['Study A', 'Study B'])('finds %j by name and uuid', async (name) => {
    const study = await findOne('studies', 'name', name);
    expect(study.attributes).toEqual({ uuid: expect.stringMatching(UUID_V4), name });
    await checkUuidAndItem('studies', study);
  });

  it('finds by a comma list of names and returns nothing for an unknown name', async () => {
    const both = await find('studies', `filter[name]=${encodeURIComponent('Study A,Study B')}`);
    expect(both.map((s) => s.attributes.name)).toEqual(['Study A', 'Study B']);
    expect(await find('studies', 'filter[name]=Study%20C')).toEqual([]);
  });

  it('rejects unknown filters', async () => {
    await unknownFiltersAre400('studies', ['state', 'user', 'key']);
  });
});

describe('projects', () => {
  it('finds the default project by name (case-insensitively, as Limber’s Project.find(name:)), uuid and id; nothing for another name', async () => {
    const project = await findOne('projects', 'name', 'project a');
    expect(project.attributes).toEqual({ uuid: expect.stringMatching(UUID_V4), name: 'Project A', cost_code: 'S0001', state: 'active' });
    await checkUuidAndItem('projects', project);
    expect(await find('projects', 'filter[name]=Project%20B')).toEqual([]);
    await unknownFiltersAre400('projects', ['cost_code', 'state']);
  });
});

const PURPOSES: [string, string[]][] = [
  ['plate_purposes', ['Stock Plate', 'Working Dilution', 'Library Plate', 'Tag Plate', 'Stock Plate 384']],
  ['tube_purposes', ['Stock Tube', 'Library Tube', 'MX Tube']],
  ['tube_rack_purposes', ['Tube Rack 96', 'Tube Rack 48']],
];

describe('purposes', () => {
  for (const [type, names] of PURPOSES) {
    it.each(names)(`${type}: finds %j by name and uuid`, async (name) => {
      const purpose = await findOne(type, 'name', name);
      expect(purpose.attributes.name).toBe(name);
      await checkUuidAndItem(type, purpose);
    });

    it(`${type}: lists exactly the default records`, async () => {
      expect((await list(type)).map((p) => p.attributes.name).sort()).toEqual([...names].sort());
    });

    it(`${type}: rejects unknown filters`, async () => {
      await unknownFiltersAre400(type, ['barcode_prefix', 'key', 'purpose_name']);
    });
  }

  it('renders size and barcode prefix as §5 says', async () => {
    expect((await findOne('plate_purposes', 'name', 'Stock Plate')).attributes).toMatchObject({ size: 96, barcode_prefix: 'DN' });
    expect((await findOne('plate_purposes', 'name', 'Stock Plate 384')).attributes).toMatchObject({ size: 384, barcode_prefix: 'DN' });
    expect((await findOne('tube_purposes', 'name', 'MX Tube')).attributes).toMatchObject({ barcode_prefix: 'NT' });
    expect((await findOne('tube_rack_purposes', 'name', 'Tube Rack 48')).attributes).toMatchObject({ size: 48, barcode_prefix: 'TR' });
    expect((await findOne('tube_rack_purposes', 'name', 'Tube Rack 96')).attributes).toMatchObject({ size: 96, barcode_prefix: 'TR' });
  });

  it('share one id sequence: ids are distinct across the three types', async () => {
    const all = (await Promise.all(PURPOSES.map(async ([type]) => (await list(type)).map((p) => ({ type, id: p.id }))))).flat();
    expect(all).toHaveLength(10);
    expect(new Set(all.map((p) => p.id)).size).toBe(10);
  });

  it('an id of one purpose type is not found under another', async () => {
    const tube = await findOne('tube_purposes', 'name', 'Stock Tube');
    expectError(await call('GET', `/api/v2/plate_purposes/${tube.id}`), 404, 'record_not_found');
    expectError(await call('GET', `/api/v2/tube_rack_purposes/${tube.id}`), 404, 'record_not_found');
    const plate = await findOne('plate_purposes', 'name', 'Stock Plate');
    expectError(await call('GET', `/api/v2/tube_purposes/${plate.id}`), 404, 'record_not_found');
  });

  it('a name or uuid of another purpose type finds nothing', async () => {
    expect(await find('plate_purposes', `filter[name]=${encodeURIComponent('Stock Tube')}`)).toEqual([]);
    expect(await find('tube_purposes', `filter[name]=${encodeURIComponent('Tube Rack 96')}`)).toEqual([]);
    const rack = await findOne('tube_rack_purposes', 'name', 'Tube Rack 96');
    expect(await find('plate_purposes', `filter[uuid]=${rack.attributes.uuid}`)).toEqual([]);
  });
});

describe('request_types', () => {
  it.each([
    ['library_creation', false],
    ['multiplexing', true],
    ['sequencing', false],
  ])('finds %j by key and uuid', async (key, forMultiplexing) => {
    const requestType = await findOne('request_types', 'key', key);
    expect(requestType.attributes).toMatchObject({ key, for_multiplexing: forMultiplexing });
    await checkUuidAndItem('request_types', requestType);
  });

  it('finds several keys at once', async () => {
    const found = await find('request_types', 'filter[key]=multiplexing,sequencing');
    expect(found.map((r) => r.attributes.key).sort()).toEqual(['multiplexing', 'sequencing']);
    expect(await find('request_types', 'filter[key]=unknown_key')).toEqual([]);
  });

  it('rejects unknown filters', async () => {
    await unknownFiltersAre400('request_types', ['name', 'for_multiplexing']);
  });
});

describe('barcode_printers', () => {
  it.each([
    ['plate-printer-1', '96 Well Plate', 'PMB', true],
    ['tube-printer-1', '1D Tube', 'SPrint', true],
    ['old-printer', '384 Well Plate', 'PMB', false],
  ])('finds %j by name and uuid with barcode_type %j, print_service %j, active %j', async (name, barcodeType, printService, active) => {
    const printer = await findOne('barcode_printers', 'name', name);
    expect(printer.attributes).toEqual({ uuid: expect.stringMatching(UUID_V4), name, active, barcode_type: barcodeType, print_service: printService });
    await checkUuidAndItem('barcode_printers', printer);
  });

  it('lists every printer and finds several uuids at once (gatekeeper paging keys ignored)', async () => {
    const all = await list('barcode_printers');
    expect(all.map((p) => p.attributes.name).sort()).toEqual(['old-printer', 'plate-printer-1', 'tube-printer-1']);
    const [first, second] = all;
    const res = await call('GET', `/api/v2/barcode_printers?filter[uuid]=${first.attributes.uuid},${second.attributes.uuid}&page[page]=1&page[per_page]=1`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: any) => p.id)).toEqual([first.id, second.id]);
  });

  it('refuses POST, PATCH and DELETE with 405 and an Allow header, changing nothing', async () => {
    const printer = await findOne('barcode_printers', 'name', 'plate-printer-1');
    const post = await call('POST', '/api/v2/barcode_printers', { body: doc('barcode_printers', { name: 'new-printer', active: true }) });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.Allow).toBe('GET');
    const patch = await call('PATCH', `/api/v2/barcode_printers/${printer.id}`, { body: doc('barcode_printers', { active: false }, undefined, printer.id) });
    expectError(patch, 405, 'method_not_allowed');
    expect(patch.headers.Allow).toBe('GET');
    const del = await call('DELETE', `/api/v2/barcode_printers/${printer.id}`);
    expectError(del, 405, 'method_not_allowed');
    expect(del.headers.Allow).toBe('GET');
    const deleteCollection = await call('DELETE', '/api/v2/barcode_printers');
    expectError(deleteCollection, 405, 'method_not_allowed');
    expect(deleteCollection.headers.Allow).toBe('GET');

    expect((await list('barcode_printers')).map((p) => p.attributes.name).sort()).toEqual(['old-printer', 'plate-printer-1', 'tube-printer-1']);
    expect((await findOne('barcode_printers', 'name', 'plate-printer-1')).attributes.active).toBe(true);
  });

  it('rejects unknown filters', async () => {
    await unknownFiltersAre400('barcode_printers', ['barcode_type', 'active', 'print_service']);
  });
});

describe('submission_templates', () => {
  it.each([
    ['Library Creation - Illumina', ['library_creation', 'sequencing']],
    ['MX Pooling', ['multiplexing']],
    // The reference's GridION work: its submissions make work orders (lib/operations/work-orders.ts).
    ['Traction - GridION', ['traction_grid_ion']],
    // Its request_options (the defaults its orders start from) are loaded, not rendered.
    ['Limber-Htp - WGS - NovaSeq 6000 Paired end sequencing', ['limber_wgs', 'limber_multiplexing', 'illumina_htp_novaseq_6000_paired_end_sequencing']],
  ])('finds %j by name and uuid with request_type_keys %j', async (name, keys) => {
    const template = await findOne('submission_templates', 'name', name);
    expect(template.attributes).toEqual({ uuid: expect.stringMatching(UUID_V4), name, request_type_keys: keys });
    await checkUuidAndItem('submission_templates', template);
  });

  it("answers limber's config and presenter queries", async () => {
    const config = await call('GET', '/api/v2/submission_templates?fields[submission_templates]=uuid,name&page[size]=100');
    expect(config.status).toBe(200);
    expect(config.body.data.map((t: any) => t.attributes.name).sort()).toEqual([
      'Library Creation - Illumina',
      'Limber-Htp - WGS - NovaSeq 6000 Paired end sequencing',
      'MX Pooling',
      'Traction - GridION',
    ]);
    for (const t of config.body.data) expect(Object.keys(t.attributes).sort()).toEqual(['name', 'uuid']);
    expect(config.body.links.last).toBe(`${BASE}/submission_templates?fields%5Bsubmission_templates%5D=uuid%2Cname&page%5Bnumber%5D=1&page%5Bsize%5D=100`);

    const uuid = config.body.data.find((t: any) => t.attributes.name === 'MX Pooling').attributes.uuid;
    const presenter = await call('GET', `/api/v2/submission_templates?filter[uuid]=${uuid}&page[number]=1&page[size]=1`);
    expect(presenter.body.data).toHaveLength(1);
    expect(presenter.body.data[0].attributes.request_type_keys).toEqual(['multiplexing']);
  });

  it('refuses POST, PATCH and DELETE with 405 and an Allow header', async () => {
    const template = await findOne('submission_templates', 'name', 'MX Pooling');
    const post = await call('POST', '/api/v2/submission_templates', { body: doc('submission_templates', { name: 'New' }) });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.Allow).toBe('GET');
    const patch = await call('PATCH', `/api/v2/submission_templates/${template.id}`, {
      body: doc('submission_templates', { name: 'Renamed' }, undefined, template.id),
    });
    expectError(patch, 405, 'method_not_allowed');
    expect(patch.headers.Allow).toBe('GET');
    const del = await call('DELETE', `/api/v2/submission_templates/${template.id}`);
    expectError(del, 405, 'method_not_allowed');
    expect(del.headers.Allow).toBe('GET');
    expect((await findOne('submission_templates', 'name', 'MX Pooling')).attributes.name).toBe('MX Pooling');
    expect(await find('submission_templates', 'filter[name]=New')).toEqual([]);
  });

  it('rejects unknown filters', async () => {
    await unknownFiltersAre400('submission_templates', ['request_type_keys', 'key']);
  });
});

describe('read-only types in general', () => {
  it.each(['users', 'studies', 'projects', 'request_types'])('%s refuses POST with 405 (Allow: GET)', async (type) => {
    const res = await call('POST', `/api/v2/${type}`, { body: doc(type, { name: 'x' }) });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.Allow).toBe('GET');
  });

  it('answers 404 for unknown ids and 400 for malformed ones', async () => {
    expectError(await call('GET', '/api/v2/studies/999999'), 404, 'record_not_found');
    expectError(await call('GET', '/api/v2/barcode_printers/999999'), 404, 'record_not_found');
    expectError(await call('GET', '/api/v2/submission_templates/x1'), 400, 'invalid_id');
  });
});
