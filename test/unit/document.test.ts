import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseFieldsets } from '#lib/jsonapi/fieldsets.ts';
import { checkFilterNames } from '#lib/jsonapi/filters.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, parsePage, parseSort } from '#lib/jsonapi/paging.ts';
import { parseId, parseWriteDocument, type ParsedWrite, type WriteMode } from '#lib/jsonapi/document.ts';
import { JsonApiError } from '#lib/jsonapi/errors.ts';
import { parseIncludes, type IncludeTree } from '#lib/jsonapi/include.ts';
import { parseQuery } from '#lib/jsonapi/query.ts';
import type { ResourceDef } from '#lib/jsonapi/resource.ts';
import { MAX_STRING_LENGTH } from '#lib/jsonapi/input-values.ts';
import { validateValues } from '#lib/jsonapi/write.ts';
import { registry } from '#lib/resources/index.ts';

const samples = registry.require('samples');
const sampleMetadata = registry.require('sample_metadata');

/** The JsonApiError `fn` throws; fails when it returns or throws anything else. */
function thrown(fn: () => unknown): JsonApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof JsonApiError) return error;
    throw error;
  }
  throw new Error('expected a JsonApiError, but the call returned');
}

/** Either the value or the JsonApiError; any other exception is rethrown with the input, failing the property. */
function attempt<T>(fn: () => T, input: unknown): T | JsonApiError {
  try {
    return fn();
  } catch (error) {
    if (error instanceof JsonApiError) return error;
    let shown: string;
    try {
      shown = JSON.stringify(input)?.slice(0, 400) ?? String(input);
    } catch {
      shown = String(input);
    }
    throw new Error(`threw ${(error as Error)?.constructor?.name} (${(error as Error)?.message}) instead of a JsonApiError for ${shown}`, { cause: error });
  }
}

function expectClientError(error: JsonApiError, statuses?: number[]): void {
  expect(error.status).toBeGreaterThanOrEqual(400);
  expect(error.status).toBeLessThan(500);
  if (statuses) expect(statuses).toContain(error.status);
  expect(error.errors.length).toBeGreaterThan(0);
  for (const e of error.errors) {
    expect(Number(e.status)).toBeGreaterThanOrEqual(400);
    expect(Number(e.status)).toBeLessThan(500);
    expect(e.code).toMatch(/^[a-z_]+$/);
    expect(typeof e.title).toBe('string');
    expect(typeof e.detail).toBe('string');
  }
}

const create = (def: ResourceDef, body: unknown) => parseWriteDocument(registry, def, body, 'create');
const update = (def: ResourceDef, body: unknown, id: number) => parseWriteDocument(registry, def, body, 'update', id);

describe('parseWriteDocument: envelope', () => {
  it('accepts a minimal valid POST and PATCH', () => {
    expect(create(samples, { data: { type: 'samples' } })).toEqual({ attributes: {}, links: {} });
    expect(create(samples, { data: { type: 'samples', attributes: { name: 'S1' } } })).toEqual({ attributes: { name: 'S1' }, links: {} });
    expect(update(samples, { data: { type: 'samples', id: '7', attributes: { site_sample_id: 'x' } } }, 7)).toEqual({
      attributes: { site_sample_id: 'x' },
      links: {},
    });
    // The id may be sent as a number.
    expect(update(samples, { data: { type: 'samples', id: 7 } }, 7)).toEqual({ attributes: {}, links: {} });
  });

  it('answers a body without data with 400 pointing at /data', () => {
    const error = thrown(() => create(samples, { meta: {} }));
    expectClientError(error, [400]);
    expect(error.errors[0]!.source).toEqual({ pointer: '/data' });
  });

  it('answers a body that is not an object, or data that is not a resource object, with 400', () => {
    for (const body of [null, [], 'samples', 42, true, { data: null }, { data: [] }, { data: 'samples' }, { data: [{ type: 'samples' }] }]) {
      expectClientError(
        thrown(() => create(samples, body)),
        [400],
      );
    }
  });

  it('answers a missing or non-string type with 400 at /data/type', () => {
    for (const data of [{}, { type: 1 }, { type: null }, { type: ['samples'] }]) {
      const error = thrown(() => create(samples, { data }));
      expectClientError(error, [400]);
      expect(error.errors[0]!.source).toEqual({ pointer: '/data/type' });
    }
  });

  it('accepts a missing type only where the resource says so', () => {
    expect(parseWriteDocument(registry, samples, { data: { attributes: { name: 'x' } } }, 'create', undefined, [''])).toEqual({
      attributes: { name: 'x' },
      links: {},
    });
    expect(parseWriteDocument(registry, samples, { data: { type: 'sample' } }, 'create', undefined, ['sample'])).toEqual({ attributes: {}, links: {} });
  });

  it('answers a type mismatch with 409', () => {
    for (const type of ['studies', 'sample_metadata', 'Samples', 'sample', '']) {
      const error = thrown(() => create(samples, { data: { type } }));
      expectClientError(error, [409]);
      expect(error.errors[0]!.source).toEqual({ pointer: '/data/type' });
    }
    expectClientError(
      thrown(() => update(sampleMetadata, { data: { type: 'samples', id: '1' } }, 1)),
      [409],
    );
  });

  it('answers a client-generated id on POST with 403', () => {
    for (const id of ['1', 1, 'abc', '']) {
      const error = thrown(() => create(samples, { data: { type: 'samples', id } }));
      expectClientError(error, [403]);
      expect(error.errors[0]!.source).toEqual({ pointer: '/data/id' });
    }
  });

  it('answers a PATCH without id with 400 and with another id with 409', () => {
    const missing = thrown(() => update(samples, { data: { type: 'samples' } }, 5));
    expectClientError(missing, [400]);
    expect(missing.errors[0]!.source).toEqual({ pointer: '/data/id' });
    for (const id of ['6', 6, '05', ' 5', 'five', null]) {
      const error = thrown(() => update(samples, { data: { type: 'samples', id } }, 5));
      expectClientError(error, [409]);
      expect(error.errors[0]!.source).toEqual({ pointer: '/data/id' });
    }
  });

  it('answers attributes or relationships that are not objects with 400', () => {
    for (const member of ['attributes', 'relationships']) {
      for (const value of [null, [], 'x', 1]) {
        const error = thrown(() => create(samples, { data: { type: 'samples', [member]: value } }));
        expectClientError(error, [400]);
        expect(error.errors[0]!.source).toEqual({ pointer: `/data/${member}` });
      }
    }
  });
});

describe('parseWriteDocument: attributes and relationships', () => {
  it('answers unknown attributes with 400 "Param not allowed", one error per key', () => {
    const error = thrown(() => create(samples, { data: { type: 'samples', attributes: { name: 'ok', colour: 'red', weight: 3 } } }));
    expectClientError(error, [400]);
    expect(error.errors.map((e) => e.source?.pointer)).toEqual(['/data/attributes/colour', '/data/attributes/weight']);
    for (const e of error.errors) {
      expect(e.title).toBe('Param not allowed');
      expect(e.code).toBe('param_not_allowed');
    }
  });

  it('answers unknown relationships with 400, one error per key, alongside unknown attributes', () => {
    const error = thrown(() =>
      create(samples, {
        data: { type: 'samples', attributes: { colour: 'red' }, relationships: { owner: { data: null }, studies: { data: [] }, lab: { data: null } } },
      }),
    );
    expectClientError(error, [400]);
    expect(error.errors.map((e) => e.source?.pointer)).toEqual(['/data/attributes/colour', '/data/relationships/owner', '/data/relationships/lab']);
  });

  it('escapes member names in source.pointer as RFC 6901 requires (~ as ~0, / as ~1)', () => {
    const error = thrown(() => create(samples, { data: { type: 'samples', attributes: { '~': 1, 'a/b': 2 }, relationships: { 'x~/y': { data: null } } } }));
    expectClientError(error, [400]);
    expect(error.errors.map((e) => e.source?.pointer)).toEqual(['/data/attributes/~0', '/data/attributes/a~1b', '/data/relationships/x~0~1y']);
  });

  // Bodies are built from JSON text, as the handler does, so `__proto__` is an own key.
  const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'];

  it.each(PROTOTYPE_NAMES)('answers an attribute named %s (inherited from Object.prototype) like any unknown attribute', (name) => {
    for (const mode of ['create', 'update'] as const) {
      const body = JSON.parse(`{"data":{"type":"samples",${mode === 'update' ? '"id":"1",' : ''}"attributes":{"${name}":"x"}}}`);
      const error = thrown(() => parseWriteDocument(registry, samples, body, mode, 1));
      expectClientError(error, [400]);
      expect(error.errors.map((e) => [e.code, e.source?.pointer])).toEqual([['param_not_allowed', `/data/attributes/${name}`]]);
    }
  });

  it.each(PROTOTYPE_NAMES)('answers a relationship named %s (inherited from Object.prototype) like any unknown relationship', (name) => {
    for (const linkage of ['null', '{"type":"studies","id":"1"}', '[]', '[{"type":"studies","id":"1"}]']) {
      const body = JSON.parse(`{"data":{"type":"samples","relationships":{"${name}":{"data":${linkage}}}}}`);
      const error = thrown(() => create(samples, body));
      expectClientError(error, [400]);
      expect(error.errors.map((e) => [e.code, e.source?.pointer])).toEqual([['param_not_allowed', `/data/relationships/${name}`]]);
    }
  });

  it('answers read-only attributes with 400 on POST and PATCH', () => {
    const onCreate = thrown(() => create(samples, { data: { type: 'samples', attributes: { uuid: 'x', name: 'ok' } } }));
    expectClientError(onCreate, [400]);
    expect(onCreate.errors).toHaveLength(1);
    expect(onCreate.errors[0]).toMatchObject({ code: 'param_not_allowed', source: { pointer: '/data/attributes/uuid' } });
    expect(onCreate.errors[0]!.detail).toMatch(/read-only/);
    const onUpdate = thrown(() => update(samples, { data: { type: 'samples', id: '1', attributes: { uuid: 'x' } } }, 1));
    expectClientError(onUpdate, [400]);
  });

  it('answers write-once relationships with 400 on PATCH only', () => {
    expect(create(sampleMetadata, { data: { type: 'sample_metadata', relationships: { sample: { data: { type: 'samples', id: '3' } } } } }).links).toEqual({
      sample: { type: 'samples', id: 3 },
    });
    const error = thrown(() =>
      update(sampleMetadata, { data: { type: 'sample_metadata', id: '2', relationships: { sample: { data: { type: 'samples', id: '3' } } } } }, 2),
    );
    expectClientError(error, [400]);
    expect(error.errors[0]).toMatchObject({ code: 'param_not_allowed', source: { pointer: '/data/relationships/sample' } });
  });

  it('parses to-one linkage: an object with type and id (string or number), or null', () => {
    expect(create(samples, { data: { type: 'samples', relationships: { sample_metadata: { data: { type: 'sample_metadata', id: '12' } } } } }).links).toEqual({
      sample_metadata: { type: 'sample_metadata', id: 12 },
    });
    expect(create(samples, { data: { type: 'samples', relationships: { sample_metadata: { data: { type: 'sample_metadata', id: 12 } } } } }).links).toEqual({
      sample_metadata: { type: 'sample_metadata', id: 12 },
    });
    expect(create(samples, { data: { type: 'samples', relationships: { sample_metadata: { data: null } } } }).links).toEqual({ sample_metadata: null });
  });

  it('parses to-many linkage: an array, possibly empty; aliases map to the canonical type', () => {
    const parsed = create(samples, {
      data: {
        type: 'samples',
        relationships: {
          studies: {
            data: [
              { type: 'studies', id: '1' },
              { type: 'studies', id: 2 },
            ],
          },
          component_samples: {
            data: [
              { type: 'component_samples', id: '4' },
              { type: 'samples', id: '5' },
            ],
          },
        },
      },
    });
    expect(parsed.links).toEqual({
      studies: [
        { type: 'studies', id: 1 },
        { type: 'studies', id: 2 },
      ],
      component_samples: [
        { type: 'samples', id: 4 },
        { type: 'samples', id: 5 },
      ],
    });
    expect(create(samples, { data: { type: 'samples', relationships: { studies: { data: [] } } } }).links).toEqual({ studies: [] });
  });

  it('answers malformed linkage with 400 at the linkage', () => {
    const cases: [unknown, string][] = [
      [{ type: 'studies', id: '1' }, '/data/relationships/studies'], // not a relationship object
      [null, '/data/relationships/studies'],
      [{}, '/data/relationships/studies'], // no data member
      [{ data: { type: 'studies', id: '1' } }, '/data/relationships/studies/data'], // to-many given an object
      [{ data: null }, '/data/relationships/studies/data'], // to-many given null
      [{ data: [{ type: 'studies' }] }, '/data/relationships/studies/data/0'], // no id
      [{ data: [{ id: '1' }] }, '/data/relationships/studies/data/0'], // no type
      [{ data: [{ type: 1, id: '1' }] }, '/data/relationships/studies/data/0'], // type not a string
      [{ data: ['1'] }, '/data/relationships/studies/data/0'],
    ];
    for (const [value, pointer] of cases) {
      const error = thrown(() => create(samples, { data: { type: 'samples', relationships: { studies: value } } }));
      expectClientError(error, [400]);
      expect(error.errors).toHaveLength(1);
      expect(error.errors[0]!.source?.pointer).toBe(pointer);
    }
    const toOneArray = thrown(() =>
      create(samples, { data: { type: 'samples', relationships: { sample_metadata: { data: [{ type: 'sample_metadata', id: '1' }] } } } }),
    );
    expectClientError(toOneArray, [400]);
  });

  it('answers a malformed id in linkage with 400 at …/id', () => {
    for (const id of ['0', 0, -1, '1.5', 1.5, 'abc', '', null, '1e3', true, {}]) {
      const error = thrown(() => create(samples, { data: { type: 'samples', relationships: { sample_metadata: { data: { type: 'sample_metadata', id } } } } }));
      expectClientError(error, [400]);
      expect(error.errors[0]).toMatchObject({ code: 'invalid_id', source: { pointer: '/data/relationships/sample_metadata/data/id' } });
    }
  });

  it('answers linkage of a type the relationship does not take with 400 at …/type', () => {
    const error = thrown(() =>
      create(samples, {
        data: {
          type: 'samples',
          relationships: {
            studies: {
              data: [
                { type: 'studies', id: '1' },
                { type: 'users', id: '1' },
              ],
            },
          },
        },
      }),
    );
    expectClientError(error, [400]);
    expect(error.errors[0]).toMatchObject({ code: 'type_mismatch', source: { pointer: '/data/relationships/studies/data/1/type' } });
  });

  it('reports one error per offending relationship', () => {
    const error = thrown(() =>
      create(samples, {
        data: {
          type: 'samples',
          relationships: { studies: { data: [{ type: 'users', id: '1' }] }, sample_metadata: { data: { type: 'sample_metadata', id: 'x' } } },
        },
      }),
    );
    expect(error.errors.map((e) => e.source?.pointer)).toEqual(['/data/relationships/studies/data/0/type', '/data/relationships/sample_metadata/data/id']);
  });
});

describe('validateValues', () => {
  const values = (def: ResourceDef, attributes: Record<string, unknown>) => validateValues(def, { attributes, links: {} });

  it('passes valid values through, and null as null', () => {
    expect(values(samples, { name: 'S-1_a', control: true, control_type: 'negative', site_sample_id: null })).toEqual({
      name: 'S-1_a',
      control: true,
      control_type: 'negative',
      site_sample_id: null,
    });
  });

  it('answers a value of the wrong JSON type with 422 invalid_type', () => {
    const error = thrown(() => values(samples, { control: 'yes', site_sample_id: 5 }));
    expectClientError(error, [422]);
    expect(error.errors.map((e) => [e.code, e.source?.pointer])).toEqual([
      ['invalid_type', '/data/attributes/control'],
      ['invalid_type', '/data/attributes/site_sample_id'],
    ]);
  });

  it('answers a value out of its domain with 422 invalid_value naming the field and the value', () => {
    const error = thrown(() => values(samples, { name: 'has space', control_type: 'weird' }));
    expectClientError(error, [422]);
    expect(error.errors.map((e) => e.source?.pointer)).toEqual(['/data/attributes/name', '/data/attributes/control_type']);
    expect(error.errors[0]!.detail).toContain('has space');
  });

  it(`answers strings over ${MAX_STRING_LENGTH} characters with 422`, () => {
    expect(values(samples, { site_sample_id: 'x'.repeat(MAX_STRING_LENGTH) })).toEqual({ site_sample_id: 'x'.repeat(MAX_STRING_LENGTH) });
    const error = thrown(() => values(samples, { site_sample_id: 'x'.repeat(MAX_STRING_LENGTH + 1) }));
    expectClientError(error, [422]);
  });

  it('points at an over-long string nested in a value with an RFC 6901 pointer', () => {
    const error = thrown(() => values(samples, { site_sample_id: { 'a~b/c': 'x'.repeat(MAX_STRING_LENGTH + 1) } }));
    expectClientError(error, [422]);
    expect(error.errors[0]!.source).toEqual({ pointer: '/data/attributes/site_sample_id/a~0b~1c' });
  });

  it('points at the first over-long string however deep, through array indexes and object keys', () => {
    const long = 'x'.repeat(MAX_STRING_LENGTH + 1);
    const error = thrown(() => values(samples, { site_sample_id: { a: ['short', { 'b/': [1, long] }, long], z: long } }));
    expect(error.errors[0]!.source).toEqual({ pointer: '/data/attributes/site_sample_id/a/1/b~1/1' });
  });

  it('normalises sample_metadata values', () => {
    expect(values(sampleMetadata, { gender: ' female ', cohort: '  ', date_of_sample_collection: '2024-05-01' })).toEqual({
      gender: 'Female',
      cohort: null,
      date_of_sample_collection: '2024-05-01',
    });
    expectClientError(
      thrown(() => values(sampleMetadata, { gender: 'robot' })),
      [422],
    );
    expectClientError(
      thrown(() => values(sampleMetadata, { date_of_sample_collection: '01/05/2024' })),
      [422],
    );
  });

  describe('validateValues: what no attribute value may hold, in every attribute of every type', () => {
    /** Every attribute a client may send (read-only ones only where a create accepts them), of every type. */
    const writable = registry.types.flatMap((type) => {
      const def = registry.require(type);
      return Object.entries(def.attributes)
        .filter(([, attribute]) => attribute.access !== 'R' || attribute.acceptOnCreate)
        .map(([name]) => [def, name] as const);
    });
    /** As JSON.parse hands them over: 9007199254740993 has already become 9007199254740992. */
    const parsed = (json: string): unknown => JSON.parse(json);
    // [what, the value as sent (JSON text), where inside the value the problem is, what the detail says]
    const hostile: [string, string, string, RegExp][] = [
      ['1e308 (past DynamoDB’s largest exponent)', '1e308', '', /1e\+308/],
      ['1e-308 (nearer 0 than DynamoDB stores)', '1e-308', '', /1e-308/],
      ['1e400 (Infinity once parsed)', '1e400', '', /Infinity/],
      ['1e21 (an integer past 2^53)', '1e21', '', /1e\+21/],
      ['9007199254740993 (rounded by JSON.parse)', '9007199254740993', '', /9007199254740992/],
      ['-9007199254740992', '-9007199254740992', '', /-9007199254740992/],
      ['a number deep inside', '{"a":[1,{"b":1e-200}]}', '/a/1/b', /1e-200/],
      ['a constructor key', '{"a":1,"constructor":"x"}', '/constructor', /"constructor" is reserved/],
      ['a __proto__ key', '{"__proto__":{"polluted":true}}', '/__proto__', /"__proto__" is reserved/],
      ['a prototype key, nested', '[{"prototype":1}]', '/0/prototype', /"prototype" is reserved/],
      ['a lone high surrogate', '"a\\ud800b"', '', /lone surrogate U\+D800/],
      ['a lone low surrogate, nested', '{"k":["\\udfff"]}', '/k/0', /lone surrogate U\+DFFF/],
      ['a lone surrogate in a key', '{"\\udc00":"v"}', '/\udc00', /lone surrogate U\+DC00/],
    ];

    it.each(hostile)('%s → 422 invalid_value at the member, naming the attribute', (_what, json, at, detail) => {
      expect(writable.length).toBeGreaterThan(100);
      for (const [def, name] of writable) {
        const error = thrown(() => validateValues(def, { attributes: { [name]: parsed(json) }, links: {} }));
        expect(error.status, `${def.type}.${name}`).toBe(422);
        expect(error.errors, `${def.type}.${name}`).toEqual([
          expect.objectContaining({ code: 'invalid_value', source: { pointer: `/data/attributes/${name}${at}` }, detail: expect.stringMatching(detail) }),
        ]);
        expect(error.errors[0]!.detail, `${def.type}.${name}`).toContain(name);
      }
    });

    it('numbers DynamoDB stores exactly pass: 0, ±2^53 − 1, ±1e-130, fractions', () => {
      const orders = registry.require('orders');
      const options = { zero: 0, negativeZero: -0, max: 9007199254740991, min: -9007199254740991, tiny: 1e-130, small: -1.5e-100, fraction: 0.1 };
      const attributes = { request_options: options, user_uuid: 'u', asset_uuids: ['a'] };
      expect(validateValues(orders, { attributes: { submission_template_attributes: attributes }, links: {} })).toEqual({
        submission_template_attributes: attributes,
      });
    });

    it('numbers a schema makes from text are held to the same rule (a volume or an id sent as digits)', () => {
      const collections = registry.require('transfer_request_collections');
      const entry = (volume: string) => ({ transfer_requests_attributes: [{ source_asset: 'a', target_asset: 'b', volume }] });
      expect(validateValues(collections, { attributes: entry(' 2.5 '), links: {} })).toEqual({
        transfer_requests_attributes: [{ source_asset: 'a', target_asset: 'b', volume: 2.5 }],
      });
      const volume = thrown(() => validateValues(collections, { attributes: entry('100000000000000000000'), links: {} }));
      expect(volume.errors).toEqual([
        expect.objectContaining({ status: '422', code: 'invalid_value', source: { pointer: '/data/attributes/transfer_requests_attributes/0/volume' } }),
      ]);
      const tiny = thrown(() => validateValues(collections, { attributes: entry(`0.${'0'.repeat(140)}1`), links: {} }));
      expect(tiny.errors[0]!.source).toEqual({ pointer: '/data/attributes/transfer_requests_attributes/0/volume' });
      const collection = thrown(() =>
        validateValues(registry.require('custom_metadatum_collections'), { attributes: { user_id: '99999999999999999999' }, links: {} }),
      );
      expect(collection.errors).toEqual([expect.objectContaining({ code: 'invalid_value', source: { pointer: '/data/attributes/user_id' } })]);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties: whatever a client sends, parsing and validation end in a result or a 4xx JsonApiError.
// ---------------------------------------------------------------------------------------------------------

/** Parses then validates, as the engine does; returns the outcome. */
function parseAndValidate(
  def: ResourceDef,
  body: unknown,
  mode: WriteMode,
  urlId?: number,
): { parsed: ParsedWrite; values: Record<string, unknown> } | JsonApiError {
  return attempt(() => {
    const parsed = parseWriteDocument(registry, def, body, mode, urlId, def.acceptedTypes);
    return { parsed, values: validateValues(def, parsed) };
  }, body);
}

/** On success, only the resource's own declared fields may come through, each writable in this mode. */
function checkOutcome(def: ResourceDef, mode: WriteMode, result: ReturnType<typeof parseAndValidate>): void {
  if (result instanceof JsonApiError) {
    expectClientError(result);
    return;
  }
  for (const name of Object.keys(result.parsed.attributes)) {
    expect(Object.hasOwn(def.attributes, name), `attribute ${name} accepted`).toBe(true);
    expect(def.attributes[name]!.access).not.toBe('R');
    if (mode === 'update') expect(def.attributes[name]!.access).not.toBe('WO');
  }
  for (const [name, value] of Object.entries(result.parsed.links)) {
    expect(Object.hasOwn(def.relationships, name), `relationship ${name} accepted`).toBe(true);
    const relationship = def.relationships[name]!;
    expect(relationship.access).not.toBe('R');
    if (mode === 'update') expect(relationship.access).not.toBe('WO');
    const refs = value === null ? [] : Array.isArray(value) ? value : [value];
    if (relationship.kind === 'many') expect(Array.isArray(value)).toBe(true);
    for (const ref of refs) {
      expect(Number.isSafeInteger(ref.id) && ref.id > 0).toBe(true);
      expect(registry.satisfies(ref.type, relationship.types) || relationship.types.includes(ref.type)).toBe(true);
    }
  }
  expect(Object.keys(result.values).sort()).toEqual(Object.keys(result.parsed.attributes).sort());
}

/** Resource types (not definitions, so counterexamples print readably). */
const defs = fc.constantFrom('samples', 'sample_metadata');
const modes = fc.constantFrom<WriteMode>('create', 'update');

/** Names a client might send: the type's own (mostly), the other kind's, near misses, Object.prototype names, noise. */
const fieldName = (own: string[], other: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...own) },
    { weight: 1, arbitrary: fc.constantFrom(...other) },
    { weight: 1, arbitrary: fc.constantFrom('sample_uuid', 'study_uuid', 'id', 'type', 'Name', '', 'links', 'meta') },
    { weight: 1, arbitrary: fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf') },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
const typeName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('samples', 'sample_metadata', 'studies', 'component_samples') },
  { weight: 1, arbitrary: fc.constantFrom('users', 'sample_manifests', 'plates', 'constructor', '') },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const idValue = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 }).map(String)) },
  { weight: 1, arbitrary: fc.constantFrom('0', '01', ' 7 ', '1.0', '1e3', '9999999999999999', 'abc', '', null, true, 1.5, -3, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);
const linkage = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: typeName, id: idValue }) },
  { weight: 1, arbitrary: fc.record({ type: typeName, id: idValue, meta: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);
const relationshipValue = fc.oneof(
  { weight: 6, arbitrary: fc.record({ data: fc.oneof(fc.constant(null), linkage, fc.array(linkage, { maxLength: 3 })) }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const attributeValue = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('S-1', 'negative', 'female', '2024-05-01', '2024-02-30', '', ' ', true, false, null, 'x'.repeat(MAX_STRING_LENGTH + 1)),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
/** Objects around the valid shape of a write document for a type and mode: mostly right, sometimes not. */
const nearValidDocument = (type: string, mode: WriteMode) => {
  const def = registry.require(type);
  const attributeNames = Object.keys(def.attributes);
  const relationshipNames = Object.keys(def.relationships);
  return fc.oneof(
    {
      weight: 10,
      arbitrary: fc.record(
        {
          data: fc.record({
            type: fc.oneof(
              { weight: 15, arbitrary: fc.constant(type) },
              { weight: 1, arbitrary: typeName },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
            ),
            // On update the id is mostly the URL's (1); on create mostly absent (a client id is a 403). Undefined drops out in JSON.
            id:
              mode === 'update'
                ? fc.oneof(
                    { weight: 10, arbitrary: fc.constantFrom('1', 1) },
                    { weight: 1, arbitrary: idValue },
                    { weight: 1, arbitrary: fc.constant(undefined) },
                  )
                : fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: idValue }),
            attributes: fc.oneof(
              { weight: 15, arbitrary: fc.dictionary(fieldName(attributeNames, relationshipNames), attributeValue, { maxKeys: 3 }) },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
            ),
            relationships: fc.oneof(
              { weight: 15, arbitrary: fc.dictionary(fieldName(relationshipNames, attributeNames), relationshipValue, { maxKeys: 3 }) },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
            ),
          }),
          meta: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: ['data'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ data: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }) },
  );
};
const documentCase = fc
  .tuple(fc.constantFrom('samples', 'sample_metadata'), fc.constantFrom<WriteMode>('create', 'update'))
  .chain(([type, mode]) => nearValidDocument(type, mode).map((body) => ({ type, mode, body })));
/** What the handler would parse from the wire: own `__proto__` keys survive, prototypes are plain. */
const asParsedJson = (value: unknown) => JSON.parse(JSON.stringify(value) ?? 'null');

describe('parseWriteDocument + validateValues: properties', () => {
  it('end in a result or a 4xx JsonApiError for arbitrary JSON values', () => {
    fc.assert(
      fc.property(defs, modes, fc.jsonValue(), (type, mode, body) => {
        const def = registry.require(type);
        checkOutcome(def, mode, parseAndValidate(def, body, mode, 1));
      }),
      { numRuns: 500 },
    );
  });

  it('end in a result or a 4xx JsonApiError for documents around the valid shape, accepting only declared writable fields', () => {
    fc.assert(
      fc.property(documentCase, ({ type, mode, body: raw }) => {
        const def = registry.require(type);
        const body = asParsedJson(raw);
        checkOutcome(def, mode, parseAndValidate(def, body, mode, 1));
      }),
      { numRuns: 1000 },
    );
  });

  it('accept every document that names only writable fields with well-formed linkage', () => {
    // Positive control: the generators above are not just producing rejections.
    const writable = (access: string, mode: WriteMode, acceptOnCreate?: boolean) =>
      access === 'RW' || access === 'W' || (mode === 'create' && (access === 'WO' || acceptOnCreate === true));
    const id = fc.integer({ min: 1, max: 10 ** 12 });
    fc.assert(
      fc.property(defs, modes, fc.string({ maxLength: 20 }), id, fc.array(id, { maxLength: 3 }), fc.boolean(), (type, mode, text, one, many, asNumber) => {
        const def = registry.require(type);
        const ref = (t: string, n: number) => ({ type: t, id: asNumber ? n : String(n) });
        const attributes: Record<string, unknown> = Object.fromEntries(
          Object.entries(def.attributes)
            .filter(([, a]) => writable(a.access, mode, a.acceptOnCreate))
            .map(([n]) => [n, null]),
        );
        Object.assign(attributes, def === samples ? { site_sample_id: text } : { cohort: text });
        const relationships = Object.fromEntries(
          Object.entries(def.relationships)
            .filter(([, r]) => writable(r.access, mode, r.acceptOnCreate))
            .map(([n, r]) => [n, { data: r.kind === 'many' ? many.map((m) => ref(r.aliases?.[0] ?? r.types[0]!, m)) : ref(r.types[0]!, one) }]),
        );
        const body = { data: { type: def.type, ...(mode === 'update' ? { id: '3' } : {}), attributes, relationships } };
        const result = parseAndValidate(def, body, mode, 3);
        expect(result).not.toBeInstanceOf(JsonApiError);
        const { parsed } = result as { parsed: ParsedWrite };
        expect(Object.keys(parsed.links).sort()).toEqual(Object.keys(relationships).sort());
      }),
      { numRuns: 200 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Collection parameters, include paths, ids
// ---------------------------------------------------------------------------------------------------------

describe('parseSort', () => {
  it('defaults to id ascending and takes the first key', () => {
    expect(parseSort(undefined)).toEqual({ field: 'id', descending: false });
    expect(parseSort(['-created_at', 'id'])).toEqual({ field: 'created_at', descending: true });
    expect(parseSort(['updated_at'])).toEqual({ field: 'updated_at', descending: false });
  });

  it('answers any other field with 400 invalid_sort at parameter sort', () => {
    for (const sort of [['name'], ['id', 'name'], ['--id'], ['+id'], ['ID'], [' id']]) {
      const error = thrown(() => parseSort(sort));
      expectClientError(error, [400]);
      expect(error.errors[0]).toMatchObject({ code: 'invalid_sort', source: { parameter: 'sort' } });
    }
  });

  it('ends in a sort or a 400 for arbitrary keys, and accepts every list of sortable keys', () => {
    const sortable = fc.constantFrom('id', '-id', 'created_at', '-created_at', 'updated_at', '-updated_at');
    fc.assert(
      fc.property(
        fc.option(fc.array(fc.oneof(sortable, fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 })), { maxLength: 4 })),
        (keys) => {
          const result = attempt(() => parseSort(keys ?? undefined), keys);
          if (result instanceof JsonApiError) expectClientError(result, [400]);
          else expect(['id', 'created_at', 'updated_at']).toContain(result.field);
        },
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.array(sortable, { minLength: 1, maxLength: 4 }), (keys) => {
        expect(parseSort(keys)).toEqual({ field: keys[0]!.replace(/^-/, ''), descending: keys[0]!.startsWith('-') });
      }),
    );
  });

  it('answers an empty sort= with 400 (through parseQuery)', () => {
    expectClientError(
      thrown(() => parseSort(parseQuery('sort=').sort)),
      [400],
    );
  });
});

describe('parsePage', () => {
  const page = (query: string) => parsePage(parseQuery(query), parseSort(undefined));

  it('defaults to page 1 of the default size', () => {
    expect(page('')).toEqual({ number: 1, size: DEFAULT_PAGE_SIZE });
    expect(page('page[number]=3&page[size]=20')).toEqual({ number: 3, size: 20 });
    expect(page(`page[size]=${MAX_PAGE_SIZE}`)).toEqual({ number: 1, size: MAX_PAGE_SIZE });
  });

  it('answers out-of-range and non-integer values with 400 at the parameter', () => {
    for (const [query, parameter] of [
      ['page[number]=0', 'page[number]'],
      ['page[number]=-1', 'page[number]'],
      ['page[number]=1.5', 'page[number]'],
      ['page[number]=abc', 'page[number]'],
      ['page[number]=', 'page[number]'],
      ['page[size]=0', 'page[size]'],
      [`page[size]=${MAX_PAGE_SIZE + 1}`, 'page[size]'],
      ['page[size]=1e2', 'page[size]'],
      ['page[cursor]=not-a-cursor', 'page[cursor]'],
    ] as const) {
      const error = thrown(() => page(query));
      expectClientError(error, [400]);
      expect(error.errors[0]).toMatchObject({ code: 'invalid_page', source: { parameter } });
    }
  });

  it('ends in a page or a 400 for arbitrary values', () => {
    const raw = fc.option(
      fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }), fc.nat().map(String), fc.stringMatching(/^\d{1,30}$/)),
      { nil: undefined },
    );
    fc.assert(
      fc.property(raw, raw, raw, fc.constantFrom('id', '-id', 'updated_at'), (number, size, cursor, sortKey) => {
        const query = {
          ...parseQuery(''),
          page: { ...(number !== undefined ? { number } : {}), ...(size !== undefined ? { size } : {}), ...(cursor !== undefined ? { cursor } : {}) },
        };
        const result = attempt(() => parsePage(query, parseSort([sortKey])), query.page);
        if (result instanceof JsonApiError) expectClientError(result, [400]);
        else {
          expect(Number.isInteger(result.number) && result.number >= 1).toBe(true);
          expect(Number.isInteger(result.size) && result.size >= 1 && result.size <= MAX_PAGE_SIZE).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('ends in a page or a 400 for arbitrary base64url cursors (decoded JSON of any shape)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 2 }), (value) => {
        const cursor = Buffer.from(JSON.stringify(value)).toString('base64url');
        const result = attempt(() => parsePage({ ...parseQuery(''), page: { cursor } }, parseSort(undefined)), value);
        if (result instanceof JsonApiError) expectClientError(result, [400]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseFieldsets and checkFilterNames', () => {
  it('accept declared fields and filters', () => {
    expect(parseFieldsets(registry, new Map([['samples', ['name', 'studies']]]))).toEqual(new Map([['samples', new Set(['name', 'studies'])]]));
    expect(() => checkFilterNames(samples, new Map([['name', ['a']]]))).not.toThrow();
  });

  it('answer an unknown field, type or filter with 400 naming the parameter', () => {
    const field = thrown(() => parseFieldsets(registry, new Map([['samples', ['colour']]])));
    expectClientError(field, [400]);
    expect(field.errors[0]!.source).toEqual({ parameter: 'fields[samples]' });
    expectClientError(
      thrown(() => parseFieldsets(registry, new Map([['widgets', ['name']]]))),
      [400],
    );
    const filter = thrown(() => checkFilterNames(samples, new Map([['colour', ['red']]])));
    expectClientError(filter, [400]);
    expect(filter.errors[0]!.source).toEqual({ parameter: 'filter[colour]' });
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'answer the field and the filter %s (inherited from Object.prototype) with 400',
    (name) => {
      const field = thrown(() => parseFieldsets(registry, new Map([['samples', [name]]])));
      expectClientError(field, [400]);
      expect(field.errors[0]!.source).toEqual({ parameter: 'fields[samples]' });
      const filter = thrown(() => checkFilterNames(samples, new Map([[name, ['x']]])));
      expectClientError(filter, [400]);
      expect(filter.errors[0]!.source).toEqual({ parameter: `filter[${name}]` });
    },
  );
});

describe('parseIncludes', () => {
  const paths = (tree: IncludeTree): string[] => [...tree].flatMap(([name, child]) => [name, ...paths(child).map((p) => `${name}.${p}`)]);

  it('builds a tree of valid dotted paths', () => {
    const tree = parseIncludes(registry, ['samples'], ['studies', 'sample_metadata.sample.studies', 'sample_metadata']);
    expect(paths(tree)).toEqual(['studies', 'sample_metadata', 'sample_metadata.sample', 'sample_metadata.sample.studies']);
    expect(parseIncludes(registry, ['samples'], undefined).size).toBe(0);
  });

  it('answers an unknown relationship anywhere in a path with 400 at parameter include', () => {
    for (const path of ['widgets', 'studies.widgets', 'sample_metadata.sample.colour', '', 'studies.', '.studies']) {
      const error = thrown(() => parseIncludes(registry, ['samples'], [path]));
      expectClientError(error, [400]);
      expect(error.errors[0]!.source).toEqual({ parameter: 'include' });
    }
  });

  it('answers paths over 8 levels or over 20 paths with 400', () => {
    expectClientError(
      thrown(() =>
        parseIncludes(registry, ['samples'], ['sample_metadata.sample.sample_metadata.sample.sample_metadata.sample.sample_metadata.sample.studies']),
      ),
      [400],
    );
    expect(
      paths(parseIncludes(registry, ['samples'], ['sample_metadata.sample.sample_metadata.sample.sample_metadata.sample.sample_metadata.sample'])).length,
    ).toBe(8);
    expectClientError(
      thrown(() =>
        parseIncludes(
          registry,
          ['samples'],
          Array.from({ length: 21 }, () => 'studies'),
        ),
      ),
      [400],
    );
  });

  it.each(['constructor', '__proto__', 'toString', 'studies.constructor', 'sample_metadata.hasOwnProperty'])(
    'answers the include path %s (a name inherited from Object.prototype) with 400',
    (path) => {
      const error = thrown(() => parseIncludes(registry, ['samples'], [path]));
      expectClientError(error, [400]);
      expect(error.errors[0]).toMatchObject({ code: 'invalid_include', source: { parameter: 'include' } });
    },
  );

  it('ends in a tree or a 400 for arbitrary dotted paths', () => {
    const segment = fc.oneof(
      fc.constantFrom('studies', 'sample_metadata', 'sample', 'component_samples', 'sample_manifest', 'users', 'constructor', '__proto__', 'toString', ''),
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
    );
    const path = fc.array(segment, { minLength: 1, maxLength: 7 }).map((s) => s.join('.'));
    const roots = fc.subarray(['samples', 'sample_metadata', 'studies', 'users', 'widgets'], { minLength: 1 });
    fc.assert(
      fc.property(roots, fc.array(path, { maxLength: 22 }), (rootTypes, includePaths) => {
        const result = attempt(() => parseIncludes(registry, rootTypes, includePaths), { rootTypes, includePaths });
        if (result instanceof JsonApiError) expectClientError(result, [400]);
        else for (const p of includePaths) expect(paths(result)).toContain(p);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseId', () => {
  it('accepts positive integers as numbers or strings (trimmed)', () => {
    expect(parseId(1)).toBe(1);
    expect(parseId('42')).toBe(42);
    expect(parseId(' 42 ')).toBe(42);
    expect(parseId('123456789012345')).toBe(123456789012345);
  });

  it('rejects everything else', () => {
    for (const value of [0, -1, 1.5, '0', '01', '-1', '1.0', '1e3', '0x10', '', ' ', 'abc', null, undefined, true, [], {}, [1], NaN, Infinity, 1e21]) {
      expect(parseId(value)).toBeUndefined();
    }
  });

  it('never throws, and returns only positive safe integers that render back to the trimmed input', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.string({ maxLength: 20 }), fc.stringMatching(/^\s*-?\d{1,20}(\.\d+)?\s*$/), fc.double(), fc.integer()),
        (value) => {
          const id = parseId(value);
          if (id === undefined) return;
          expect(Number.isSafeInteger(id) && id > 0).toBe(true);
          expect(String(id)).toBe(typeof value === 'string' ? value.trim() : String(value));
        },
      ),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 48 }), (n) => {
        expect(parseId(n)).toBe(n);
        expect(parseId(String(n))).toBe(n);
      }),
    );
  });
});
