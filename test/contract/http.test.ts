import { randomUUID } from 'node:crypto';
import Kitsu from 'kitsu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerEndpoint } from '../support/store.ts';
import { startLocalService, type LocalService } from '#lib/local/service.ts';
import { createApiKey } from '#lib/store/api-keys.ts';
import { assertJsonApiDocument } from '../support/jsonapi-schema.ts';

/**
 * Contract tests over real HTTP: the local server (the same Lambda handlers behind node:http) on the
 * run's DynamoDB Local, called by the real JSON:API client library `kitsu` and by plain fetch the way
 * lab clients call it (client-usage.md). Every response body is validated against the JSON:API schema
 * and must carry the JSON:API media type; every link in the documents is absolute and answers 200.
 */

const JSON_API = 'application/vnd.api+json';
const WRITE_KEY = `contract-write-${randomUUID()}`;
const READ_KEY = `contract-read-${randomUUID()}`;

let service: LocalService;
let api: Kitsu;
/** Raw documents kitsu received (kitsu deserialises in place, so they are copied first). */
const kitsuDocuments: unknown[] = [];

beforeAll(async () => {
  service = await startLocalService({ dynamo: { endpoint: workerEndpoint(), stop: async () => {} }, tableName: `contract-${randomUUID()}` });
  await createApiKey('contract-write', 'write', WRITE_KEY);
  await createApiKey('contract-read', 'read', READ_KEY);

  api = new Kitsu({
    baseURL: `${service.url}/api/v2`,
    headers: { 'X-Sequencescape-Client-Id': WRITE_KEY },
    pluralize: false,
    camelCaseTypes: false,
    resourceCase: 'none',
  });
  const check = (response: { data: unknown; headers: Record<string, unknown> }) => {
    expect(response.headers['content-type']).toBe(JSON_API);
    assertJsonApiDocument(response.data);
    kitsuDocuments.push(structuredClone(response.data));
  };
  api.interceptors.response.use(
    (response) => {
      check(response);
      return response;
    },
    (error) => {
      if (error.response) check(error.response);
      return Promise.reject(error);
    },
  );
});

afterAll(async () => {
  await service?.stop();
});

let seq = 0;
const uniqueName = (prefix = 'HTTP') => `${prefix}-${process.pid}-${++seq}`;

interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * Plain fetch. Sends the write key and the JSON:API Accept (and Content-Type with a body) unless told
 * otherwise; a header set to null is not sent. Checks the media type and validates the document.
 */
async function http(
  method: string,
  pathOrUrl: string,
  options: { body?: unknown; key?: string | null; headers?: Record<string, string | null> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string | null> = { accept: JSON_API };
  const key = options.key === undefined ? WRITE_KEY : options.key;
  if (key !== null) headers['x-sequencescape-client-id'] = key;
  if (options.body !== undefined) headers['content-type'] = JSON_API;
  Object.assign(headers, options.headers ?? {});
  const sent = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null));
  const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${service.url}${pathOrUrl}`;
  const res = await fetch(url, {
    method,
    headers: sent,
    ...(options.body !== undefined ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
  });
  expect(res.headers.get('content-type'), `${method} ${url}`).toBe(JSON_API);
  const text = await res.text();
  const body = text === '' ? undefined : JSON.parse(text);
  if (body !== undefined) assertJsonApiDocument(body);
  return { status: res.status, headers: res.headers, body };
}

function expectErrorDocument(res: HttpResult, status: number, code: string): any {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.errors).toHaveLength(1);
  const [error] = res.body.errors;
  expect(error.status).toBe(String(status));
  expect(error.code).toBe(code);
  expect(typeof error.title).toBe('string');
  expect(typeof error.detail).toBe('string');
  return error;
}

/** Every link of a document: top-level, each resource object's self, each relationship's self and related. */
function linksOf(document: any): string[] {
  const links: string[] = [];
  const fromLinks = (l: Record<string, unknown> | undefined) => {
    for (const value of Object.values(l ?? {})) if (typeof value === 'string') links.push(value);
  };
  fromLinks(document.links);
  const resources = [...(Array.isArray(document.data) ? document.data : document.data ? [document.data] : []), ...(document.included ?? [])];
  for (const resource of resources) {
    if (!resource.attributes && !resource.links) continue; // linkage only
    fromLinks(resource.links);
    for (const relationship of Object.values<any>(resource.relationships ?? {})) fromLinks(relationship.links);
  }
  return links;
}

const visited = new Set<string>();

/** Asserts every link is an absolute URL of this server and answers 200 with a valid document. */
async function followLinks(document: any): Promise<number> {
  const links = linksOf(document);
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) {
    expect(link, 'links are absolute URLs of the service').toMatch(new RegExp(`^${service.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/api/v2/`));
    const url = new URL(link);
    expect(url.href).toBe(link);
    if (visited.has(link)) continue;
    visited.add(link);
    const res = await http('GET', link);
    expect(res.status, `GET ${link}: ${JSON.stringify(res.body)}`).toBe(200);
    expect(res.body).toHaveProperty('data');
  }
  return links.length;
}

async function studyId(name: string): Promise<string> {
  const res = await api.get('studies', { params: { filter: { name } } });
  expect(res.data).toHaveLength(1);
  return res.data[0].id;
}

describe('kitsu (a real JSON:API client)', () => {
  it('creates a sample with studies and reads it back with includes', async () => {
    const studyA = await studyId('Study A');
    const name = uniqueName('Kitsu');
    const created = await api.create('samples', {
      name,
      site_sample_id: 'KITSU-1',
      control: true,
      control_type: 'positive',
      studies: { data: [{ type: 'studies', id: studyA }] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${service.url}/api/v2/samples/${created.data.id}`);
    expect(created.data).toMatchObject({ type: 'samples', name, site_sample_id: 'KITSU-1', control: true, control_type: 'positive' });
    expect(created.data.uuid).toMatch(/^[0-9a-f-]{36}$/);

    const read = await api.get(`samples/${created.data.id}`, { params: { include: 'sample_metadata,studies' } });
    expect(read.status).toBe(200);
    expect(read.data.name).toBe(name);
    expect(read.data.studies.data).toEqual([expect.objectContaining({ type: 'studies', id: studyA, name: 'Study A' })]);
    expect(read.data.sample_metadata.data).toMatchObject({ type: 'sample_metadata', cohort: null, supplier_name: null });
    expect(read.data.sample_metadata.links.related).toBe(`${service.url}/api/v2/samples/${created.data.id}/sample_metadata`);

    const related = await api.get(`samples/${created.data.id}/sample_metadata`);
    expect(related.data.id).toBe(read.data.sample_metadata.data.id);
    expect(related.data.type).toBe('sample_metadata');

    const studies = await api.get(`samples/${created.data.id}/studies`);
    expect(studies.data.map((s: any) => s.name)).toEqual(['Study A']);
    expect(studies.meta.record_count).toBe(1);
  });

  it('lists and filters samples (name, site_sample_id, repeated uuid keys)', async () => {
    const a = await api.create('samples', { name: uniqueName('KList'), site_sample_id: 'KLIST' });
    const b = await api.create('samples', { name: uniqueName('KList'), site_sample_id: 'KLIST' });
    const c = await api.create('samples', { name: uniqueName('KList'), site_sample_id: 'OTHER' });

    const all = await api.get('samples', { params: { page: { size: 2 } } });
    expect(all.data).toHaveLength(2);
    expect(all.meta.record_count).toBeGreaterThanOrEqual(3);
    expect(all.links.next).toContain('page%5Bnumber%5D=2');

    const byName = await api.get('samples', { params: { filter: { name: b.data.name } } });
    expect(byName.data.map((s: any) => s.id)).toEqual([b.data.id]);

    const bySite = await api.get('samples', { params: { filter: { site_sample_id: 'KLIST' } } });
    expect(bySite.data.map((s: any) => s.id)).toEqual([a.data.id, b.data.id]);
    expect(bySite.meta.record_count).toBe(2);

    // kitsu's traditional serializer repeats filter[uuid] for an array.
    const byUuids = await api.get('samples', { params: { filter: { uuid: [a.data.uuid, c.data.uuid] } } });
    expect(byUuids.data.map((s: any) => s.id)).toEqual([a.data.id, c.data.id]);

    const sparse = await api.get('samples', { params: { filter: { uuid: c.data.uuid }, fields: { samples: 'name,uuid' } } });
    expect(sparse.data).toEqual([
      { type: 'samples', id: c.data.id, name: c.data.name, uuid: c.data.uuid, links: { self: `${service.url}/api/v2/samples/${c.data.id}` } },
    ]);
  });

  it('includes component_samples rendered as samples', async () => {
    const part = await api.create('samples', { name: uniqueName('KPart') });
    const mix = await api.create('samples', { name: uniqueName('KMix'), component_samples: { data: [{ type: 'component_samples', id: part.data.id }] } });
    const read = await api.get(`samples/${mix.data.id}`, { params: { include: 'component_samples' } });
    expect(read.data.component_samples.data).toEqual([expect.objectContaining({ type: 'samples', id: part.data.id, name: part.data.name })]);
  });

  it('updates sample_metadata', async () => {
    const sample = await api.create('samples', { name: uniqueName('KMeta') });
    const metadata = await api.get(`samples/${sample.data.id}/sample_metadata`);
    const updated = await api.update('sample_metadata', {
      id: metadata.data.id,
      cohort: 'Kitsu cohort',
      gender: 'female',
      date_of_sample_collection: '2024-06-01',
    });
    expect(updated.status).toBe(200);
    expect(updated.data).toMatchObject({ id: metadata.data.id, cohort: 'Kitsu cohort', gender: 'Female', date_of_sample_collection: '2024-06-01' });
    const found = await api.get('sample_metadata', { params: { filter: { sample_id: sample.data.id } } });
    expect(found.data.map((m: any) => [m.id, m.cohort])).toEqual([[metadata.data.id, 'Kitsu cohort']]);
  });

  it('surfaces a 422 with JSON:API errors for a duplicate name', async () => {
    const name = uniqueName('KDup');
    await api.create('samples', { name });
    const error = await api.create('samples', { name: name.toLowerCase() }).then(
      () => undefined,
      (e: any) => e,
    );
    expect(error).toBeDefined();
    expect(error.response.status).toBe(422);
    expect(error.errors).toEqual([expect.objectContaining({ status: '422', code: 'not_unique', source: { pointer: '/data/attributes/name' } })]);
  });

  it('reads the default reference data', async () => {
    const admin = await api.get('users', { params: { filter: { user_code: 'SWIPE-0001' } } });
    expect(admin.data).toHaveLength(1);
    expect(admin.data[0]).toMatchObject({ type: 'users', login: 'admin', first_name: 'Lab', last_name: 'Admin' });
    expect(admin.data[0]).not.toHaveProperty('user_code');

    const printers = await api.get('barcode_printers');
    expect(printers.data.map((p: any) => [p.name, p.barcode_type, p.print_service, p.active]).sort()).toEqual([
      ['old-printer', '384 Well Plate', 'PMB', false],
      ['plate-printer-1', '96 Well Plate', 'PMB', true],
      ['tube-printer-1', '1D Tube', 'SPrint', true],
    ]);
    const byUuid = await api.get('barcode_printers', { params: { filter: { uuid: printers.data[0].uuid } } });
    expect(byUuid.data.map((p: any) => p.id)).toEqual([printers.data[0].id]);

    const template = await api.get('submission_templates', { params: { filter: { name: 'Library Creation - Illumina' } } });
    expect(template.data).toEqual([
      expect.objectContaining({ type: 'submission_templates', name: 'Library Creation - Illumina', request_type_keys: ['library_creation', 'sequencing'] }),
    ]);

    const requestType = await api.get('request_types', { params: { filter: { key: 'multiplexing' } } });
    expect(requestType.data).toEqual([expect.objectContaining({ key: 'multiplexing', for_multiplexing: true })]);

    const plate = await api.get('plate_purposes', { params: { filter: { name: 'Stock Plate 384' } } });
    expect(plate.data).toEqual([expect.objectContaining({ name: 'Stock Plate 384', size: 384, barcode_prefix: 'DN' })]);
    const tube = await api.get('tube_purposes', { params: { filter: { name: 'MX Tube' } } });
    expect(tube.data).toEqual([expect.objectContaining({ name: 'MX Tube', barcode_prefix: 'NT' })]);
    const rack = await api.get('tube_rack_purposes', { params: { filter: { name: 'Tube Rack 48' } } });
    expect(rack.data).toEqual([expect.objectContaining({ name: 'Tube Rack 48', size: 48 })]);
    expect(new Set([plate.data[0].id, tube.data[0].id, rack.data[0].id]).size).toBe(3);
  });

  it('every document kitsu received validated and carried the JSON:API media type', () => {
    // The interceptor asserts both for each response; this checks it ran.
    expect(kitsuDocuments.length).toBeGreaterThan(20);
  });
});

describe('errors over plain fetch', () => {
  it('401 without a key or with an unknown key, naming the header, before 404/405', async () => {
    for (const key of [null, 'not-a-registered-key']) {
      const res = await http('GET', '/api/v2/samples', { key });
      const error = expectErrorDocument(res, 401, 'unauthorized');
      expect(error.detail).toContain('X-Sequencescape-Client-Id');
    }
    expectErrorDocument(await http('GET', '/api/v2/no_such_type', { key: null }), 401, 'unauthorized');
    expectErrorDocument(await http('DELETE', '/api/v2/samples/1', { key: null }), 401, 'unauthorized');
    expectErrorDocument(await http('POST', '/api/v2/samples', { key: null, body: { data: { type: 'samples', attributes: {} } } }), 401, 'unauthorized');
  });

  it('accepts the key header in any case', async () => {
    const res = await http('GET', '/api/v2/studies', { key: null, headers: { 'X-SEQUENCESCAPE-CLIENT-ID': WRITE_KEY } });
    expect(res.status).toBe(200);
  });

  it('403 for a read key on POST', async () => {
    const res = await http('POST', '/api/v2/samples', { key: READ_KEY, body: { data: { type: 'samples', attributes: { name: uniqueName() } } } });
    expectErrorDocument(res, 403, 'forbidden');
    expect((await http('GET', '/api/v2/samples', { key: READ_KEY })).status).toBe(200);
  });

  it('415 for writes in another media type or without Content-Type', async () => {
    const body = { data: { type: 'samples', attributes: { name: uniqueName() } } };
    for (const contentType of ['application/json', 'application/vnd.api+json; charset=utf-8', 'text/plain', null]) {
      const res = await http('POST', '/api/v2/samples', { body, headers: { 'content-type': contentType } });
      const error = expectErrorDocument(res, 415, 'unsupported_media_type');
      expect(error.source).toEqual({ header: 'Content-Type' });
    }
    const ok = await http('POST', '/api/v2/samples', { body, headers: { 'content-type': `${JSON_API}; ext="https://example.org/ext"` } });
    expect(ok.status).toBe(201);
  });

  it('406 for an Accept the service cannot meet; absent or */* Accept is fine', async () => {
    for (const accept of ['text/html', 'application/json', `${JSON_API}; charset=utf-8`]) {
      expectErrorDocument(await http('GET', '/api/v2/samples', { headers: { accept } }), 406, 'not_acceptable');
    }
    for (const accept of [null, '*/*', 'application/*', `text/html, ${JSON_API}`]) {
      expect((await http('GET', '/api/v2/studies', { headers: { accept } })).status).toBe(200);
    }
  });

  it('405 with an Allow header and a JSON:API body', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/api/v2/samples/1', 'GET, PATCH'],
      ['PUT', '/api/v2/samples/1', 'GET, PATCH'],
      ['DELETE', '/api/v2/sample_metadata/1', 'GET, PATCH'],
      ['PATCH', '/api/v2/samples', 'GET, POST'],
      ['POST', '/api/v2/barcode_printers', 'GET'],
      ['PATCH', '/api/v2/barcode_printers/1', 'GET'],
      ['DELETE', '/api/v2/barcode_printers/1', 'GET'],
      ['POST', '/api/v2/submission_templates', 'GET'],
      ['PATCH', '/api/v2/submission_templates/1', 'GET'],
      ['DELETE', '/api/v2/submission_templates/1', 'GET'],
      ['POST', '/api/v2/samples/1/relationships/studies', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await http(method, path, method === 'DELETE' || method === 'PUT' ? {} : { body: { data: { type: path.split('/')[3], attributes: {} } } });
      expectErrorDocument(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
  });

  it('404 for unknown records, types and relationships', async () => {
    expectErrorDocument(await http('GET', '/api/v2/samples/999999'), 404, 'record_not_found');
    expectErrorDocument(await http('GET', '/api/v2/sample_metadata/999999'), 404, 'record_not_found');
    expectErrorDocument(await http('GET', '/api/v2/no_such_type'), 404, 'route_not_found');
    expectErrorDocument(await http('GET', '/api/v3/samples'), 404, 'route_not_found');
    const sample = await http('POST', '/api/v2/samples', { body: { data: { type: 'samples', attributes: { name: uniqueName() } } } });
    expect(sample.status).toBe(201);
    const res = await http('GET', `/api/v2/samples/${sample.body.data.id}/no_such_relationship`);
    expect(res.status).toBe(404);
    expect(res.body.errors[0].status).toBe('404');
  });

  it('accepts a trailing slash on collection and item paths', async () => {
    const created = await http('POST', '/api/v2/samples/', { body: { data: { type: 'samples', attributes: { name: uniqueName('Slash') } } } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const item = await http('GET', `/api/v2/samples/${id}/`);
    expect(item.status).toBe(200);
    expect(item.body.data.id).toBe(id);
    const list = await http('GET', `/api/v2/samples/?filter[uuid]=${created.body.data.attributes.uuid}`);
    expect(list.body.data.map((s: any) => s.id)).toEqual([id]);
  });

  it('400 for a body that is not JSON, and for unknown filters', async () => {
    expectErrorDocument(await http('POST', '/api/v2/samples', { body: '{"data": {' }), 400, 'invalid_json');
    const res = await http('GET', '/api/v2/samples?filter%5Bsupplier_name%5D=X');
    expectErrorDocument(res, 400, 'filter_not_allowed');
    expect(res.body.errors[0].source).toEqual({ parameter: 'filter[supplier_name]' });
  });
});

describe('limber W9: add a randomised control', () => {
  it('POST sample with studies → GET its sample_metadata → PATCH the metadata', async () => {
    const studies = await http('GET', '/api/v2/studies?filter%5Bname%5D=Study%20B');
    const study = studies.body.data[0];
    const name = uniqueName('CTRL_DN1234_H12');

    const created = await http('POST', '/api/v2/samples', {
      body: {
        data: {
          type: 'samples',
          // Limber's StampedPlateAddingRandomisedControls#create_control_sample sends the reference's name.
          attributes: { name, sanger_sample_id: name, control: true, control_type: 'pcr positive' },
          relationships: { studies: { data: [{ type: 'studies', id: study.id }] } },
        },
      },
    });
    expect(created.status).toBe(201);
    const sampleId = created.body.data.id;
    expect(created.headers.get('location')).toBe(`${service.url}/api/v2/samples/${sampleId}`);
    expect(created.body.data.attributes).toMatchObject({ name, site_sample_id: name, sanger_sample_id: name, control: true, control_type: 'pcr positive' });

    // json_api_client: no linkage data → follow links.related.
    const relatedUrl = created.body.data.relationships.sample_metadata.links.related;
    expect(relatedUrl).toBe(`${service.url}/api/v2/samples/${sampleId}/sample_metadata`);
    const metadata = await http('GET', relatedUrl);
    expect(metadata.status).toBe(200);
    expect(metadata.body.data.type).toBe('sample_metadata');
    const metadataId = metadata.body.data.id;

    const patched = await http('PATCH', `/api/v2/sample_metadata/${metadataId}`, {
      body: {
        data: {
          id: metadataId,
          type: 'sample_metadata',
          attributes: { supplier_name: 'Control supplier', cohort: 'Controls', sample_description: 'PCR positive control for DN1234' },
        },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({
      supplier_name: 'Control supplier',
      cohort: 'Controls',
      sample_description: 'PCR positive control for DN1234',
    });

    const read = await http('GET', `/api/v2/samples/${sampleId}?include=sample_metadata,studies`);
    expect(read.body.data.relationships.studies.data).toEqual([{ type: 'studies', id: study.id }]);
    expect(read.body.data.relationships.sample_metadata.data).toEqual({ type: 'sample_metadata', id: metadataId });
    const included = read.body.included.find((r: any) => r.type === 'sample_metadata');
    expect(included.attributes).toMatchObject({ supplier_name: 'Control supplier', cohort: 'Controls', sample_description: 'PCR positive control for DN1234' });

    // lighthouse: only the key header, no Accept.
    const lighthouse = await http('GET', `/api/v2/samples?filter[uuid]=${created.body.data.attributes.uuid}`, { headers: { accept: null } });
    expect(lighthouse.body.data.map((s: any) => s.id)).toEqual([sampleId]);

    await followLinks(read.body);
  });
});

describe('query-string encodings real clients send', () => {
  it('raw brackets and commas (traction-ui) and percent-encoded ones (Faraday) mean the same', async () => {
    const a = await http('POST', '/api/v2/samples', { body: { data: { type: 'samples', attributes: { name: uniqueName('Enc'), site_sample_id: 'ENC-1' } } } });
    const b = await http('POST', '/api/v2/samples', { body: { data: { type: 'samples', attributes: { name: uniqueName('Enc'), site_sample_id: 'ENC-2' } } } });
    const raw = await http('GET', `/api/v2/samples?filter[site_sample_id]=ENC-1,ENC-2&fields[samples]=name,uuid,sample_metadata&include=sample_metadata`);
    const encoded = await http(
      'GET',
      `/api/v2/samples?filter%5Bsite_sample_id%5D=ENC-1%2CENC-2&fields%5Bsamples%5D=name%2Cuuid%2Csample_metadata&include=sample_metadata`,
    );
    const repeated = await http(
      'GET',
      `/api/v2/samples?filter%5Bsite_sample_id%5D%5B%5D=ENC-1&filter%5Bsite_sample_id%5D%5B%5D=ENC-2&fields%5Bsamples%5D=name%2Cuuid%2Csample_metadata&include=sample_metadata`,
    );
    expect(raw.body.data.map((s: any) => s.id)).toEqual([a.body.data.id, b.body.data.id]);
    expect(encoded.body.data).toEqual(raw.body.data);
    expect(repeated.body.data).toEqual(raw.body.data);
    expect(raw.body.included).toHaveLength(2);
    expect(Object.keys(raw.body.data[0].attributes).sort()).toEqual(['name', 'uuid']);
  });
});

describe('links', () => {
  it('in a sample with included metadata and studies: absolute and answered with 200', async () => {
    const studyA = await studyId('Study A');
    const part = await api.create('samples', { name: uniqueName('LPart') });
    const sample = await http('POST', '/api/v2/samples?include=sample_metadata', {
      body: {
        data: {
          type: 'samples',
          attributes: { name: uniqueName('Links') },
          relationships: { studies: { data: [{ type: 'studies', id: studyA }] }, component_samples: { data: [{ type: 'samples', id: part.data.id }] } },
        },
      },
    });
    expect(sample.status).toBe(201);
    expect(await followLinks(sample.body)).toBeGreaterThanOrEqual(1 + 1 + 8 + 2);
    const id = sample.body.data.id;
    const read = await http('GET', `/api/v2/samples/${id}?include=sample_metadata,studies,component_samples`);
    expect(read.body.included).toHaveLength(3);
    await followLinks(read.body);
  });

  it('in relationship and related-resource documents', async () => {
    const list = await http('GET', '/api/v2/samples?page[size]=1');
    const id = list.body.data[0].id;
    for (const name of ['sample_metadata', 'studies', 'component_samples', 'sample_manifest']) {
      const linkage = await http('GET', `/api/v2/samples/${id}/relationships/${name}`);
      expect(linkage.status).toBe(200);
      expect(linkage.body.links).toEqual({
        self: `${service.url}/api/v2/samples/${id}/relationships/${name}`,
        related: `${service.url}/api/v2/samples/${id}/${name}`,
      });
      await followLinks(linkage.body);
      const related = await http('GET', `/api/v2/samples/${id}/${name}`);
      expect(related.status).toBe(200);
      await followLinks(related.body);
    }
  });

  it('in a paged collection, following next to the end', async () => {
    let page = await http('GET', '/api/v2/samples?page[size]=3&include=sample_metadata');
    const total = page.body.meta.record_count;
    expect(total).toBeGreaterThan(6);
    expect(page.body.links.last).toBe(`${service.url}/api/v2/samples?include=sample_metadata&page%5Bnumber%5D=${Math.ceil(total / 3)}&page%5Bsize%5D=3`);
    const seen: string[] = [];
    for (let n = 1; ; n++) {
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s: any) => s.id));
      await followLinks(page.body);
      if (!page.body.links.next) break;
      expect(n).toBeLessThan(100);
      page = await http('GET', page.body.links.next);
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    // It follows every link of every page: many requests, on a runner whose one DynamoDB Local serves all files.
  });

  it('in sample_metadata and reference data documents', async () => {
    await followLinks((await http('GET', '/api/v2/sample_metadata?page[size]=2')).body);
    for (const type of [
      'users',
      'studies',
      'plate_purposes',
      'tube_purposes',
      'tube_rack_purposes',
      'request_types',
      'barcode_printers',
      'submission_templates',
    ]) {
      const res = await http('GET', `/api/v2/${type}?page[size]=2`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeGreaterThan(0);
      await followLinks(res.body);
      await followLinks((await http('GET', res.body.data[0].links.self)).body);
    }
  });
});
