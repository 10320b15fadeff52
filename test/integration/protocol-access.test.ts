import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import { handlerForRoute } from '#lib/http/route-handlers.ts';
import { FALLBACK } from '#lib/routes.ts';
import { call, doc, type CallResult } from '../support/api.ts';
import { recordCount } from '../support/fixtures.ts';
import { header } from '../support/responses.ts';
import { freshStore, READ_KEY, WRITE_KEY } from '../support/store.ts';

/** Contract §1.1–1.2: paths, methods, media types and authentication, in the contract's order of checks. */

beforeAll(freshStore);

const JSON_API = 'application/vnd.api+json';
const HEADER = 'X-Sequencescape-Client-Id';
/** Passed in `headers` to remove a default header the helper would send. */
const ABSENT = undefined as unknown as string;

/** Every error is a JSON:API error object of the response status with a stable snake_case code (§1.7). */
function expectError(res: CallResult, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(header(res, 'content-type')).toBe(JSON_API);
  expect(res.body.errors.length).toBeGreaterThan(0);
  for (const e of res.body.errors) {
    expect(e.status).toBe(String(status));
    expect(e.code).toBe(code);
    expect(e.title).toEqual(expect.stringMatching(/\S/));
    expect(e.detail).toEqual(expect.stringMatching(/\S/));
  }
  return res.body.errors[0];
}

let uniq = 0;
const sampleDoc = () => doc('samples', { name: `access-${++uniq}` });

/** An API Gateway event with headers exactly as given (the `call` helper lower-cases names). */
function rawEvent(method: string, path: string, headers: Record<string, string>, body?: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'lts.test', 'x-forwarded-proto': 'https', ...headers },
    requestContext: { http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' }, requestId: `raw-${Math.random()}` } as never,
    isBase64Encoded: false,
    ...(body !== undefined ? { body } : {}),
  };
}

describe('authentication (§1.2)', () => {
  it('answers 401 naming the header when the key is missing', async () => {
    const res = await call('GET', '/api/v2/samples', { key: null });
    const error = expectError(res, 401, 'unauthorized');
    expect(error.detail).toContain(HEADER);
    expect(error.source).toEqual({ header: HEADER });
  });

  it('answers 401 for an unknown or empty key', async () => {
    expectError(await call('GET', '/api/v2/samples', { key: 'not-a-key' }), 401, 'unauthorized');
    expectError(await call('GET', '/api/v2/barcode_printers/1', { key: '' }), 401, 'unauthorized');
  });

  it('authenticates before routing: unknown paths and unsupported methods are 401 without a key', async () => {
    expectError(await call('GET', '/api/v2/no_such_type', { key: null }), 401, 'unauthorized');
    expectError(await call('GET', '/nowhere', { key: null }), 401, 'unauthorized');
    expectError(await call('DELETE', '/api/v2/samples/1', { key: null }), 401, 'unauthorized');
    expectError(await call('POST', '/api/v2/barcode_printers', { key: null, body: doc('barcode_printers', {}) }), 401, 'unauthorized');
    expectError(await call('POST', '/api/v2/samples', { key: 'not-a-key', body: 'not json', headers: { 'content-type': 'text/plain' } }), 401, 'unauthorized');
  });

  it('lets a read key read but not write (403)', async () => {
    const list = await call('GET', '/api/v2/barcode_printers', { key: READ_KEY });
    expect(list.status).toBe(200);
    expect(list.body.meta.record_count).toBe(3);

    const created = await call('POST', '/api/v2/samples', { body: sampleDoc() });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await call('GET', `/api/v2/samples/${id}`, { key: READ_KEY })).body.data.id).toBe(id);

    const before = await recordCount('samples');
    expectError(await call('POST', '/api/v2/samples', { key: READ_KEY, body: sampleDoc() }), 403, 'forbidden');
    expectError(
      await call('PATCH', `/api/v2/samples/${id}`, { key: READ_KEY, body: doc('samples', { site_sample_id: 'x' }, undefined, id) }),
      403,
      'forbidden',
    );
    expect(await recordCount('samples')).toBe(before);
    expect((await call('GET', `/api/v2/samples/${id}`)).body.data.attributes.site_sample_id).toBeNull();
  });

  it('checks 405 before the key scope, and the scope before media types', async () => {
    const res = await call('POST', '/api/v2/barcode_printers', { key: READ_KEY, body: doc('barcode_printers', {}) });
    expectError(res, 405, 'method_not_allowed');
    expectError(await call('POST', '/api/v2/samples', { key: READ_KEY, body: 'x', headers: { 'content-type': 'text/plain' } }), 403, 'forbidden');
  });

  it('matches the header name case-insensitively', async () => {
    const handler = handlerForRoute('samples');
    for (const name of [HEADER, HEADER.toUpperCase(), 'x-sequencescape-client-id']) {
      const result = await handler(rawEvent('GET', '/api/v2/samples', { [name]: WRITE_KEY, Accept: JSON_API }), {} as Context);
      expect(result.statusCode, name).toBe(200);
    }
    const missing = await handler(rawEvent('GET', '/api/v2/samples', { 'X-Other': WRITE_KEY }), {} as Context);
    expect(missing.statusCode).toBe(401);
  });
});

describe('keyless routes (LTS_KEYLESS)', () => {
  const saved = process.env.LTS_KEYLESS;
  afterEach(() => {
    if (saved === undefined) delete process.env.LTS_KEYLESS;
    else process.env.LTS_KEYLESS = saved;
    resetConfig();
  });

  /** Handlers read LTS_KEYLESS when they are built. */
  function keylessHandlers(setting: string) {
    process.env.LTS_KEYLESS = setting;
    resetConfig();
    return { printers: handlerForRoute('barcode_printers'), users: handlerForRoute('users'), fallback: handlerForRoute(FALLBACK) };
  }
  const send = (handler: ReturnType<typeof handlerForRoute>, method: string, path: string, body?: string) =>
    handler(rawEvent(method, path, { accept: JSON_API, ...(body ? { 'content-type': JSON_API } : {}) }, body), {} as Context);

  it('serves exactly the configured METHOD:type pairs without a key', async () => {
    const { printers, users, fallback } = keylessHandlers(' get:barcode_printers , POST:qc_assays');
    const list = await send(printers, 'GET', '/api/v2/barcode_printers');
    expect(list.statusCode).toBe(200);
    expect(JSON.parse(list.body!).meta.record_count).toBe(3);
    // Every GET path under the type.
    expect((await send(printers, 'GET', '/api/v2/barcode_printers/1')).statusCode).toBe(200);
    expect((await send(printers, 'GET', '/api/v2/barcode_printers/')).statusCode).toBe(200);
    expect((await send(printers, 'GET', '/api/v2/barcode_printers/99999')).statusCode).toBe(404);
    // Nothing else.
    expect((await send(printers, 'POST', '/api/v2/barcode_printers', JSON.stringify(doc('barcode_printers', {})))).statusCode).toBe(401);
    expect((await send(users, 'GET', '/api/v2/users')).statusCode).toBe(401);
    expect((await send(fallback, 'GET', '/api/v2/qc_assays')).statusCode).toBe(401);
    // A path that merely ends in the type's name is not under /api/v2/<type>.
    expect((await send(fallback, 'GET', '/api/v1/barcode_printers')).statusCode).toBe(401);
  });

  it('is empty by default', async () => {
    const { printers } = keylessHandlers('');
    expect((await send(printers, 'GET', '/api/v2/barcode_printers')).statusCode).toBe(401);
  });
});

describe('routing (§1.1, §1.6)', () => {
  it('answers 404 for unknown types and path shapes', async () => {
    for (const path of [
      '/api/v2/nonsense',
      '/api/v2/nonsense/1',
      '/api/v2/samples/1/nonsense',
      '/api/v2/samples/1/relationships',
      '/api/v2/samples/1/relationships/nonsense',
      '/api/v2/samples/1/studies/1',
      '/api/v2/openapi.yaml',
      '/api/v3/samples',
      '/api/v2//samples',
    ]) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(404);
      expectError(res, 404, 'route_not_found');
    }
  });

  it('accepts a trailing slash with the same meaning', async () => {
    const withSlash = await call('GET', '/api/v2/barcode_printers/');
    const without = await call('GET', '/api/v2/barcode_printers');
    expect(withSlash.status).toBe(200);
    expect(withSlash.body.data).toEqual(without.body.data);
    const one = await call('GET', `/api/v2/barcode_printers/${without.body.data[0].id}/`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(without.body.data[0]);
    const created = await call('POST', '/api/v2/samples/', { body: sampleDoc() });
    expect(created.status).toBe(201);
  });

  it('answers DELETE and PUT with 405 and an Allow header', async () => {
    const sample = (await call('POST', '/api/v2/samples', { body: sampleDoc() })).body.data.id;
    const cases: [string, string, string][] = [
      ['DELETE', `/api/v2/samples/${sample}`, 'GET, PATCH'],
      ['PUT', `/api/v2/samples/${sample}`, 'GET, PATCH'],
      ['DELETE', '/api/v2/samples', 'GET, POST'],
      ['PUT', '/api/v2/samples', 'GET, POST'],
      ['DELETE', '/api/v2/barcode_printers/1', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await call(method, path);
      expectError(res, 405, 'method_not_allowed');
      expect(header(res, 'allow'), `${method} ${path}`).toBe(allow);
    }
  });

  it('answers writes to read-only types and relationship endpoints with 405', async () => {
    const printer = await call('POST', '/api/v2/barcode_printers', { body: doc('barcode_printers', { name: 'new-printer' }) });
    expectError(printer, 405, 'method_not_allowed');
    expect(header(printer, 'allow')).toBe('GET');
    for (const type of ['barcode_printers', 'users', 'studies', 'submission_templates']) {
      const res = await call('PATCH', `/api/v2/${type}/1`, { body: doc(type, { name: 'x' }, undefined, '1') });
      expectError(res, 405, 'method_not_allowed');
      expect(header(res, 'allow')).toBe('GET');
    }
    for (const method of ['POST', 'PATCH']) {
      for (const path of ['/api/v2/samples/1/relationships/studies', '/api/v2/samples/1/studies']) {
        const res = await call(method, path, { body: { data: [{ type: 'studies', id: '1' }] } });
        expectError(res, 405, 'method_not_allowed');
        expect(header(res, 'allow'), `${method} ${path}`).toBe('GET');
      }
    }
  });

  it('checks the path (404) before the method (405)', async () => {
    expectError(await call('DELETE', '/api/v2/nonsense/1'), 404, 'route_not_found');
    expectError(await call('POST', '/api/v2/samples/1/nonsense', { body: {} }), 404, 'route_not_found');
  });

  it('answers any method on an item no record has with 404 before 405, and a malformed id with 400', async () => {
    const unknown = '987654321';
    const paths = [
      `/api/v2/samples/${unknown}`,
      `/api/v2/barcode_printers/${unknown}`,
      `/api/v2/wells/${unknown}`,
      `/api/v2/samples/${unknown}/relationships/studies`,
    ];
    for (const path of paths) {
      for (const method of ['DELETE', 'PUT', 'POST']) {
        const error = expectError(await call(method, path, method === 'POST' ? { body: { data: [] } } : {}), 404, 'record_not_found');
        expect(error.detail, `${method} ${path}`).toContain(unknown);
      }
    }
    // A read-only type's item too (PATCH is refused there), and before the key's scope (403).
    expectError(await call('PATCH', `/api/v2/users/${unknown}`, { body: doc('users', {}, undefined, unknown) }), 404, 'record_not_found');
    expectError(await call('DELETE', `/api/v2/samples/${unknown}`, { key: READ_KEY }), 404, 'record_not_found');
    expectError(await call('DELETE', '/api/v2/samples/abc'), 400, 'invalid_id');
    // An item that exists: the method is what is wrong.
    expectError(await call('DELETE', '/api/v2/barcode_printers/1'), 405, 'method_not_allowed');
  });

  it('answers a CORS preflight without running anything', async () => {
    const res = await call('OPTIONS', '/api/v2/samples', { key: null });
    expect(res.status).toBe(204);
    expect(header(res, 'access-control-allow-headers')).toContain(HEADER);
  });
});

describe('media types (§1.1)', () => {
  const expect415 = async (headers: Record<string, string>, body: unknown = sampleDoc()) => {
    const before = await recordCount('samples');
    expectError(await call('POST', '/api/v2/samples', { body, headers }), 415, 'unsupported_media_type');
    expect(await recordCount('samples')).toBe(before);
  };

  it('answers 415 to a POST or PATCH in another media type or without Content-Type', async () => {
    await expect415({ 'content-type': 'text/plain' });
    await expect415({ 'content-type': 'application/json' });
    await expect415({ 'content-type': ABSENT });
    await expect415({ 'content-type': `${JSON_API}; charset=utf-8` });
    await expect415({ 'content-type': `${JSON_API}, ${JSON_API}` });
    const created = await call('POST', '/api/v2/samples', { body: sampleDoc() });
    const id = created.body.data.id;
    const patch = await call('PATCH', `/api/v2/samples/${id}`, {
      body: doc('samples', { site_sample_id: 'p' }, undefined, id),
      headers: { 'content-type': 'application/json' },
    });
    expectError(patch, 415, 'unsupported_media_type');
    expect((await call('GET', `/api/v2/samples/${id}`)).body.data.attributes.site_sample_id).toBeNull();
  });

  it('accepts the JSON:API type with ext or profile parameters', async () => {
    for (const contentType of [
      `${JSON_API}; ext="https://jsonapi.org/ext/atomic"`,
      `${JSON_API};profile="https://example.com/p"`,
      'Application/VND.API+JSON',
    ]) {
      const res = await call('POST', '/api/v2/samples', { body: sampleDoc(), headers: { 'content-type': contentType } });
      expect(res.status, contentType).toBe(201);
    }
  });

  it('answers 406 to an Accept it cannot meet', async () => {
    for (const accept of ['text/html', 'application/json', `${JSON_API}; charset=utf-8`, 'text/*']) {
      const res = await call('GET', '/api/v2/barcode_printers', { headers: { accept } });
      expect(res.status, accept).toBe(406);
      expectError(res, 406, 'not_acceptable');
    }
    const before = await recordCount('samples');
    expectError(await call('POST', '/api/v2/samples', { body: sampleDoc(), headers: { accept: 'text/html' } }), 406, 'not_acceptable');
    expect(await recordCount('samples')).toBe(before);
  });

  it('accepts Accept absent, */*, application/*, and lists naming the JSON:API type', async () => {
    for (const accept of [
      ABSENT,
      '',
      '*/*',
      'application/*',
      JSON_API,
      `text/html, ${JSON_API}`,
      `text/html;q=0.9, */*;q=0.1`,
      `${JSON_API}; ext="https://jsonapi.org/ext/atomic"`,
    ]) {
      const res = await call('GET', '/api/v2/barcode_printers', { headers: { accept } });
      expect(res.status, String(accept)).toBe(200);
      expect(header(res, 'content-type')).toBe(JSON_API);
    }
  });

  it('ignores a Content-Type header on GET', async () => {
    for (const contentType of ['text/plain', 'application/json', `${JSON_API}; charset=utf-8`]) {
      const res = await call('GET', '/api/v2/barcode_printers', { headers: { 'content-type': contentType } });
      expect(res.status, contentType).toBe(200);
    }
  });

  it('checks the media type (415) before the Accept (406) and before the body', async () => {
    expectError(
      await call('POST', '/api/v2/samples', { body: '{not json', headers: { 'content-type': 'text/plain', accept: 'text/html' } }),
      415,
      'unsupported_media_type',
    );
    expectError(await call('POST', '/api/v2/samples', { body: '{not json', headers: { accept: 'text/html' } }), 406, 'not_acceptable');
  });
});
