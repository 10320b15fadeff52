import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '#lib/jsonapi/engine.ts';
import { MAX_NESTING_DEPTH } from '#lib/jsonapi/input-values.ts';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { createPlate, createRack, createSample, createTube } from '../support/fixtures.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { refused } from '../support/table.ts';
import { WRITES, type Write } from '../support/writes.ts';

/**
 * Input built to break the service rather than to use it, through the real handler: values nested far
 * deeper than any attribute needs, metadata keys that are special to JavaScript objects, and Host /
 * X-Forwarded-* headers that would put something other than this service's URL into links. Each must be a
 * 4xx (or be handled faithfully) and write nothing; none may be a 500.
 */

const CMC = 'custom_metadatum_collections';
let admin: string;
let sampleId: string;
let plateId: string;

beforeAll(async () => {
  await freshStore();
  admin = await idOf('users', 'login', 'admin');
  sampleId = (await createSample()).id;
  plateId = (await createPlate()).id;
});

// ---------------------------------------------------------------------------------------------------------
// Deep nesting

/** JSON text of a value nested `depth` levels deep: arrays (`[[[1]]]`) or objects (`{"a":{"a":1}}`). */
const nested = (depth: number, kind: 'array' | 'object', leaf = '1'): string =>
  kind === 'array' ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

/** A write body as text with one attribute's value given as raw JSON. */
const rawDoc = (type: string, attributes: Record<string, string>, id?: string) =>
  `{"data":{"type":"${type}"${id ? `,"id":"${id}"` : ''},"attributes":{${Object.entries(attributes)
    .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
    .join(',')}}}}`;

describe('values nested deeper than any attribute needs', () => {
  // [method, type, attribute]: every writable type, through attributes of each kind (string, map, object of objects).
  const targets: [string, string, string][] = [
    ['POST', 'samples', 'name'],
    ['PATCH', 'samples', 'site_sample_id'],
    ['POST', 'sample_metadata', 'cohort'],
    ['POST', 'plates', 'barcode'],
    ['POST', 'tubes', 'name'],
    ['POST', 'tube_racks', 'tube_locations'],
    ['POST', CMC, 'metadata'],
    ['PATCH', CMC, 'metadata'],
  ];

  it.each(targets)('%s %s: 3,000 levels (a 6 KB body) in %s → 422 naming the attribute and the maximum depth', async (method, type, attribute) => {
    // PATCH needs a record to address (a sample, a collection).
    const id =
      method === 'POST'
        ? undefined
        : type === 'samples'
          ? sampleId
          : (await call('POST', `/api/v2/${CMC}`, { body: doc(CMC, { user_id: admin, asset_id: (await createPlate()).id, metadata: {} }) })).body.data.id;
    for (const kind of ['array', 'object'] as const) {
      const body = rawDoc(type, { [attribute]: nested(3000, kind) }, id);
      expect(body.length).toBeGreaterThan(6000);
      const res = await refused(method, id ? `/api/v2/${type}/${id}` : `/api/v2/${type}`, body);
      const error = expectError(res, 422, 'invalid_value', `/data/attributes/${attribute}`);
      expect(error.detail).toContain(attribute);
      expect(error.detail).toContain(`at most ${MAX_NESTING_DEPTH} levels`);
    }
  });

  it('half a million levels (a body just under the 1 MiB limit) → 422, not a stack overflow', async () => {
    const body = rawDoc('samples', { name: nested(500_000, 'array') });
    expect(body.length).toBeLessThan(1024 * 1024);
    const res = await refused('POST', '/api/v2/samples', body);
    expectError(res, 422, 'invalid_value', '/data/attributes/name');
  });

  it(`${MAX_NESTING_DEPTH} levels pass the depth check (and meet the attribute's own schema); ${MAX_NESTING_DEPTH + 1} do not`, async () => {
    const within = await refused('POST', '/api/v2/samples', rawDoc('samples', { name: nested(MAX_NESTING_DEPTH, 'array', '"x"') }));
    expect(expectError(within, 422, 'invalid_type', '/data/attributes/name').detail).not.toContain('levels');
    const beyond = await refused('POST', '/api/v2/samples', rawDoc('samples', { name: nested(MAX_NESTING_DEPTH + 1, 'array', '"x"') }));
    expect(expectError(beyond, 422, 'invalid_value', '/data/attributes/name').detail).toContain(`at most ${MAX_NESTING_DEPTH} levels`);
  });

  it('deep values anywhere else in the document (type, id, relationships, unknown members) → 4xx', async () => {
    const deep = nested(200_000, 'array');
    const bodies: [string, string, string][] = [
      ['POST', '/api/v2/samples', `{"data":{"type":${deep}}}`],
      ['POST', '/api/v2/samples', `{"data":${deep}}`],
      ['POST', '/api/v2/samples', deep],
      ['PATCH', `/api/v2/samples/${sampleId}`, `{"data":{"type":"samples","id":${deep},"attributes":{}}}`],
      ['POST', '/api/v2/samples', `{"data":{"type":"samples","relationships":{"studies":{"data":${deep}}}}}`],
      ['POST', '/api/v2/samples', `{"data":{"type":"samples","relationships":{"studies":{"data":[${deep}]}}}}`],
      ['POST', '/api/v2/samples', `{"data":{"type":"samples","relationships":{"sample_metadata":{"data":{"type":"sample_metadata","id":${deep}}}}}}`],
      ['POST', '/api/v2/samples', `{"data":{"type":"samples","attributes":{"colour":${deep}}}}`],
    ];
    for (const [method, path, body] of bodies) {
      const res = await refused(method, path, body);
      expect(res.status, `${body.slice(0, 80)} → ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
    }
    // Members the service does not read (top-level and resource meta) are ignored, however deep.
    for (const body of [`{"data":{"type":"samples","attributes":{}},"meta":${deep}}`, `{"data":{"type":"samples","meta":${deep}}}`]) {
      expect((await call('POST', '/api/v2/samples', { body })).status).toBe(201);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// Metadata keys special to JavaScript objects

describe('custom metadata keys that are special to JavaScript objects', () => {
  /** A collection body as text, so `__proto__` is sent as an own key (a JS object literal would set the prototype). */
  const postBody = (asset: string, metadata: string) =>
    `{"data":{"type":"${CMC}","attributes":{"user_id":${admin},"asset_id":${asset},"metadata":${metadata}}}}`;
  const patchBody = (id: string, metadata: string) => `{"data":{"type":"${CMC}","id":"${id}","attributes":{"metadata":${metadata}}}}`;

  it.each(['__proto__', 'constructor', 'prototype'])('%s is refused with a 422 naming the key, on POST and on PATCH, and nothing is written', async (key) => {
    const plate = await createPlate();
    const metadata = `{"a":"b",${JSON.stringify(key)}:"x"}`;
    const post = await refused('POST', `/api/v2/${CMC}`, postBody(plate.id, metadata));
    const error = expectError(post, 422, 'invalid_value', `/data/attributes/metadata/${key}`);
    expect(error.detail).toContain(key);

    const created = await call('POST', `/api/v2/${CMC}`, { body: postBody(plate.id, '{"a":"b"}') });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id;
    const patch = await refused('PATCH', `/api/v2/${CMC}/${id}`, patchBody(id, metadata));
    expect(expectError(patch, 422, 'invalid_value', `/data/attributes/metadata/${key}`).detail).toContain(key);
    // Also as an object value rather than a string (the prototype setter would take an object).
    const asObject = await refused('PATCH', `/api/v2/${CMC}/${id}`, patchBody(id, `{${JSON.stringify(key)}:{"polluted":"yes"}}`));
    expect(asObject.status).toBe(422);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await call('GET', `/api/v2/${CMC}/${id}`)).body.data.attributes.metadata).toEqual({ a: 'b' });
  });

  it('other keys named like Object.prototype members are ordinary keys: stored and returned as sent, on POST and PATCH', async () => {
    const plate = await createPlate();
    const keys = ['toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'Prototype', 'Constructor', '__PROTO__'];
    const metadata = Object.fromEntries(keys.map((k, i) => [k, `v${i}`]));
    const post = await call('POST', `/api/v2/${CMC}`, { body: postBody(plate.id, JSON.stringify(metadata)) });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    expect(post.body.data.attributes.metadata).toEqual(metadata);
    const id = post.body.data.id;
    expect((await call('GET', `/api/v2/${CMC}/${id}`)).body.data.attributes.metadata).toEqual(metadata);

    const changed = Object.fromEntries(keys.map((k, i) => [k, `w${i}`]));
    const patch = await call('PATCH', `/api/v2/${CMC}/${id}`, { body: patchBody(id, JSON.stringify(changed)) });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    expect(patch.body.data.attributes.metadata).toEqual(changed);
    expect((await call('GET', `/api/v2/${CMC}/${id}`)).body.data.attributes.metadata).toEqual(changed);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Values DynamoDB or JavaScript cannot keep: numbers, reserved keys, lone surrogates (one rule for every
// attribute: lib/jsonapi/input-values.ts; every attribute of every type is checked in test/unit/document.test.ts)

/** A write's body as text, with the JSON string `"__HOSTILE__"` (a value or a key) replaced by raw JSON text. */
const withRaw = (write: Write, raw: string) => JSON.stringify(write.body).replace('"__HOSTILE__"', raw);

describe('numbers DynamoDB cannot store exactly and keys special to JavaScript objects, in free-form JSON', () => {
  // As sent: JSON.parse turns 9007199254740993 into 9007199254740992, which is refused as imprecise.
  const numbers = ['1e308', '1e-308', '1e21', '9007199254740993', '-1e400'];
  const keys = ['constructor', '__proto__', 'prototype'];

  it.each(numbers)('an order’s request_options holding %s → 422 at the option, nothing written', async (number) => {
    const write = await WRITES['POST orders (from a submission template, as Limber makes them)']!.make();
    (write.body as any).data.attributes.submission_template_attributes.request_options.hostile = '__HOSTILE__';
    const error = expectError(
      await refused('POST', write.path, withRaw(write, number)),
      422,
      'invalid_value',
      '/data/attributes/submission_template_attributes/request_options/hostile',
    );
    expect(error.detail).toMatch(/^submission_template_attributes\.request_options\.hostile - .* (is past|is nearer 0)/);
  });

  it.each(numbers)('a transfer request collection’s volume of %s (or that many digits as text) → 422 at the volume, nothing written', async (number) => {
    const write = await WRITES['POST transfer_request_collections']!.make();
    (write.body as any).data.attributes.transfer_requests_attributes[0].volume = '__HOSTILE__';
    const at = '/data/attributes/transfer_requests_attributes/0/volume';
    expectError(await refused('POST', write.path, withRaw(write, number)), 422, 'invalid_value', at);
    // Limber sends volumes as decimal text: digits that make such a number are refused the same way.
    const digits = number === '1e-308' ? `"0.${'0'.repeat(307)}1"` : number === '1e21' ? `"1${'0'.repeat(21)}"` : undefined;
    if (digits) expectError(await refused('POST', write.path, withRaw(write, digits)), 422, 'invalid_value', at);
  });

  it.each(keys)('a %s key in request_options → 422 naming the key, nothing written', async (key) => {
    const write = await WRITES['POST orders (from a submission template, as Limber makes them)']!.make();
    (write.body as any).data.attributes.submission_template_attributes.request_options = { __HOSTILE__: 'x' };
    const res = await refused('POST', write.path, withRaw(write, JSON.stringify(key)));
    const error = expectError(res, 422, 'invalid_value', `/data/attributes/submission_template_attributes/request_options/${key}`);
    expect(error.detail).toContain(`"${key}" is reserved`);
  });

  it('2^53 − 1 and 1e-130 are stored and read back exactly', async () => {
    const write = await WRITES['POST orders (from a submission template, as Limber makes them)']!.make();
    const options = (write.body as any).data.attributes.submission_template_attributes.request_options;
    Object.assign(options, { largest: 9007199254740991, smallest: 1e-130, negative: -9007199254740991 });
    const created = await call('POST', write.path, { body: write.body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = (await call('GET', `/api/v2/orders/${created.body.data.id}`)).body.data.attributes.request_options;
    expect(read).toMatchObject({ largest: 9007199254740991, smallest: 1e-130, negative: -9007199254740991 });
  });
});

describe('strings that are not well-formed Unicode (a lone UTF-16 surrogate), anywhere in a write document', () => {
  const bulk = (keys: string[], plate: string) =>
    `{"data":[${keys.map((key) => `{"type":"poly_metadata","attributes":{"key":"${key}","value":"v"},"relationships":{"metadatable":{"data":{"type":"plates","id":"${plate}"}}}}`).join(',')}]}`;

  it('two poly_metadata keys each holding a lone surrogate, on one record → 422 at each key at once: no retries, nothing written', async () => {
    const plate = (await createPlate()).id;
    const res = await refused('POST', '/api/v2/poly_metadata/bulk_create', bulk(['a\\ud800', 'a\\udc00'], plate));
    expect(res.body.errors.map((e: any) => [e.status, e.code, e.source.pointer])).toEqual([
      ['422', 'invalid_value', '/data/0/attributes/key'],
      ['422', 'invalid_value', '/data/1/attributes/key'],
    ]);
    expect(res.body.errors[0].detail).toContain('lone surrogate U+D800');
    // Refused before anything is read: no DynamoDB call at all.
    expect(res.calls).toBe(0);
    // One at a time too, and a pair (a whole character) is an ordinary key.
    const one = `{"data":{"type":"poly_metadata","attributes":{"key":"\\udfff","value":"v"},"relationships":{"metadatable":{"data":{"type":"plates","id":"${plate}"}}}}}`;
    expectError(await refused('POST', '/api/v2/poly_metadata', one), 422, 'invalid_value', '/data/attributes/key');
    const paired = await call('POST', '/api/v2/poly_metadata/bulk_create', { body: bulk(['\\ud83d\\ude00', 'b\\u00e9'], plate) });
    expect(paired.status, JSON.stringify(paired.body)).toBe(201);
    expect(paired.body.data.map((r: any) => r.attributes.key)).toEqual(['\u{1F600}', 'b\u00e9']);
  });

  it('in a type, an id, linkage, a member name, a value or a key → 4xx at its pointer, nothing written', async () => {
    const studyA = await idOf('studies', 'name', 'Study A');
    const cases: [string, string, string, number, string][] = [
      ['POST', '/api/v2/samples', '{"data":{"type":"samples\\ud800"}}', 409, '/data/type'],
      ['PATCH', `/api/v2/samples/${sampleId}`, `{"data":{"type":"samples","id":"${sampleId}\\ud800","attributes":{}}}`, 409, '/data/id'],
      [
        'POST',
        '/api/v2/samples',
        '{"data":{"type":"samples","relationships":{"studies":{"data":[{"type":"studies","id":"1\\udc00"}]}}}}',
        400,
        '/data/relationships/studies/data/0/id',
      ],
      [
        'POST',
        '/api/v2/samples',
        `{"data":{"type":"samples","relationships":{"studies":{"data":[{"type":"studies\\udc00","id":"${studyA}"}]}}}}`,
        400,
        '/data/relationships/studies/data/0/type',
      ],
      ['POST', '/api/v2/samples', '{"data":{"type":"samples","attributes":{"name\\ud800":"x"}}}', 400, '/data/attributes/name\ud800'],
      ['POST', '/api/v2/samples', '{"data":{"type":"samples","relationships":{"studies\\ud800":{"data":[]}}}}', 400, '/data/relationships/studies\ud800'],
      ['POST', '/api/v2/samples', '{"data":{"type":"samples","attributes":{"site_sample_id":"S\\udbff-1"}}}', 422, '/data/attributes/site_sample_id'],
      [
        'POST',
        `/api/v2/${CMC}`,
        `{"data":{"type":"${CMC}","attributes":{"user_id":${admin},"asset_id":${plateId},"metadata":{"\\ud800":"v"}}}}`,
        422,
        `/data/attributes/metadata/\ud800`,
      ],
      [
        'POST',
        `/api/v2/${CMC}`,
        `{"data":{"type":"${CMC}","attributes":{"user_id":${admin},"asset_id":${plateId},"metadata":{"k":"\\udc00"}}}}`,
        422,
        '/data/attributes/metadata/k',
      ],
    ];
    for (const [method, path, body, status, at] of cases) expectError(await refused(method, path, body), status, undefined, at);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Links from Host / X-Forwarded-* headers

/** Every link of a response: each string under a `links` member anywhere in the document, and Location. */
function linksOf(res: CallResult): string[] {
  const found: string[] = [];
  const walk = (value: unknown, inLinks: boolean) => {
    if (typeof value === 'string') {
      if (inLinks) found.push(value);
    } else if (Array.isArray(value)) {
      for (const v of value) walk(v, false);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, inLinks || k === 'links');
    }
  };
  walk(res.body, false);
  if (res.headers.Location) found.push(res.headers.Location);
  return found;
}

/** RFC 3986 URI characters (after percent-encoding). */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/** Checks that every link is a valid absolute http(s) URI on `origin`; returns how many there were. */
function expectLinksOn(res: CallResult, origin: string): number {
  const links = linksOf(res);
  for (const link of links) {
    expect(link, link).toMatch(URI_CHARACTERS);
    const url = new URL(link);
    expect(['http:', 'https:']).toContain(url.protocol);
    expect(url.origin, link).toBe(origin);
    expect(url.username + url.password, link).toBe('');
    expect(url.href, link).toBe(link);
  }
  return links.length;
}

describe('an Idempotency-Key too long to key the stored request', () => {
  it(`past ${MAX_IDEMPOTENCY_KEY_LENGTH} characters → 400 invalid_header naming it, nothing written; ${MAX_IDEMPOTENCY_KEY_LENGTH} are fine`, async () => {
    const tooLong = await refused('POST', '/api/v2/samples', doc('samples', {}), { 'idempotency-key': 'k'.repeat(3000) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0]).toMatchObject({ code: 'invalid_header', source: { header: 'Idempotency-Key' } });
    expect(
      (await call('POST', '/api/v2/samples', { body: doc('samples', {}), headers: { 'idempotency-key': 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH) } })).status,
    ).toBe(201);
  });
});

describe('links are built only from a well-formed Host', () => {
  const get = (headers: Record<string, string>) => call('GET', `/api/v2/plates/${plateId}?include=wells`, { headers });
  const list = (headers: Record<string, string>) => call('GET', '/api/v2/samples?page[size]=1', { headers });

  afterEach(() => {
    delete process.env.LTS_BASE_URL;
    resetConfig();
  });

  it('a normal Host gives links on that host, with X-Forwarded-Proto', async () => {
    expect(expectLinksOn(await get({ host: 'lts.test', 'x-forwarded-proto': 'https' }), 'https://lts.test')).toBeGreaterThan(10);
    expect(expectLinksOn(await list({ host: 'LTS.test:8443', 'x-forwarded-proto': 'http' }), 'http://lts.test:8443')).toBeGreaterThan(3);
    expect(expectLinksOn(await get({ host: '10.0.0.7:3000' }), 'https://10.0.0.7:3000')).toBeGreaterThan(10);
    expect(expectLinksOn(await get({ host: '[::1]:3000', 'x-forwarded-proto': 'http' }), 'http://[::1]:3000')).toBeGreaterThan(10);
  });

  const hostileHosts = [
    'evil.example/path',
    'user@evil.example',
    'user:pw@lts.test',
    'javascript://alert(1)',
    'javascript:alert(1)',
    'lts.test:99999',
    'lts.test:0',
    'lts.test:80:80',
    'lts.test:http',
    '[::1',
    '[zz::1]',
    '[::1]x',
    'lts test',
    'lts.test\r\nSet-Cookie: a=b',
    '<script>.test',
    'lts.test#frag',
    'lts.test?q=1',
    'lts.test\\evil.example',
    '%6cts.test',
    'exämple.test',
    '-lts.test',
    'lts-.test',
    'lts..test',
    '.',
    '999.1.1.1',
    `${'a'.repeat(64)}.test`,
    `${'a.'.repeat(130)}test`,
  ];

  it.each(hostileHosts)('Host %j → 400 naming the Host header (no links, nothing written)', async (host) => {
    for (const res of [await get({ host }), await list({ host }), await refused('POST', '/api/v2/samples', doc('samples', {}), { host })]) {
      expect(expectError(res, 400, 'invalid_header').source).toEqual({ header: 'Host' });
      expect(linksOf(res)).toEqual([]);
    }
    // Authentication still comes first: without a key the answer is 401, whatever the Host.
    expectError(await call('GET', '/api/v2/samples', { key: null, headers: { host } }), 401, 'unauthorized');
  });

  it('without a Host header, links use localhost', async () => {
    expectLinksOn(await get({ host: '' }), 'https://localhost');
  });

  const forwardedHosts = ['evil.example', 'evil.example:8080', 'javascript://x', 'a b', 'user@evil.example', '', 'lts.test, evil.example'];
  it.each(forwardedHosts)('X-Forwarded-Host %j is ignored (clients can send anything there): links use Host', async (forwarded) => {
    expectLinksOn(await get({ host: 'lts.test', 'x-forwarded-host': forwarded }), 'https://lts.test');
    const created = await call('POST', '/api/v2/samples', { body: doc('samples', {}), headers: { host: 'lts.test', 'x-forwarded-host': forwarded } });
    expect(created.status).toBe(201);
    expectLinksOn(created, 'https://lts.test');
  });

  const forwardedProtos: [string, string][] = [
    ['javascript', 'https'],
    ['ftp', 'https'],
    ['https://evil.example', 'https'],
    ['http:', 'https'],
    ['', 'https'],
    ['HTTP', 'http'],
    ['http, https', 'http'],
    [' https ', 'https'],
  ];
  it.each(forwardedProtos)('X-Forwarded-Proto %j → links in %s', async (proto, scheme) => {
    expectLinksOn(await get({ host: 'lts.test', 'x-forwarded-proto': proto }), `${scheme}://lts.test`);
  });

  it('LTS_BASE_URL, when set, is used whatever the headers say', async () => {
    process.env.LTS_BASE_URL = 'https://lims.example.org/';
    resetConfig();
    for (const host of ['lts.test', 'evil.example/x', 'javascript://x']) {
      const res = await get({ host, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' });
      expect(res.status).toBe(200);
      expectLinksOn(res, 'https://lims.example.org');
    }
  });

  it('more hostile values on the other write types: every link is on the Host, or the request is a 400', async () => {
    const rack = await createRack();
    const tube = await createTube();
    for (const host of ['lts.test', 'evil.example/x']) {
      const headers = { host, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' };
      for (const res of [
        await call('PATCH', `/api/v2/tube_racks/${rack.id}`, { body: doc('tube_racks', { size: 96 }, undefined, rack.id), headers }),
        await call('GET', `/api/v2/tubes/${tube.id}/relationships/aliquots`, { headers }),
        await call('GET', `/api/v2/labware?filter[barcode]=${tube.attributes.labware_barcode.human_barcode}`, { headers }),
      ]) {
        if (host === 'lts.test') expect(expectLinksOn(res, 'https://lts.test')).toBeGreaterThan(0);
        else expectError(res, 400, 'invalid_header');
      }
    }
  });
});
