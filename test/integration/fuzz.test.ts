import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { create, rels } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * Random input through the real handler (contract §1.6: "No input ever yields a 500"). Every response must
 * be < 500, a valid JSON:API document (call() checks the schema), and every 4xx must carry `errors`.
 * Run counts are bounded so the file stays well under 20 s; a failure prints fast-check's seed and the
 * shrunk counterexample.
 */

let sampleId: string;
let metadataId: string;
let studyA: string;
let studyB: string;

beforeAll(async () => {
  await freshStore();
  studyA = await idOf('studies', 'name', 'Study A');
  studyB = await idOf('studies', 'name', 'Study B');
  sampleId = (await create('samples', { site_sample_id: 'fuzz-target' }, { studies: rels('studies', [studyA]) })).id;
  const read = await call('GET', `/api/v2/samples/${sampleId}?include=sample_metadata`);
  metadataId = read.body.data.relationships.sample_metadata.data.id;
});

// interruptAfterTimeLimit caps a property (shrinking included) on a slow machine; it then passes with fewer runs.
const RUN = { numRuns: 60, interruptAfterTimeLimit: 5_000 } as const;

/** A lone surrogate as JSON.stringify writes it (a \udXXX escape: it writes a whole pair as the character). */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;

/** What every response must satisfy, whatever was sent. */
function expectWellBehaved(res: CallResult, what: string): void {
  const context = `${what} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
  expect(res.status, context).toBeGreaterThanOrEqual(200);
  expect(res.status, context).toBeLessThan(500);
  expect(res.headers['Content-Type'], context).toBe('application/vnd.api+json');
  if (res.status >= 400) {
    expect(Array.isArray(res.body?.errors), context).toBe(true);
    expect(res.body.errors.length, context).toBeGreaterThan(0);
    for (const e of res.body.errors) {
      expect(e.status, context).toMatch(/^4\d\d$/);
      expect(typeof e.code, context).toBe('string');
      expect(typeof e.title, context).toBe('string');
      expect(typeof e.detail, context).toBe('string');
    }
    expect(res.body.data, context).toBeUndefined();
  } else {
    expect(res.body?.errors, context).toBeUndefined();
    expect(res.body?.data, context).toBeDefined();
    // What was accepted holds no lone surrogate (JSON.stringify writes one, and only one, as a \udXXX escape).
    expect(JSON.stringify(res.body), context).not.toMatch(LONE_SURROGATE_ESCAPE);
  }
}

// --------------------------------------------------------------------------------------------------------
// Query strings
// --------------------------------------------------------------------------------------------------------

const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const relationshipName = fc.constantFrom(
  'studies',
  'sample_metadata',
  'sample_metadata.sample',
  'component_samples',
  'sample_manifest',
  'studies.samples',
  'widgets',
  '',
  'constructor',
  '__proto__',
  'toString',
);
const fieldName = fc.constantFrom('name', 'uuid', 'studies', 'site_sample_id', 'control', 'colour', '', 'constructor', 'toString', '__proto__');
const fieldType = fc.constantFrom('samples', 'studies', 'sample_metadata', 'users', 'widgets', 'constructor');
const filterName = fc.constantFrom('name', 'uuid', 'site_sample_id', 'colour', 'id', 'constructor', '__proto__', 'toString', 'hasOwnProperty');
const filterValue = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('Study A', 'fuzz-target', 'a,b', ',', 'x'.repeat(3000)),
  fc.uuid(),
);
const pageValue = fc.oneof(
  fc.constantFrom('1', '2', '0', '-1', '1.5', 'abc', '', '500', '501', ' 3 ', '99999999999999999999999', '30000000', '9007199254740993'),
  fc.nat().map(String),
  fc.string({ maxLength: 6 }),
);
const cursorValue = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.jsonValue({ maxDepth: 2 }).map(cursor),
  fc
    .record({
      p: fc.oneof(fc.constant(2), fc.integer()),
      s: fc.constantFrom('id', '-id', 'updated_at', '-updated_at', 'name'),
      a: fc.oneof(fc.string({ maxLength: 20 }), fc.constant('9'.repeat(1200))),
    })
    .map(cursor),
);
const sortValue = fc.constantFrom('id', '-id', 'created_at', '-updated_at', 'name', '', ',', '-id,id', 'constructor');

const queryPart = fc.oneof(
  fc.tuple(
    fc.constantFrom('include'),
    fc.array(relationshipName, { maxLength: 3 }).map((r) => r.join(',')),
  ),
  fc.tuple(
    fieldType.map((t) => `fields[${t}]`),
    fc.array(fieldName, { maxLength: 3 }).map((f) => f.join(',')),
  ),
  fc.tuple(
    fc.tuple(filterName, fc.boolean()).map(([n, repeated]) => `filter[${n}]${repeated ? '[]' : ''}`),
    filterValue,
  ),
  fc.tuple(fc.constantFrom('page[number]', 'page[size]', 'page[page]', 'page[per_page]'), pageValue),
  fc.tuple(fc.constant('page[cursor]'), cursorValue),
  fc.tuple(fc.constantFrom('sort'), sortValue),
  fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })),
);
/** Key and value each sent raw or percent-encoded, as different clients do. */
const grammarQuery = fc
  .array(fc.tuple(queryPart, fc.boolean(), fc.boolean()), { maxLength: 4 })
  .map((parts) =>
    parts
      .map(([[key, value], encodeKey, encodeValue]) => `${encodeKey ? encodeURIComponent(key) : key}=${encodeValue ? encodeURIComponent(value) : value}`)
      .join('&'),
  );

describe('GET /api/v2/samples with random query strings', () => {
  it('never answers 500 for queries built from realistic fragments', async () => {
    await fc.assert(
      fc.asyncProperty(grammarQuery, async (query) => {
        expectWellBehaved(await call('GET', `/api/v2/samples?${query}`), `GET ?${query}`);
      }),
      RUN,
    );
  });

  it('a bare page number past 2^31 entries of a filtered listing (found by the property above) → 200, empty', async () => {
    // (21,474,837 − 1) × 100 + 100 entries wanted: past DynamoDB's 32-bit Limit, which refused the Query (a 503).
    const res = await call('GET', '/api/v2/samples?filter[site_sample_id]=00000000-0000-1000-8000-000000000000&page[number]=21474837');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('never answers 500 for arbitrary query strings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 })), async (query) => {
        expectWellBehaved(await call('GET', `/api/v2/samples?${query}`), `GET ?${query}`);
      }),
      RUN,
    );
  });

  it('never answers 500 for random queries on an item and its relationships', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('', '/studies', '/relationships/studies', '/sample_metadata'), grammarQuery, async (suffix, query) => {
        expectWellBehaved(await call('GET', `/api/v2/samples/${sampleId}${suffix}?${query}`), `GET ${suffix}?${query}`);
      }),
      RUN,
    );
  });
});

// --------------------------------------------------------------------------------------------------------
// Bodies
// --------------------------------------------------------------------------------------------------------

const SAMPLE_ATTRIBUTES = ['name', 'site_sample_id', 'control', 'control_type'];
const SAMPLE_RELATIONSHIPS = ['sample_metadata', 'sample_manifest', 'studies', 'component_samples'];
const name = (own: string[], other: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...own) },
    { weight: 1, arbitrary: fc.constantFrom(...other, 'uuid', 'id', 'type', '', 'sample_metadata_uuid') },
    { weight: 1, arbitrary: fc.constantFrom('constructor', 'toString', 'hasOwnProperty', '__proto__') },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
/** Numbers DynamoDB cannot store exactly (2 ** 53 stands for 9007199254740993, which JSON.parse rounds to it), lone surrogates. */
const unstorable = fc.constantFrom(1e308, 1e-308, 1e21, 2 ** 53, -(2 ** 53), '\ud800', 'a\udc00b', '\udbff');
/** Keys special to JavaScript objects, and one holding a lone surrogate. */
const reservedKey = fc.constantFrom('constructor', '__proto__', 'prototype', '\ud800');
/** A value holding at least one thing no attribute may hold; objects built as JSON.parse builds them (own keys: Object.fromEntries, not assignment). */
const hostileValue = fc.oneof(
  unstorable,
  fc.array(unstorable, { minLength: 1, maxLength: 3 }),
  fc.tuple(reservedKey, fc.jsonValue({ maxDepth: 1 })).map(([key, value]) => Object.fromEntries([[key, value]])),
  fc.tuple(fc.string({ maxLength: 4 }), unstorable).map(([key, value]) => Object.fromEntries([[key, value]])),
);
const attributeValue = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/) },
  { weight: 2, arbitrary: fc.constantFrom('negative', 'positive', '', ' ', true, false, null, 'x'.repeat(2100), 'x'.repeat(4097)) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: hostileValue },
);
const linkageType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('studies', 'samples', 'sample_metadata', 'component_samples') },
  { weight: 1, arbitrary: fc.constantFrom('users', 'sample_manifests', 'plates', '') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);
const linkageId = () =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(studyA, studyB, sampleId, metadataId, '1', '2', 2, '999999') },
    { weight: 1, arbitrary: fc.constantFrom('0', '-1', 'x', '', null, 1.5, '123456789012345', '99999999999999999', 1e21, 2 ** 53, '1\ud800') },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  );
const linkage = () =>
  fc.oneof(
    { weight: 8, arbitrary: fc.record({ type: linkageType, id: linkageId() }) },
    { weight: 1, arbitrary: fc.record({ type: linkageType, id: linkageId() }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  );
const relationshipValue = () =>
  fc.oneof(
    { weight: 8, arbitrary: fc.record({ data: fc.oneof(fc.constant(null), linkage(), fc.array(linkage(), { maxLength: 3 })) }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
/** Documents around the valid shape of a samples write; generated lazily, once the ids above are known. */
const nearValidSample = (mode: 'create' | 'update') =>
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc.record(
        {
          data: fc.record({
            type: fc.oneof(
              { weight: 15, arbitrary: fc.constant('samples') },
              { weight: 1, arbitrary: linkageType },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
            ),
            id:
              mode === 'update'
                ? fc.oneof(
                    { weight: 10, arbitrary: fc.constant(sampleId) },
                    { weight: 1, arbitrary: linkageId() },
                    { weight: 1, arbitrary: fc.constant(undefined) },
                  )
                : fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: linkageId() }),
            attributes: fc.oneof(
              { weight: 15, arbitrary: fc.dictionary(name(SAMPLE_ATTRIBUTES, SAMPLE_RELATIONSHIPS), attributeValue, { maxKeys: 3 }) },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
            ),
            relationships: fc.oneof(
              { weight: 15, arbitrary: fc.dictionary(name(SAMPLE_RELATIONSHIPS, SAMPLE_ATTRIBUTES), relationshipValue(), { maxKeys: 3 }) },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
            ),
          }),
        },
        { requiredKeys: ['data'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ data: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }) },
  );
/** The body as sent: JSON text (own `__proto__` keys kept), or raw text that may not be JSON at all. */
const rawBody = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"data":', 'null', '[]', '{"data":{"type":"samples"', '\u0000', '{"data":{"type":"samples"}}garbage') },
);

describe('POST /api/v2/samples with random bodies', () => {
  it('never answers 500 for arbitrary JSON and non-JSON bodies', async () => {
    await fc.assert(
      fc.asyncProperty(rawBody, async (body) => {
        expectWellBehaved(await call('POST', '/api/v2/samples', { body }), `POST ${body.slice(0, 200)}`);
      }),
      RUN,
    );
  });

  it('never answers 500 for documents around the valid shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constant(null).chain(() => nearValidSample('create')),
        async (document) => {
          const body = JSON.stringify(document);
          const res = await call('POST', '/api/v2/samples', { body });
          expectWellBehaved(res, `POST ${body.slice(0, 300)}`);
          if (res.status === 201) {
            expect(res.body.data.type).toBe('samples');
            expect(res.headers.Location).toBe(res.body.data.links.self);
          }
        },
      ),
      RUN,
    );
  });
});

describe('values no attribute may hold (lib/jsonapi/input-values.ts)', () => {
  it('one in any attribute of an otherwise valid POST or PATCH → 422 at that attribute, never stored', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SAMPLE_ATTRIBUTES), hostileValue, fc.boolean(), async (name, value, patch) => {
        const body = JSON.stringify({ data: { type: 'samples', ...(patch ? { id: sampleId } : {}), attributes: { [name]: value } } });
        const res = patch ? await call('PATCH', `/api/v2/samples/${sampleId}`, { body }) : await call('POST', '/api/v2/samples', { body });
        expectWellBehaved(res, `${patch ? 'PATCH' : 'POST'} ${body}`);
        expect(res.status, body).toBe(422);
        expect(res.body.errors[0].source.pointer, body).toMatch(new RegExp(`^/data/attributes/${name}(/|$)`));
      }),
      RUN,
    );
  });
});

describe('PATCH /api/v2/samples/{id} with random bodies', () => {
  it('never answers 500 for arbitrary JSON and non-JSON bodies', async () => {
    await fc.assert(
      fc.asyncProperty(rawBody, async (body) => {
        expectWellBehaved(await call('PATCH', `/api/v2/samples/${sampleId}`, { body }), `PATCH ${body.slice(0, 200)}`);
      }),
      RUN,
    );
  });

  it('never answers 500 for documents around the valid shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constant(null).chain(() => nearValidSample('update')),
        async (document) => {
          const body = JSON.stringify(document);
          const res = await call('PATCH', `/api/v2/samples/${sampleId}`, { body });
          expectWellBehaved(res, `PATCH ${body.slice(0, 300)}`);
          if (res.status === 200) expect(res.body.data).toMatchObject({ type: 'samples', id: sampleId });
        },
      ),
      RUN,
    );
  });
});

// --------------------------------------------------------------------------------------------------------
// Inputs the fuzzing found, pinned as examples (each asserts the contract's answer)
// --------------------------------------------------------------------------------------------------------

describe('found by fuzzing', () => {
  const get = (query: string) => call('GET', `/api/v2/samples?${query}`);

  it.each(['include=constructor', 'include=__proto__', 'include=studies.toString'])('GET ?%s → 400 invalid_include (unknown relationship)', async (query) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_include', source: { parameter: 'include' } });
  });

  it.each(['constructor', '__proto__', 'toString'])('GET ?filter[%s]=x → 400 filter_not_allowed', async (name) => {
    const res = await get(`filter[${name}]=x`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'filter_not_allowed', source: { parameter: `filter[${name}]` } });
  });

  it.each(['constructor', 'toString'])('GET ?fields[samples]=%s → 400 invalid_field', async (name) => {
    const res = await get(`fields[samples]=${name}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_field', source: { parameter: 'fields[samples]' } });
  });

  it('GET ?pagex=1 → 400 (only page[...] keys are ignored)', async () => {
    const res = await get('pagex=1');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'pagex' });
  });

  it.each(['30000000', '9007199254740993', '99999999999999999999999'])(
    'GET ?page[number]=%s (past the last page) → 200 with no data, or 400; never 500',
    async (n) => {
      const res = await get(`page[number]=${n}`);
      expect([200, 400]).toContain(res.status);
      if (res.status === 200) expect(res.body.data).toEqual([]);
    },
  );

  it('GET with a tampered page[cursor] (oversized position) → 400 or plain paging; never 500', async () => {
    for (const sort of ['id', '-id']) {
      const res = await get(`sort=${sort}&page[number]=1&page[cursor]=${cursor({ p: 1, s: sort, a: 'x'.repeat(2000) })}`);
      expect([200, 400]).toContain(res.status);
    }
  });

  it('a forged cursor holding a 3,000-character updatedAt (the probe that reached DynamoDB) → 400 invalid_page', async () => {
    for (const sort of ['updated_at', '-updated_at']) {
      const forged = cursor({ p: 2, s: sort, a: { id: 1, updatedAt: 'x'.repeat(3000) } });
      const res = await get(`sort=${sort}&page[number]=2&page[cursor]=${forged}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'invalid_page', source: { parameter: 'page[cursor]' } });
    }
    // Positions must be what the service writes: a positive integer id, an ISO timestamp.
    for (const a of [{ id: -1 }, { id: 1.5 }, { id: '1' }, { id: 1, updatedAt: '2026-01-01' }, { id: 1, updatedAt: 7 }]) {
      expect((await get(`sort=-updated_at&page[number]=2&page[cursor]=${cursor({ p: 2, s: '-updated_at', a })}`)).status).toBe(400);
    }
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])('POST and PATCH with attribute %s → 400 param_not_allowed', async (key) => {
    const attrs = `{"${key}":"x"}`;
    const post = await call('POST', '/api/v2/samples', { body: `{"data":{"type":"samples","attributes":${attrs}}}` });
    expect(post.status).toBe(400);
    expect(post.body.errors[0]).toMatchObject({ code: 'param_not_allowed', source: { pointer: `/data/attributes/${key}` } });
    const patch = await call('PATCH', `/api/v2/samples/${sampleId}`, { body: `{"data":{"type":"samples","id":"${sampleId}","attributes":${attrs}}}` });
    expect(patch.status).toBe(400);
    expect(patch.body.errors[0]).toMatchObject({ code: 'param_not_allowed', source: { pointer: `/data/attributes/${key}` } });
  });

  it.each(['constructor', 'toString', '__proto__'])('POST and PATCH with relationship %s → 400 param_not_allowed', async (key) => {
    for (const data of ['null', `{"type":"studies","id":"${studyA}"}`]) {
      const rels = `{"${key}":{"data":${data}}}`;
      const post = await call('POST', '/api/v2/samples', { body: `{"data":{"type":"samples","relationships":${rels}}}` });
      expect(post.status).toBe(400);
      expect(post.body.errors[0]).toMatchObject({ code: 'param_not_allowed', source: { pointer: `/data/relationships/${key}` } });
      const patch = await call('PATCH', `/api/v2/samples/${sampleId}`, { body: `{"data":{"type":"samples","id":"${sampleId}","relationships":${rels}}}` });
      expect(patch.status).toBe(400);
    }
  });

  it('POST and PATCH with attribute or relationship names holding ~ or / → 400 whose pointers are valid RFC 6901 (a valid JSON:API document)', async () => {
    // call() throws when the response fails the JSON:API schema, whose source.pointer pattern requires ~0 / ~1 escapes.
    const post = await call('POST', '/api/v2/samples', {
      body: { data: { type: 'samples', attributes: { '~': 'x', 'a/b': 'y' }, relationships: { 'c~d': { data: null } } } },
    });
    expect(post.status).toBe(400);
    expect(post.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual([
      '/data/attributes/~0',
      '/data/attributes/a~1b',
      '/data/relationships/c~0d',
    ]);
    const patch = await call('PATCH', `/api/v2/samples/${sampleId}`, { body: { data: { type: 'samples', id: sampleId, attributes: { '~': '' } } } });
    expect(patch.status).toBe(400);
    expect(patch.body.errors[0].source).toEqual({ pointer: '/data/attributes/~0' });
  });

  it('POST and PATCH a site_sample_id of 2,100 characters (within the 4,096 limit) → stored, not 409 concurrent_update', async () => {
    const value = 'S'.repeat(2100);
    const post = await call('POST', '/api/v2/samples', { body: doc('samples', { site_sample_id: value }) });
    expect(post.body.errors?.[0]?.code).not.toBe('concurrent_update');
    expect(post.status).toBe(201);
    expect(post.body.data.attributes.site_sample_id).toBe(value);
    const found = await call('GET', `/api/v2/samples?filter[site_sample_id]=${value}`);
    expect(found.body.data.map((r: { id: string }) => r.id)).toEqual([post.body.data.id]);

    // A sample of its own: the properties above have PATCHed the shared one at random.
    const own = (await call('POST', '/api/v2/samples', { body: doc('samples', {}) })).body.data.id;
    const patch = await call('PATCH', `/api/v2/samples/${own}`, { body: { data: { type: 'samples', id: own, attributes: { site_sample_id: `${value}-2` } } } });
    expect(patch.body.errors?.[0]?.code).not.toBe('concurrent_update');
    expect(patch.status).toBe(200);
  });

  it('POST a name of 2,100 characters → 201 or 422 naming the field, not 409 concurrent_update', async () => {
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'N'.repeat(2100) }) });
    expect(res.body.errors?.[0]?.code).not.toBe('concurrent_update');
    expect([201, 422]).toContain(res.status);
    if (res.status === 422) expect(res.body.errors[0].source).toEqual({ pointer: '/data/attributes/name' });
  });
});
