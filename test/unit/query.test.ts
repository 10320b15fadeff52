import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonApiError } from '#lib/jsonapi/errors.ts';
import { buildQuery, parseQuery, type ParsedQuery } from '#lib/jsonapi/query.ts';

/** Runs parseQuery and returns the JsonApiError it throws (fails the test if it returns or throws anything else). */
function rejection(raw: string): JsonApiError {
  try {
    parseQuery(raw);
  } catch (error) {
    if (error instanceof JsonApiError) return error;
    throw error;
  }
  throw new Error(`parseQuery(${JSON.stringify(raw)}) was accepted`);
}

/** parseQuery's outcome: a result, or a JsonApiError. Anything else thrown propagates and fails the property. */
function outcome(raw: string): ParsedQuery | JsonApiError {
  try {
    return parseQuery(raw);
  } catch (error) {
    if (error instanceof JsonApiError) return error;
    throw new Error(`parseQuery(${JSON.stringify(raw)}) threw ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
  }
}

/** A rejection of a query is a 400 whose every error is a well-formed 400 error object naming a parameter. */
function expectWellFormed400(error: JsonApiError): void {
  expect(error.status).toBe(400);
  expect(error.errors.length).toBeGreaterThan(0);
  for (const e of error.errors) {
    expect(e.status).toBe('400');
    expect(e.code).toMatch(/^[a-z_]+$/);
    expect(typeof e.title).toBe('string');
    expect(typeof e.detail).toBe('string');
    expect(typeof e.source?.parameter).toBe('string');
  }
}

describe('parseQuery: examples', () => {
  it('treats a missing or empty query as no parameters', () => {
    for (const raw of [undefined, '', '&', '&&']) {
      const q = parseQuery(raw);
      expect(q.include).toBeUndefined();
      expect(q.sort).toBeUndefined();
      expect(q.filters.size).toBe(0);
      expect(q.fields.size).toBe(0);
      expect(q.page).toEqual({});
      expect(q.pairs).toEqual([]);
    }
  });

  it('splits include on commas, trims, drops empty entries, and merges repeated include keys', () => {
    expect(parseQuery('include=studies,sample_metadata').include).toEqual(['studies', 'sample_metadata']);
    expect(parseQuery('include=studies,%20sample_metadata.sample,,').include).toEqual(['studies', 'sample_metadata.sample']);
    expect(parseQuery('include=studies&include=sample_metadata').include).toEqual(['studies', 'sample_metadata']);
    // Comma percent-encoded is still a list separator once decoded.
    expect(parseQuery('include=studies%2Csample_metadata').include).toEqual(['studies', 'sample_metadata']);
  });

  it('reads fields[type] as a comma list per type', () => {
    const q = parseQuery('fields[samples]=name,uuid&fields[studies]=name');
    expect(q.fields).toEqual(
      new Map([
        ['samples', ['name', 'uuid']],
        ['studies', ['name']],
      ]),
    );
    expect(parseQuery('fields%5Bsamples%5D=name').fields.get('samples')).toEqual(['name']);
  });

  it('reads filter[name]=a,b as any of a and b', () => {
    expect(parseQuery('filter[name]=a,b').filters).toEqual(new Map([['name', ['a', 'b']]]));
  });

  it('takes the union of repeated filter[name][]= keys', () => {
    expect(parseQuery('filter[name][]=a&filter[name][]=b').filters).toEqual(new Map([['name', ['a', 'b']]]));
    // Mixed forms of one filter are one union too.
    expect(parseQuery('filter[name]=a,b&filter[name][]=c').filters).toEqual(new Map([['name', ['a', 'b', 'c']]]));
  });

  it('accepts brackets percent-encoded (either case) as well as raw', () => {
    expect(parseQuery('filter%5Bname%5D=x').filters).toEqual(new Map([['name', ['x']]]));
    expect(parseQuery('filter%5bname%5d=x').filters).toEqual(new Map([['name', ['x']]]));
    expect(parseQuery('filter%5Bname%5D%5B%5D=x&filter%5Bname%5D%5B%5D=y').filters).toEqual(new Map([['name', ['x', 'y']]]));
    expect(parseQuery('page%5Bnumber%5D=2&page%5Bsize%5D=10').page).toEqual({ number: '2', size: '10' });
  });

  it('decodes + as a space, and %2B as a literal plus', () => {
    expect(parseQuery('filter[name]=Study+A').filters.get('name')).toEqual(['Study A']);
    expect(parseQuery('filter[name]=a%2Bb').filters.get('name')).toEqual(['a+b']);
    expect(parseQuery('filter[name]=caf%C3%A9').filters.get('name')).toEqual(['café']);
  });

  it('keeps the decoded pairs in order, for rebuilding links', () => {
    expect(parseQuery('filter%5Bname%5D=a+b&sort=-id&page[size]=5').pairs).toEqual([
      ['filter[name]', 'a b'],
      ['sort', '-id'],
      ['page[size]', '5'],
    ]);
  });

  it('reads sort as a comma list', () => {
    expect(parseQuery('sort=-created_at,id').sort).toEqual(['-created_at', 'id']);
  });

  it.each([
    ['sort=,', '","', 1],
    ['sort=', '""', 1],
    ['sort', '""', 1],
    ['sort=id,,-id', '"id,,-id"', 2],
    ['sort=id,%20', '"id, "', 2],
  ])('refuses %s naming the empty field (400 at the sort parameter)', (raw, shown, position) => {
    const error = outcome(raw);
    expect(error).toBeInstanceOf(JsonApiError);
    expect((error as JsonApiError).errors).toEqual([
      expect.objectContaining({
        status: '400',
        code: 'invalid_sort',
        source: { parameter: 'sort' },
        detail: `sort ${shown} has an empty field (field ${position}); use id, created_at or updated_at, optionally prefixed with -`,
      }),
    ]);
  });

  it('reads page[number], page[size] and page[cursor] verbatim (their values are checked later)', () => {
    expect(parseQuery('page[number]=3&page[size]=25&page[cursor]=abc').page).toEqual({ number: '3', size: '25', cursor: 'abc' });
    expect(parseQuery('page[number]=x').page).toEqual({ number: 'x' });
  });

  it('ignores other page[...] keys such as json_api_client page[page] and page[per_page]', () => {
    const q = parseQuery('page[page]=2&page[per_page]=50');
    expect(q.page).toEqual({});
    expect(q.filters.size).toBe(0);
  });

  it('rejects an unknown parameter with a 400 naming it in source.parameter', () => {
    const error = rejection('foo=1');
    expectWellFormed400(error);
    expect(error.errors).toHaveLength(1);
    expect(error.errors[0]!.source).toEqual({ parameter: 'foo' });
  });

  it('reports every unknown parameter, one error each', () => {
    const error = rejection('foo=1&include=studies&bar=2');
    expectWellFormed400(error);
    expect(error.errors.map((e) => e.source?.parameter)).toEqual(['foo', 'bar']);
  });

  it('rejects malformed filter and fields keys with a 400 naming the key', () => {
    for (const key of ['filter', 'filter[]', 'filter[a][b]', 'filterx', 'filter[a', 'fields', 'fields[samples][]', 'fieldsx', 'fields[]']) {
      const error = rejection(`${key}=1`);
      expectWellFormed400(error);
      expect(error.errors[0]!.source?.parameter).toBe(key);
    }
  });

  it('rejects keys that merely start with page, like any other unknown parameter', () => {
    // Only page[...] keys are ignored (contract §1.5); `pagex` / `pages` are unknown parameters.
    for (const key of ['pagex', 'pages', 'page_size']) {
      const error = rejection(`${key}=1`);
      expectWellFormed400(error);
      expect(error.errors[0]!.source?.parameter).toBe(key);
    }
  });

  it('rejects malformed percent-encoding in a key or a value with a 400', () => {
    for (const raw of ['filter[name]=%', 'filter[name]=%E0%A4%A', 'filter[name]=%zz', 'filter%5name%5D=1', 'include=%C3', 'filter[name]=%ED%A0%80']) {
      const error = rejection(raw);
      expectWellFormed400(error);
    }
  });
});

describe('buildQuery: examples', () => {
  it('percent-encodes brackets and commas', () => {
    expect(buildQuery([['page[number]', '2']])).toBe('page%5Bnumber%5D=2');
    expect(buildQuery([['filter[name]', 'a,b']])).toBe('filter%5Bname%5D=a%2Cb');
    expect(
      buildQuery([
        ['filter[name]', 'Study A'],
        ['include', 'studies'],
      ]),
    ).toBe('filter%5Bname%5D=Study%20A&include=studies');
  });

  it('round-trips through parseQuery', () => {
    const pairs: [string, string][] = [
      ['filter[name]', 'Study A'],
      ['filter[uuid][]', 'x&y=z'],
      ['include', 'studies,sample_metadata'],
      ['fields[samples]', 'name'],
      ['sort', '-id'],
      ['page[number]', '2'],
    ];
    const q = parseQuery(buildQuery(pairs));
    expect(q.pairs).toEqual(pairs);
    expect(q.filters).toEqual(
      new Map([
        ['name', ['Study A']],
        ['uuid', ['x&y=z']],
      ]),
    );
    expect(q.include).toEqual(['studies', 'sample_metadata']);
    expect(q.page).toEqual({ number: '2' });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------------

/** Any single UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** Fragments real clients (and broken ones) put in a query string. */
const keyFragment = fc.oneof(
  fc.constantFrom(
    'include',
    'sort',
    'filter[name]',
    'filter[name][]',
    'filter[uuid]',
    'filter%5Bname%5D',
    'filter%5Bname%5D%5B%5D',
    'filter[',
    'filter[]',
    'filter[a][b]',
    'fields[samples]',
    'fields%5Bsamples%5D',
    'fields[samples][]',
    'fields',
    'page[number]',
    'page[size]',
    'page[cursor]',
    'page[page]',
    'page[per_page]',
    'page%5Bnumber%5D',
    'page',
    'foo',
    'filter[constructor]',
    'fields[__proto__]',
    '%',
    '%5',
    '%zz',
    '%E0%A4%A',
    '',
  ),
  fc.string({ maxLength: 8 }),
);
const valueFragment = fc.oneof(
  fc.constantFrom(
    '',
    'a',
    'a,b',
    ',,',
    ' a ',
    'Study+A',
    '%20',
    '%2C',
    '%',
    '%E0%A4%A',
    '%C3%A9',
    '%ED%A0%80',
    '-id',
    'studies.sample_metadata',
    '1',
    '0',
    '-1',
    '1e3',
    '500',
    '501',
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const grammarQuery = fc
  .array(
    fc.tuple(keyFragment, fc.constantFrom('=', '', '=='), valueFragment).map(([k, eq, v]) => `${k}${eq}${v}`),
    { maxLength: 6 },
  )
  .chain((parts) => fc.constantFrom('&', '&&').map((sep) => parts.join(sep)));

function neverThrowsOtherThan400(raw: string): void {
  const result = outcome(raw);
  if (result instanceof JsonApiError) expectWellFormed400(result);
  else {
    expect(result.pairs.length).toBeLessThanOrEqual(raw.split('&').length);
    for (const values of [...result.filters.values(), ...result.fields.values(), result.include ?? [], result.sort ?? []]) {
      for (const v of values) expect(v).not.toBe('');
    }
  }
}

describe('parseQuery: properties', () => {
  it('returns or throws a 400 JsonApiError for arbitrary printable strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), neverThrowsOtherThan400), { numRuns: 500 });
  });

  it('returns or throws a 400 JsonApiError for arbitrary full-Unicode strings', () => {
    // fast-check 4 has no fullUnicodeString; string({ unit: 'binary' }) is its replacement.
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), neverThrowsOtherThan400), { numRuns: 500 });
  });

  it('returns or throws a 400 JsonApiError for arbitrary UTF-16 (lone surrogates included)', () => {
    fc.assert(fc.property(fc.string({ unit: codeUnit, maxLength: 40 }), neverThrowsOtherThan400), { numRuns: 300 });
  });

  it('returns or throws a 400 JsonApiError for queries built from realistic fragments', () => {
    fc.assert(fc.property(grammarQuery, neverThrowsOtherThan400), { numRuns: 1000 });
  });

  it('rejects with one error per distinct bad parameter, in order of first appearance', () => {
    const bad = fc.constantFrom('foo', 'bar', 'filterx', 'fields[a][]', 'filter[a][b]');
    const good = fc.constantFrom('include=studies', 'sort=id', 'filter[name]=a', 'page[number]=1');
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            bad.map((k) => ({ bad: k })),
            good.map((p) => ({ good: p })),
          ),
          { maxLength: 8 },
        ),
        (parts) => {
          const raw = parts.map((p) => ('bad' in p ? `${p.bad}=1` : p.good)).join('&');
          // A repeated bad key is one problem, reported once (JSON:API forbids duplicate error objects).
          const expected = [...new Set(parts.flatMap((p) => ('bad' in p ? [p.bad] : [])))];
          const result = outcome(raw);
          if (expected.length === 0) expect(result).not.toBeInstanceOf(JsonApiError);
          else {
            expect(result).toBeInstanceOf(JsonApiError);
            expect((result as JsonApiError).errors.map((e) => e.source?.parameter)).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('buildQuery: properties', () => {
  // A filter name: anything without brackets (which would end the name). A value: no comma (the list
  // separator), not empty and not padded (list entries are trimmed and empty ones dropped, see examples).
  const filterName = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).filter((s) => !/[[\]]/.test(s));
  const filterValue = fc.string({ unit: 'binary', minLength: 1, maxLength: 16 }).filter((s) => !s.includes(',') && s.trim() === s && s !== '');
  const filterPairs = fc.array(fc.tuple(filterName, filterValue, fc.boolean()), { maxLength: 8 });

  it('gives parseQuery back the same filters for arbitrary names and values', () => {
    fc.assert(
      fc.property(filterPairs, (entries) => {
        const pairs = entries.map(([name, value, repeated]): [string, string] => [`filter[${name}]${repeated ? '[]' : ''}`, value]);
        const expected = new Map<string, string[]>();
        for (const [name, value] of entries) expected.set(name, [...(expected.get(name) ?? []), value]);
        const q = parseQuery(buildQuery(pairs));
        expect(q.filters).toEqual(expected);
        expect(q.pairs).toEqual(pairs);
      }),
      { numRuns: 500 },
    );
  });

  it('gives back a comma list of values as the same list', () => {
    fc.assert(
      fc.property(filterName, fc.array(filterValue, { minLength: 1, maxLength: 5 }), (name, values) => {
        expect(parseQuery(buildQuery([[`filter[${name}]`, values.join(',')]])).filters).toEqual(new Map([[name, values]]));
      }),
      { numRuns: 300 },
    );
  });

  it('produces only URI query characters: brackets, commas and spaces are always percent-encoded', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 })), { maxLength: 6 }), (pairs) => {
        const built = buildQuery(pairs);
        expect(built).toMatch(/^[A-Za-z0-9\-_.!~*'()%=&]*$/);
        // Every pair survives a round trip, byte for byte.
        if (pairs.length > 0)
          expect(parseQuery(buildQuery(pairs.map(([, v]) => ['filter[x]', v] as [string, string]))).pairs.map(([, v]) => v)).toEqual(pairs.map(([, v]) => v));
      }),
      { numRuns: 300 },
    );
  });
});

describe('lone surrogates', () => {
  // Never over HTTP (bytes arrive percent-encoded), but a hand-built Lambda event can carry one; it
  // would break the links built from the query, so it is refused up front.
  it('refuses a raw lone surrogate in a key or a value with a 400', () => {
    for (const raw of ['filter[name]=\ud800', 'filter[\udc00]=x', 'include=a\ud800b']) {
      let thrown: unknown;
      try {
        parseQuery(raw);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(JsonApiError);
      expect((thrown as JsonApiError).status).toBe(400);
    }
  });

  it('accepts a well-formed pair of surrogates', () => {
    expect(parseQuery('filter[name]=%F0%9F%A7%AA').filters.get('name')).toEqual(['\u{1F9EA}']);
    expect(parseQuery('filter[name]=\u{1F9EA}').filters.get('name')).toEqual(['\u{1F9EA}']);
  });
});
