import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { LocalService } from '#lib/local/service.ts';
import { registry } from '#lib/resources/index.ts';
import { FALLBACK, routes } from '#lib/routes.ts';
import { call } from '../support/api.ts';
import { createTube } from '../support/fixtures.ts';
import { http, type HttpResult } from '../support/http.ts';
import { assertJsonApiDocument } from '../support/jsonapi-schema.ts';
import { filledPlate, poolPlate } from '../support/lab.ts';
import { freshHttpService, READ_KEY, WRITE_KEY } from '../support/store.ts';
import { tableSnapshot } from '../support/table.ts';

/**
 * Random requests over real HTTP (plain fetch against the local server) on every route of lib/routes.ts:
 * random methods, paths (collections, real and random ids, related and relationship paths, actions, the
 * fallback's unknown paths, /health, /api/v2, the OpenAPI document), query strings, headers and bodies.
 * Properties: never a 5xx; every error a valid JSON:API error document served as application/vnd.api+json;
 * a refused write leaves the table as it was (id sequences aside: a refused write may have reserved an id,
 * which is then skipped, contract §1.3). A failure prints fast-check's seed and the shrunk request.
 */

let service: LocalService;
/** Per type: ids of records that exist (some types have none here) and uuids to put in `*_uuid` attributes. */
const ids = new Map<string, string[]>();
const uuids: string[] = [];

beforeAll(async () => {
  service = await freshHttpService();
  // A little of everything: a plate with samples in two wells pooled into a submission, and a tube.
  const { plate } = await filledPlate(2);
  await poolPlate(plate.id, [['A1', 'B1']]);
  await createTube();
  // A labware's audit trail is listed only by its labware (filter[labware] is required: docs/decisions.md).
  const requiredFilter: Record<string, string> = { labware_audits: `&filter[labware]=${plate.id}` };
  for (const type of registry.types) {
    // A type of actions only (heron's receptions) has no collection to list: no ids.
    if (!registry.get(type)?.methods.includes('list')) {
      ids.set(type, []);
      continue;
    }
    const res = await call('GET', `/api/v2/${type}?page[size]=3${requiredFilter[type] ?? ''}`);
    expect(res.status, type).toBe(200);
    ids.set(
      type,
      res.body.data.map((r: { id: string }) => r.id),
    );
    uuids.push(...res.body.data.map((r: { attributes?: { uuid?: string } }) => r.attributes?.uuid).filter(Boolean));
  }
});

afterAll(() => service?.stop());

// Bounded by run counts; interruptAfterTimeLimit only guards a very slow machine (the property then passes with fewer runs).
const RUN = { numRuns: 200, interruptAfterTimeLimit: 20_000 } as const;

// --------------------------------------------------------------------------------------------------------
// Requests
// --------------------------------------------------------------------------------------------------------

/** Any string as a URL part (lone surrogates made well-formed first: encodeURIComponent throws on them). */
const encoded = (s: string) => encodeURIComponent(s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
const junkName = fc.oneof(fc.constantFrom('constructor', '__proto__', 'toString', 'widgets', '', 'relationships', 'id', 'type'), fc.string({ maxLength: 8 }));
const pick = <T>(values: readonly T[], other: fc.Arbitrary<T>) =>
  values.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, other) : other;

const randomId = fc.oneof(
  fc.constantFrom('0', '-1', '1.5', 'abc', '999999999', '99999999999999999999', '1e3', '%00', 'A1', '001'),
  fc.nat().map(String),
  fc.string({ maxLength: 10 }).map(encoded),
);
const idOf = (type: string) => pick(ids.get(type) ?? [], randomId);
const typedId = (types: readonly string[]) => fc.constantFrom(...types).chain((t) => fc.record({ type: fc.constant(t), id: idOf(t) }));

const READABLE = registry.types;
const typeName = pick(READABLE, junkName);

/** Every path the route table serves, and paths it does not. */
function pathOf(type: string): fc.Arbitrary<string> {
  const def = registry.require(type);
  const relationship = pick(Object.keys(def.relationships), junkName.map(encoded));
  const actions = Object.keys(def.actions ?? {});
  const base = `/api/v2/${type}`;
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(base) },
    { weight: 4, arbitrary: idOf(type).map((id) => `${base}/${id}`) },
    { weight: 2, arbitrary: fc.tuple(idOf(type), relationship).map(([id, r]) => `${base}/${id}/${r}`) },
    { weight: 2, arbitrary: fc.tuple(idOf(type), relationship).map(([id, r]) => `${base}/${id}/relationships/${r}`) },
    { weight: actions.length > 0 ? 3 : 0, arbitrary: fc.constantFrom(...actions, 'unknown_action').map((a) => `${base}/${a}`) },
    { weight: 1, arbitrary: fc.tuple(idOf(type), fc.string({ maxLength: 6 })).map(([id, s]) => `${base}/${id}/relationships/x/${encoded(s)}`) },
  );
}
const OTHER_PATHS = [
  '/health',
  '/api/v2',
  '/api/v2/',
  '/api/v2/openapi.json',
  '/',
  '/api',
  '/api/v1/samples',
  '/api/v2//samples',
  '/api/v2/docs',
  '/api/v2/docs/swagger-ui.css',
  '/api/v2/docs/nothing.js',
  '/labware/DN1S',
  '/labware/%3Cx%3E',
  '/health/x',
];
const path = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...routes.filter((r) => r.name !== FALLBACK).flatMap((r) => r.types)).chain(pathOf) },
  { weight: 2, arbitrary: fc.constantFrom(...OTHER_PATHS) },
  { weight: 1, arbitrary: junkName.map((n) => `/api/v2/${encoded(n)}`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((s) => `/${encoded(s)}`) },
);

const method = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH') },
  { weight: 3, arbitrary: fc.constantFrom('PUT', 'DELETE', 'HEAD', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('FOO', 'PROPFIND', 'PURGE', 'M-SEARCH') },
);

/** Query parameters from realistic fragments: valid and invalid names per type, plus anything. */
function queryPart(): fc.Arbitrary<[string, string]> {
  const fieldOf = (type: string) => {
    const def = registry.get(type);
    return pick(def ? [...Object.keys(def.attributes), ...Object.keys(def.relationships)] : [], junkName);
  };
  const includePath = typeName.chain((t) => fc.array(fieldOf(t), { minLength: 1, maxLength: 3 }).map((names) => names.join('.')));
  const filterName = typeName.chain((t) => pick(Object.keys(registry.get(t)?.filters ?? {}), junkName));
  const value = fc.oneof(
    fc.constantFrom('1', 'Study A', 'Stock Plate', 'DN1S', 'a,b', ',', 'passed', 'true', 'x'.repeat(3000)),
    fc.string({ maxLength: 12 }),
    fc.constantFrom(...(uuids.length > 0 ? uuids : ['none'])),
  );
  return fc.oneof(
    fc.tuple(
      fc.constant('include'),
      fc.array(includePath, { maxLength: 3 }).map((p) => p.join(',')),
    ),
    fc.tuple(
      typeName.map((t) => `fields[${t}]`),
      typeName.chain((t) => fc.array(fieldOf(t), { maxLength: 3 })).map((f) => f.join(',')),
    ),
    fc.tuple(
      fc.tuple(filterName, fc.boolean()).map(([n, list]) => `filter[${n}]${list ? '[]' : ''}`),
      value,
    ),
    fc.tuple(
      fc.constantFrom('page[number]', 'page[size]', 'page[cursor]', 'page[limit]'),
      fc.oneof(fc.constantFrom('1', '2', '0', '-1', '100', '101', '1.5', '', 'abc', '9007199254740993'), fc.string({ maxLength: 8 })),
    ),
    fc.tuple(fc.constant('sort'), fc.oneof(typeName.chain(fieldOf).map(String), fc.constantFrom('id', '-id', 'created_at', '-updated_at', '', ','))),
    fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })),
  );
}
const query = fc.constant(null).chain(() =>
  fc
    .array(fc.tuple(queryPart(), fc.boolean()), { maxLength: 4 })
    // Brackets raw or percent-encoded, as different clients send them.
    .map((parts) => parts.map(([[k, v], raw]) => (raw ? `${k.replace(/[#&=%?\s]/g, encoded)}=${encoded(v)}` : `${encoded(k)}=${encoded(v)}`)).join('&')),
);

/** Header values fetch can send (printable ASCII). */
const headerText = fc.stringMatching(/^[\x20-\x7e]{0,24}$/);
const mediaType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/vnd.api+json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/vnd.api+json; charset=utf-8',
      'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
      'application/vnd.api+json; profile="x"',
      'application/vnd.api+json;q=0.5, text/html',
      'application/json',
      '*/*',
      'application/*',
      'text/html',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/vnd.api+json, application/vnd.api+json',
      ';;;',
      '',
    ),
  },
  { weight: 1, arbitrary: headerText },
);
const headers = fc.record(
  {
    accept: mediaType,
    'content-type': mediaType,
    'x-sequencescape-client-id': fc.oneof({ weight: 6, arbitrary: fc.constant(WRITE_KEY) }, fc.constantFrom(READ_KEY, 'bogus-key-0123456789', ''), headerText),
    'idempotency-key': fc.oneof(fc.uuid(), fc.constantFrom('k'.repeat(256), 'k'.repeat(2100), ''), headerText),
  },
  { requiredKeys: [] },
);

// --------------------------------------------------------------------------------------------------------
// Bodies
// --------------------------------------------------------------------------------------------------------

const scalar = fc.oneof(
  fc.constantFrom(
    'A1',
    'H12',
    'passed',
    'pending',
    'started',
    'Study A',
    'negative',
    'concentration',
    12.3,
    0,
    -1,
    96,
    true,
    false,
    null,
    '',
    'x'.repeat(2100),
    // Numbers DynamoDB cannot store exactly (2 ** 53 stands for 9007199254740993, which JSON.parse rounds to it) and lone surrogates.
    1e308,
    1e-308,
    1e21,
    2 ** 53,
    '\ud800',
    'a\udfffb',
  ),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(...(uuids.length > 0 ? uuids : ['none'])),
  fc.integer(),
);
const attributeValue = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('A1', 'B1', 'C1', 'key', 'value'), scalar, { maxKeys: 3 }) },
  // Keys special to JavaScript objects and a lone surrogate, as own keys (Object.fromEntries, as JSON.parse makes them).
  {
    weight: 1,
    arbitrary: fc.array(fc.tuple(fc.constantFrom('constructor', '__proto__', 'prototype', '\udc00', 'key'), scalar), { maxLength: 3 }).map(Object.fromEntries),
  },
  {
    weight: 1,
    arbitrary: fc.array(fc.dictionary(fc.constantFrom('barcode', 'well_location', 'key', 'value', 'units', 'position'), scalar, { maxKeys: 4 }), {
      maxLength: 3,
    }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const weighted = <T>(own: fc.Arbitrary<T>, other: fc.Arbitrary<T>) => fc.oneof({ weight: 10, arbitrary: own }, { weight: 1, arbitrary: other });

/** A write document near the valid shape of `type`: its own attribute and relationship names, linkages to records of the right types. */
function nearValid(type: string, id: fc.Arbitrary<string | undefined>): fc.Arbitrary<unknown> {
  const def = registry.require(type);
  const attributes = Object.keys(def.attributes);
  const relationships = Object.entries(def.relationships);
  const linkage = (types: readonly string[]) => weighted<unknown>(typedId(types), fc.record({ type: typeName, id: randomId }, { requiredKeys: [] }));
  const relationship = relationships.length
    ? fc
        .constantFrom(...relationships)
        .chain(([name, r]) =>
          fc.tuple(
            fc.constant(name),
            weighted<unknown>(
              fc.record({ data: r.kind === 'many' ? fc.array(linkage(r.types), { maxLength: 3 }) : fc.oneof(linkage(r.types), fc.constant(null)) }),
              fc.jsonValue({ maxDepth: 2 }),
            ),
          ),
        )
    : fc.tuple(junkName, fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<unknown>);
  return weighted<unknown>(
    fc.record(
      {
        data: fc.record(
          {
            type: weighted<unknown>(fc.constant(type), fc.oneof(typeName, fc.jsonValue({ maxDepth: 1 }))),
            id,
            attributes: fc
              .uniqueArray(fc.tuple(pick(attributes, junkName), attributeValue), { maxLength: 4, selector: ([k]) => k })
              .map((e) => Object.fromEntries(e)),
            relationships: fc.uniqueArray(relationship, { maxLength: 3, selector: ([k]) => k }).map((e) => Object.fromEntries(e)),
          },
          { requiredKeys: ['type'] },
        ),
      },
      { requiredKeys: ['data'] },
    ),
    fc.record({ data: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
  );
}
const documentFor = (type: string, itemId: string | undefined) =>
  itemId === undefined
    ? nearValid(type, fc.option(idOf(type), { nil: undefined, freq: 8 }))
    : nearValid(type, weighted<string | undefined>(fc.constant(itemId), idOf(type)));

const TOO_LARGE = `{"data":{"type":"samples","attributes":{"name":"${'x'.repeat(1024 * 1024)}"}}}`;
const rawBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('', '{', '{"data":', 'null', '[]', '{"data":[]}', '{"data":{"type":"samples"}}garbage', '\u0000', '\uFEFF{}', TOO_LARGE),
);

/** The body for a request to `path`: a document near the addressed type's shape, or anything. */
function bodyFor(path: string): fc.Arbitrary<string | undefined> {
  const [, type, second] = /^\/api\/v2\/([^/]+)(?:\/([^/]+))?/.exec(path) ?? [];
  const def = type ? registry.get(type) : undefined;
  const isAction = def && second !== undefined && Object.hasOwn(def.actions ?? {}, second);
  const near: fc.Arbitrary<unknown> | undefined = !def
    ? undefined
    : isAction
      ? fc
          .array(
            documentFor(type!, undefined).map((d) => (d as { data?: unknown }).data),
            { maxLength: 3 },
          )
          .map((data) => ({ data }))
      : documentFor(type!, second);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: rawBody },
    { weight: near ? 6 : 0, arbitrary: (near ?? fc.constant(null)).map((d) => JSON.stringify(d)) },
  );
}

interface Request {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | undefined;
}
const request: fc.Arbitrary<Request> = fc.constant(null).chain(() =>
  fc.record({ method, path, query, headers }).chain((r) =>
    // fetch refuses a body on GET and HEAD.
    (r.method === 'GET' || r.method === 'HEAD' ? fc.constant(undefined) : bodyFor(r.path)).map((body) => ({ ...r, body })),
  ),
);

// --------------------------------------------------------------------------------------------------------
// Properties
// --------------------------------------------------------------------------------------------------------

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

const send = (r: Request): Promise<HttpResult> =>
  http(service.url, r.method, `${r.path}${r.query ? `?${r.query}` : ''}`, {
    key: null,
    headers: { accept: undefined, ...r.headers },
    ...(r.body !== undefined ? { body: r.body } : {}),
  });

/** The docs page and its files: HTML, JavaScript or CSS when found; a missing file or method is a JSON:API error. */
const isDocs = (path: string) => path === '/api/v2/docs' || path.startsWith('/api/v2/docs/');
/** The plate maps (`/labware/{barcode}`) are pages for people: every answer, errors too, is HTML. */
const isMap = (path: string) => path.startsWith('/labware/');

/** What every response must satisfy, whatever was sent. */
function expectWellBehaved(r: Request, res: HttpResult): void {
  const what = `${r.method} ${r.path}?${r.query} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, what).toBeGreaterThanOrEqual(200);
  expect(res.status, what).toBeLessThan(500);
  const contentType = res.headers.get('content-type');
  if (r.method === 'OPTIONS') {
    // The CORS preflight, answered for any path without a key (decisions.md): 204, no body.
    expect(res.status, what).toBe(204);
    expect(res.text, what).toBe('');
    expect(res.headers.get('access-control-allow-methods'), what).toBeTruthy();
    return;
  }
  // A method node:http cannot parse (FOO) never reaches a route: the transport answers it as JSON:API, below.
  if (isMap(r.path) && res.body?.errors?.[0]?.code !== 'invalid_http_request') {
    expect(contentType, what).toBe('text/html; charset=utf-8');
    return;
  }
  if (isDocs(r.path) && res.status < 400) {
    expect(res.status, what).toBe(200);
    expect(contentType, what).toMatch(/^text\/(html|javascript|css); charset=utf-8$/);
    return;
  }
  if (r.method === 'HEAD') {
    // No route serves HEAD (never in Allow): the answer is the error GET's place would have, without its body.
    expect(res.status, what).toBeGreaterThanOrEqual(400);
    expect(contentType, what).toBe('application/vnd.api+json');
    expect(res.text, what).toBe('');
    return;
  }
  if (res.status === 200 && r.method === 'GET' && r.path === '/api/v2/openapi.json') {
    expect(contentType, what).toBe('application/json');
    expect(res.body?.openapi, what).toMatch(/^3\.1/);
    return;
  }
  expect(contentType, what).toBe('application/vnd.api+json');
  expect(res.body, what).toBeDefined();
  assertJsonApiDocument(res.body);
  if (res.status >= 400) {
    expect(res.body.data, what).toBeUndefined();
    expect(res.body.errors.length, what).toBeGreaterThan(0);
    for (const e of res.body.errors) {
      expect(e.status, what).toMatch(/^4\d\d$/);
      expect(typeof e.code, what).toBe('string');
      expect(typeof e.detail, what).toBe('string');
    }
    if (res.status === 405) expect(res.headers.get('allow'), what).not.toBeNull();
  } else {
    expect(res.body.errors, what).toBeUndefined();
    // What the service accepted or serves holds no lone surrogate (JSON.stringify writes one, and only one, as a \udXXX escape).
    expect(res.text, what).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    // A single created record has a Location (an action creating several, such as bulk_create, has none).
    if (res.status === 201 && !Array.isArray(res.body.data)) expect(res.headers.get('location'), what).toBe(res.body.data.links.self);
  }
}

/**
 * Sends the requests of `requests` and checks every response, and that a refused write leaves no trace.
 * One scan per write rather than two: the table as the last write left it is the "before" of the next one
 * (so a read that wrote anything would show at the next refused write too). Returns the refused writes seen.
 */
async function checkRequests(requests: fc.Arbitrary<Request>): Promise<number> {
  let refusedWrites = 0;
  let last = await tableSnapshot();
  await fc.assert(
    fc.asyncProperty(requests, async (r) => {
      const res = await send(r);
      // The table first, so that `last` stays true even when a check below fails (fast-check then shrinks).
      let change: { written: string[]; removed: string[] } | undefined;
      if (!READS.has(r.method.toUpperCase())) {
        const before = new Set(last);
        const now = await tableSnapshot();
        const after = new Set(now);
        change = { written: now.filter((item) => !before.has(item)), removed: last.filter((item) => !after.has(item)) };
        last = now;
      }
      expectWellBehaved(r, res);
      if (change && res.status >= 400) {
        refusedWrites++;
        expect(change, `${r.method} ${r.path} → ${res.status}, yet the table changed since the last write`).toEqual({ written: [], removed: [] });
      }
    }),
    RUN,
  );
  return refusedWrites;
}

/** Every write the route table serves (POST to a collection, PATCH to an item, each action), sent as a client of the API would: the write key and JSON:API headers. */
const WRITES = routes.flatMap((r) =>
  r.types.flatMap((type) => [
    ...(r.methods.includes('POST') ? [{ method: 'POST', path: fc.constant(`/api/v2/${type}`) }] : []),
    ...(r.methods.includes('PATCH') ? [{ method: 'PATCH', path: idOf(type).map((id) => `/api/v2/${type}/${id}`) }] : []),
    ...r.actions.map((a) => ({ method: a.method, path: fc.constant(`/api/v2/${type}/${a.name}`) })),
  ]),
);
const writeRequest: fc.Arbitrary<Request> = fc.constant(null).chain(() =>
  fc
    .constantFrom(...WRITES)
    .chain(({ method, path }) =>
      fc.record({
        method: fc.constant(method),
        path,
        query: fc.constantFrom('', 'include=studies', 'fields[samples]=name'),
        idempotency: fc.option(fc.uuid()),
      }),
    )
    .chain(({ idempotency, ...r }) =>
      bodyFor(r.path).map((body) => ({
        ...r,
        body,
        headers: {
          'x-sequencescape-client-id': WRITE_KEY,
          'content-type': 'application/vnd.api+json',
          ...(idempotency ? { 'idempotency-key': idempotency } : {}),
        },
      })),
    ),
);

describe('every route over HTTP', () => {
  it('random methods, paths, queries, headers and bodies: never a 5xx; every error a JSON:API error document; a refused write leaves no trace', async () => {
    // The property must have exercised refusals (a generator bug could send only reads).
    expect(await checkRequests(request)).toBeGreaterThan(20);
  });

  it("writes near each type's valid shape, with a write key and JSON:API headers: the same, past authentication and media types", async () => {
    expect(await checkRequests(writeRequest)).toBeGreaterThan(20);
  });
});

// --------------------------------------------------------------------------------------------------------
// Inputs the fuzzing found, pinned as examples
// --------------------------------------------------------------------------------------------------------

describe('found by fuzzing', () => {
  const expectInvalidHttp = (res: HttpResult, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/vnd.api+json');
    assertJsonApiDocument(res.body);
    expect(res.body.errors).toEqual([expect.objectContaining({ status: String(status), code: 'invalid_http_request' })]);
  };

  it('a method node:http does not know (FOO) → 400 as a JSON:API error document, not a bare 400 without a body', async () => {
    expectInvalidHttp(await http(service.url, 'FOO', '/api/v2/samples/1', { body: '{"data":{"type":"samples"}}' }), 400);
  });

  it('headers over the server limit → 431 as a JSON:API error document', async () => {
    expectInvalidHttp(await http(service.url, 'GET', '/api/v2/samples', { headers: { 'x-padding': 'x'.repeat(20_000) } }), 431);
  });
});
