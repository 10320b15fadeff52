import { describe, expect, it } from 'vitest';
import type { ApiKeyIdentity } from '#lib/jsonapi/context.ts';
import type { ApiResponse } from '#lib/jsonapi/request.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { serveMessage } from '#lib/jsonapi/message.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { registry } from '#lib/resources/index.ts';
import { call, doc } from '../support/api.ts';
import { storeWithFaults } from '../support/faults.ts';
import { createPlate, uniqueName } from '../support/fixtures.ts';
import { assertJsonApiDocument } from '../support/jsonapi-schema.ts';
import { requestItems, tableSnapshot } from '../support/table.ts';
import { countersRegistry } from '../support/counters-registry.ts';

/** The engine's message entry (lib/jsonapi/message.ts): the same checks, atomicity and idempotency as HTTP. */

const faults = storeWithFaults();

const ADMIN: ApiKeyIdentity = { name: 'test-admin', scope: 'write' };

async function send(message: unknown, options: { identity?: ApiKeyIdentity; resources?: Registry } = {}) {
  const response = await serveMessage(message, { registry: options.resources ?? registry, identity: options.identity ?? ADMIN, baseUrl: 'https://lts.test' });
  const document = JSON.parse(response.body!);
  assertJsonApiDocument(document);
  return { response, document };
}

const sampleMessage = (name: string, extra: Record<string, unknown> = {}) => ({
  method: 'POST',
  path: '/api/v2/samples',
  body: doc('samples', { name }),
  ...extra,
});

const samplesNamed = async (name: string): Promise<number> => (await call('GET', `/api/v2/samples?filter[name]=${name}`)).body.meta.record_count;

describe('a message that writes', () => {
  it('creating a sample → 201 with its Location, and the record exists', async () => {
    const name = uniqueName('msg');
    const { response, document } = await send(sampleMessage(name));
    expect(response.status, response.body).toBe(201);
    expect(response.headers.Location).toBe(`https://lts.test/api/v2/samples/${document.data.id}`);
    const read = await call('GET', `/api/v2/samples/${document.data.id}`);
    expect(read.body.data).toEqual(document.data);
  });

  it('sent again with its idempotency key → the first response, one record, nothing written again', async () => {
    const name = uniqueName('msg');
    const message = sampleMessage(name, { idempotency_key: `once-${name}` });
    const first = await send(message);
    expect(first.response.status).toBe(201);
    const before = await tableSnapshot();
    const again = await send(message);
    expect(again.response).toEqual(first.response);
    expect(await tableSnapshot()).toEqual(before);
    expect(await samplesNamed(name)).toBe(1);
  });

  it('the same key with another body → the 422 HTTP gives, nothing written', async () => {
    const key = `reused-${uniqueName()}`;
    expect((await send(sampleMessage(uniqueName('msg'), { idempotency_key: key }))).response.status).toBe(201);
    const before = await tableSnapshot();
    const { response, document } = await send(sampleMessage(uniqueName('msg'), { idempotency_key: key }));
    expect(response.status).toBe(422);
    expect(document.errors).toEqual(errors.idempotencyMismatch().errors);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('shares the stored request item with HTTP: a POST with the same key and body from a key of the same name replays it', async () => {
    const name = uniqueName('msg');
    const body = doc('samples', { name });
    const key = `shared-${name}`;
    const fromMessage = await send(
      { method: 'POST', path: '/api/v2/samples', body, idempotency_key: key },
      { identity: { name: 'test-write', scope: 'write' } },
    );
    expect(fromMessage.response.status).toBe(201);
    const items = (await requestItems()).length;
    const overHttp = await call('POST', '/api/v2/samples', { body, headers: { 'idempotency-key': key } });
    expect(overHttp.status).toBe(201);
    expect(overHttp.body).toEqual(fromMessage.document);
    expect((await requestItems()).length).toBe(items);
    expect(await samplesNamed(name)).toBe(1);
  });

  it('PATCH → 200 with the changed record; the path may carry a query string (include)', async () => {
    const created = await send(sampleMessage(uniqueName('msg')));
    const id = created.document.data.id;
    const { response, document } = await send({
      method: 'PATCH',
      path: `/api/v2/samples/${id}?include=sample_metadata`,
      body: doc('samples', { site_sample_id: 'from a message' }, undefined, id),
    });
    expect(response.status).toBe(200);
    expect(document.data.attributes.site_sample_id).toBe('from a message');
    expect(document.included.map((r: { type: string }) => r.type)).toEqual(['sample_metadata']);
  });

  it('records events with the identity as actor, like an API key', async () => {
    const study = (await call('GET', '/api/v2/studies?page[size]=1')).body.data[0].id;
    const name = uniqueName('msg');
    const { response } = await send({
      method: 'POST',
      path: '/api/v2/samples',
      body: doc('samples', { name }, { studies: { data: [{ type: 'studies', id: study }] } }),
    });
    expect(response.status).toBe(201);
    const events = (await requestItems()).flatMap((item) => item.events).filter((e) => e.data.attributes?.name === name);
    expect(events.map((e) => [e.type, e.actor])).toEqual([['samples.created', { api_key: 'test-admin', user: null }]]);
  });
});

describe('a bad message → a 4xx JSON:API error response, nothing written, never a throw', () => {
  const cases: [string, number, string, unknown, string?][] = [
    ['a string', 400, 'invalid_message', 'POST /api/v2/samples', ''],
    ['null', 400, 'invalid_message', null, ''],
    ['an array', 400, 'invalid_message', [], ''],
    ['no members', 400, 'invalid_message', {}, '/method'],
    ['GET (messages only write)', 400, 'invalid_message', { method: 'GET', path: '/api/v2/samples', body: {} }, '/method'],
    ['DELETE', 400, 'invalid_message', { ...sampleMessage('x'), method: 'DELETE' }, '/method'],
    ['a lower-case method', 400, 'invalid_message', { ...sampleMessage('x'), method: 'post' }, '/method'],
    ['a member of another name', 400, 'invalid_message', { ...sampleMessage('x'), idempotencyKey: 'k' }, '/idempotencyKey'],
    ['a path that is not a string', 400, 'invalid_message', { ...sampleMessage('x'), path: ['/api/v2/samples'] }, '/path'],
    ['a body that is not an object', 400, 'invalid_message', { ...sampleMessage('x'), body: [doc('samples', {}).data] }, '/body'],
    ['a body that is a JSON string', 400, 'invalid_message', { ...sampleMessage('x'), body: JSON.stringify(doc('samples', {})) }, '/body'],
    ['an empty idempotency key', 400, 'invalid_message', sampleMessage('x', { idempotency_key: '' }), '/idempotency_key'],
    ['an idempotency key of 256 characters', 400, 'invalid_message', sampleMessage('x', { idempotency_key: 'k'.repeat(256) }), '/idempotency_key'],
    ['an idempotency key with a newline', 400, 'invalid_message', sampleMessage('x', { idempotency_key: 'a\nb' }), '/idempotency_key'],
    ['an unknown type', 404, 'route_not_found', { ...sampleMessage('x'), path: '/api/v2/nonsense' }],
    ['a path outside the API', 404, 'route_not_found', { ...sampleMessage('x'), path: '/elsewhere' }],
    ['POST to a read-only type', 405, 'method_not_allowed', { ...sampleMessage('x'), path: '/api/v2/studies' }],
    // The path before the method, as over HTTP: a plate that does not exist is a 404 whatever the method.
    [
      'PATCH of a create-only type, no such record',
      404,
      'record_not_found',
      { method: 'PATCH', path: '/api/v2/plates/999999', body: doc('plates', {}, undefined, '999999') },
    ],
    ['a body without data', 400, 'missing_member', { ...sampleMessage('x'), body: { meta: {} } }, '/data'],
    ['a body of another type', 409, 'conflict', { ...sampleMessage('x'), body: doc('plates', {}) }, '/data/type'],
    ['an invalid value', 422, 'invalid_value', sampleMessage('not a valid name'), '/data/attributes/name'],
    [
      'a reference to nothing',
      404,
      'record_not_found',
      { ...sampleMessage('x'), body: doc('samples', {}, { studies: { data: [{ type: 'studies', id: '999999' }] } }) },
      '/data/relationships/studies/data/0',
    ],
    ['a PATCH of no record', 404, 'record_not_found', { method: 'PATCH', path: '/api/v2/samples/999999', body: doc('samples', {}, undefined, '999999') }],
    ['a body over 1 MiB', 413, 'payload_too_large', sampleMessage('x', { body: doc('samples', { site_sample_id: 'x'.repeat(1024 * 1024) }) })],
  ];

  it.each(cases)('%s → %i %s', async (_, status, code, message, at) => {
    const before = await tableSnapshot();
    const { response, document } = await send(message);
    expect(response.status, response.body).toBe(status);
    const error = at === undefined ? document.errors[0] : document.errors.find((e: { source?: { pointer?: string } }) => e.source?.pointer === at);
    expect(error, JSON.stringify(document.errors)).toMatchObject({ status: String(status), code });
    expect(await tableSnapshot()).toEqual(before);
  });

  it('names every problem of a message at once, each at its member', async () => {
    const { document } = await send({ method: 'GET', body: 'text', extra: true });
    expect(document.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual(['/body', '/extra', '/method', '/path']);
    expect(document.errors.find((e: { source: { pointer: string } }) => e.source.pointer === '/method').detail).toBe(
      'method - must be POST or PATCH: messages only write, got "GET"',
    );
    expect(document.errors.find((e: { source: { pointer: string } }) => e.source.pointer === '/path').detail).toBe('path is required');
  });

  it('PATCH of a create-only type → 405 carrying Allow, as over HTTP, nothing written', async () => {
    const plate = await createPlate();
    const before = await tableSnapshot();
    const { response, document } = await send({ method: 'PATCH', path: `/api/v2/plates/${plate.id}`, body: doc('plates', {}, undefined, plate.id) });
    expect(response.status).toBe(405);
    expect(response.headers).toEqual({ Allow: 'GET' });
    expect(document.errors[0].code).toBe('method_not_allowed');
    expect(await tableSnapshot()).toEqual(before);
  });

  it('an identity with read scope may not write: 403', async () => {
    const before = await tableSnapshot();
    const { response, document } = await send(sampleMessage(uniqueName('msg')), { identity: { name: 'reader', scope: 'read' } });
    expect(response.status).toBe(403);
    expect(document.errors[0].code).toBe('forbidden');
    expect(await tableSnapshot()).toEqual(before);
  });

  it('DynamoDB throttled → 503 with Retry-After, as over HTTP; the same message then goes through', async () => {
    const message = sampleMessage(uniqueName('msg'), { idempotency_key: uniqueName('throttled') });
    const before = await tableSnapshot();
    faults.arm('TransactWriteItems', 'ThrottlingException');
    let throttled: ApiResponse;
    try {
      throttled = (await send(message)).response;
    } finally {
      faults.disarm();
    }
    expect(throttled.status).toBe(503);
    expect(throttled.headers['Retry-After']).toBe('1');
    expect(await tableSnapshot()).toEqual(before);
    expect((await send(message)).response.status).toBe(201);
  });
});

describe('custom actions through messages (a test-only type, lib/jsonapi/resource.ts ActionDef)', () => {
  const counters = (...labels: string[]) => ({ data: labels.map((label) => ({ type: 'test_counters', attributes: { label } })) });

  it('POST to an action runs it: 201 with the array', async () => {
    const { response, document } = await send(
      { method: 'POST', path: '/api/v2/test_counters/bulk_create', body: counters('a', 'b') },
      { resources: countersRegistry },
    );
    expect(response.status).toBe(201);
    expect(document.data.map((r: { attributes: { label: string } }) => r.attributes.label)).toEqual(['a', 'b']);
  });

  it('any other method on an action path → 405 with Allow: POST, nothing written', async () => {
    const before = await tableSnapshot();
    const { response, document } = await send(
      { method: 'PATCH', path: '/api/v2/test_counters/bulk_create', body: counters('c') },
      { resources: countersRegistry },
    );
    expect(response.status).toBe(405);
    expect(response.headers).toEqual({ Allow: 'POST' });
    expect(document.errors[0].code).toBe('method_not_allowed');
    expect(await tableSnapshot()).toEqual(before);
  });

  it('an undeclared name is read as an id, as before: PATCH of it is a 400 invalid_id', async () => {
    const { response, document } = await send(
      { method: 'PATCH', path: '/api/v2/samples/bulk_create', body: doc('samples', {}, undefined, '1') },
      { resources: countersRegistry },
    );
    expect(response.status).toBe(400);
    expect(document.errors[0].code).toBe('invalid_id');
  });
});
