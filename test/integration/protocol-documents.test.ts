import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { createSample } from '../support/fixtures.ts';
import { header } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/** Contract §1.3, §1.4, §1.6, §1.7: write documents, identifiers and error objects. */

beforeAll(freshStore);

const JSON_API = 'application/vnd.api+json';

/** §1.7: string status equal to the response's, snake_case code, title and detail. */
function expectWellFormedErrors(res: CallResult) {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(header(res, 'content-type')).toBe(JSON_API);
  expect(res.body.errors.length).toBeGreaterThan(0);
  for (const e of res.body.errors) {
    expect(e.status).toBe(String(res.status));
    expect(e.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(e.title).toEqual(expect.stringMatching(/\S/));
    expect(e.detail).toEqual(expect.stringMatching(/\S/));
  }
}

function expectError(res: CallResult, status: number, code: string) {
  expect(res.status).toBe(status);
  expectWellFormedErrors(res);
  expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(res.body.errors.map(() => code));
  return res.body.errors[0];
}

const listing = async () => (await call('GET', '/api/v2/samples?page[size]=500')).body;

/** Runs a write that must be rejected and asserts it changed nothing visible. */
async function rejected(method: string, path: string, body: unknown, status: number, code: string) {
  const before = await listing();
  const res = await call(method, path, { body });
  const error = expectError(res, status, code);
  expect(await listing()).toEqual(before);
  return { res, error };
}

let sampleId: string;
let studyA: string;
let studyB: string;
beforeAll(async () => {
  studyA = await idOf('studies', 'name', 'Study A');
  studyB = await idOf('studies', 'name', 'Study B');
  sampleId = (await createSample({ name: 'doc-1' })).id;
});

describe('document structure (§1.6)', () => {
  it('answers 400 to a body that is not JSON', async () => {
    for (const body of ['{"data": ', '', 'nonsense', "{'data': {}}"]) {
      const { error } = await rejected('POST', '/api/v2/samples', body, 400, 'invalid_json');
      expect(error.detail).toContain('not valid JSON');
    }
  });

  it('answers 400 to a body that is not an object or lacks data or type', async () => {
    for (const body of ['[]', '"samples"', 'null', '42']) await rejected('POST', '/api/v2/samples', body, 400, 'invalid_member');
    expect((await rejected('POST', '/api/v2/samples', {}, 400, 'missing_member')).error.source).toEqual({ pointer: '/data' });
    await rejected('POST', '/api/v2/samples', { data: null }, 400, 'invalid_member');
    await rejected('POST', '/api/v2/samples', { data: [doc('samples', { name: 'arr' }).data] }, 400, 'invalid_member');
    expect((await rejected('POST', '/api/v2/samples', { data: { attributes: { name: 'no-type' } } }, 400, 'missing_member')).error.source).toEqual({
      pointer: '/data/type',
    });
    await rejected('POST', '/api/v2/samples', { data: { type: 7, attributes: {} } }, 400, 'invalid_member');
    await rejected('POST', '/api/v2/samples', { data: { type: 'samples', attributes: [] } }, 400, 'invalid_member');
    await rejected('POST', '/api/v2/samples', { data: { type: 'samples', relationships: 'x' } }, 400, 'invalid_member');
  });

  it('answers 409 to a type other than the endpoint', async () => {
    const { error } = await rejected('POST', '/api/v2/samples', doc('studies', { name: 'x' }), 409, 'conflict');
    expect(error.source).toEqual({ pointer: '/data/type' });
    await rejected('PATCH', `/api/v2/samples/${sampleId}`, doc('sample_metadata', {}, undefined, sampleId), 409, 'conflict');
  });

  it('answers 403 to a client-generated id on POST', async () => {
    const { error } = await rejected('POST', '/api/v2/samples', doc('samples', { name: 'with-id' }, undefined, '999'), 403, 'client_generated_id');
    expect(error.source).toEqual({ pointer: '/data/id' });
  });

  it('needs data.id on PATCH, equal to the URL id (number or string)', async () => {
    expect((await rejected('PATCH', `/api/v2/samples/${sampleId}`, doc('samples', { site_sample_id: 'x' }), 400, 'missing_member')).error.source).toEqual({
      pointer: '/data/id',
    });
    const other = String(Number(sampleId) + 1000);
    expect(
      (await rejected('PATCH', `/api/v2/samples/${sampleId}`, doc('samples', { site_sample_id: 'x' }, undefined, other), 409, 'conflict')).error.source,
    ).toEqual({ pointer: '/data/id' });
    const numeric = await call('PATCH', `/api/v2/samples/${sampleId}`, {
      body: { data: { type: 'samples', id: Number(sampleId), attributes: { site_sample_id: 'numeric-id' } } },
    });
    expect(numeric.status).toBe(200);
    expect(numeric.body.data.attributes.site_sample_id).toBe('numeric-id');
  });
});

describe('attributes and relationships (§1.6)', () => {
  it('answers 400 "Param not allowed" once per unknown key, with a pointer', async () => {
    const { res } = await rejected(
      'POST',
      '/api/v2/samples',
      doc('samples', { name: 'unknown-keys', colour: 'red', size: 3 }, { owner: { data: null } }),
      400,
      'param_not_allowed',
    );
    expect(res.body.errors).toHaveLength(3);
    for (const e of res.body.errors) expect(e.title).toBe('Param not allowed');
    expect(res.body.errors.map((e: { source: unknown }) => e.source)).toEqual([
      { pointer: '/data/attributes/colour' },
      { pointer: '/data/attributes/size' },
      { pointer: '/data/relationships/owner' },
    ]);
    expect(res.body.errors[0].detail).toContain('colour');
  });

  it('answers 400 to read-only attributes on POST and PATCH', async () => {
    const uuid = '2a4c6e8f-0000-4000-8000-000000000000';
    const post = await rejected('POST', '/api/v2/samples', doc('samples', { name: 'ro', uuid }), 400, 'param_not_allowed');
    expect(post.error.source).toEqual({ pointer: '/data/attributes/uuid' });
    const patch = await rejected('PATCH', `/api/v2/samples/${sampleId}`, doc('samples', { uuid }, undefined, sampleId), 400, 'param_not_allowed');
    expect(patch.error.source).toEqual({ pointer: '/data/attributes/uuid' });
    // A write-once relationship on PATCH.
    const metadataId = (await call('GET', `/api/v2/samples/${sampleId}/relationships/sample_metadata`)).body.data.id;
    const wo = await rejected(
      'PATCH',
      `/api/v2/sample_metadata/${metadataId}`,
      doc('sample_metadata', {}, { sample: { data: { type: 'samples', id: sampleId } } }, metadataId),
      400,
      'param_not_allowed',
    );
    expect(wo.error.source).toEqual({ pointer: '/data/relationships/sample' });
  });

  it('answers 400 to malformed linkage', async () => {
    const bad: [unknown, string][] = [
      [{ type: 'studies', id: studyA }, 'invalid_linkage'], // not { data }
      [{ data: { type: 'studies', id: studyA } }, 'invalid_linkage'], // to-many needs an array
      [{ data: [{ type: 'studies' }] }, 'invalid_linkage'],
      [{ data: [{ id: studyA }] }, 'invalid_linkage'],
      [{ data: [{ type: 5, id: studyA }] }, 'invalid_linkage'],
      [{ data: ['1'] }, 'invalid_linkage'],
      [{ data: [{ type: 'users', id: '1' }] }, 'type_mismatch'],
      [{ data: [{ type: 'studies', id: 'abc' }] }, 'invalid_id'],
      [{ data: [{ type: 'studies', id: '0' }] }, 'invalid_id'],
      [{ data: [{ type: 'studies', id: -1 }] }, 'invalid_id'],
      [{ data: [{ type: 'studies', id: 1.5 }] }, 'invalid_id'],
    ];
    for (const [studies, code] of bad) {
      const { error } = await rejected('POST', '/api/v2/samples', doc('samples', { name: 'linkage' }, { studies }), 400, code);
      expect(error.source.pointer, JSON.stringify(studies)).toMatch(/^\/data\/relationships\/studies/);
    }
    const toOne = await rejected(
      'POST',
      '/api/v2/samples',
      doc('samples', { name: 'linkage' }, { sample_metadata: { data: { type: 'studies', id: studyA } } }),
      400,
      'type_mismatch',
    );
    expect(toOne.error.source).toEqual({ pointer: '/data/relationships/sample_metadata/data/type' });
    const badId = await rejected(
      'POST',
      '/api/v2/samples',
      doc(
        'samples',
        { name: 'linkage' },
        {
          studies: {
            data: [
              { type: 'studies', id: studyA },
              { type: 'studies', id: 'x1' },
            ],
          },
        },
      ),
      400,
      'invalid_id',
    );
    expect(badId.error.source).toEqual({ pointer: '/data/relationships/studies/data/1/id' });
    // An id of any other JSON kind (only strings and numbers are ids, contract §1.3): a 400 naming its pointer and the value.
    for (const id of [true, null, {}, [Number(studyA)], '', ' ', '1e3', 1e21, '0x1']) {
      const { error } = await rejected(
        'POST',
        '/api/v2/samples',
        doc('samples', { name: 'linkage' }, { sample_metadata: { data: { type: 'sample_metadata', id } } }),
        400,
        'invalid_id',
      );
      expect(error.source, JSON.stringify(id)).toEqual({ pointer: '/data/relationships/sample_metadata/data/id' });
      expect(error.detail, JSON.stringify(id)).toContain('is not a valid id');
    }
  });

  it('answers 404 with a pointer to a reference that does not resolve', async () => {
    const { res, error } = await rejected(
      'POST',
      '/api/v2/samples',
      doc(
        'samples',
        { name: 'dangling' },
        {
          studies: {
            data: [
              { type: 'studies', id: studyA },
              { type: 'studies', id: '99999' },
            ],
          },
        },
      ),
      404,
      'record_not_found',
    );
    expect(res.body.errors).toHaveLength(1);
    expect(error.source).toEqual({ pointer: '/data/relationships/studies/data/1' });
    expect(error.detail).toContain('99999');
    const one = await rejected(
      'PATCH',
      `/api/v2/samples/${sampleId}`,
      doc('samples', {}, { sample_metadata: { data: { type: 'sample_metadata', id: '99999' } } }, sampleId),
      404,
      'record_not_found',
    );
    expect(one.error.source).toEqual({ pointer: '/data/relationships/sample_metadata/data' });
  });

  it('accepts linkage ids as numbers or strings', async () => {
    const res = await call('POST', '/api/v2/samples', {
      body: doc(
        'samples',
        { name: 'linked' },
        {
          studies: {
            data: [
              { type: 'studies', id: Number(studyA) },
              { type: 'studies', id: studyB },
            ],
          },
        },
      ),
    });
    expect(res.status).toBe(201);
    const linkage = await call('GET', `/api/v2/samples/${res.body.data.id}/relationships/studies`);
    expect(linkage.body.data).toEqual([
      { type: 'studies', id: studyA },
      { type: 'studies', id: studyB },
    ]);
  });

  it('answers 422 to a value of the wrong JSON type', async () => {
    const { error } = await rejected('POST', '/api/v2/samples', doc('samples', { name: 'typed', control: 'yes' }), 422, 'invalid_type');
    expect(error.source).toEqual({ pointer: '/data/attributes/control' });
    expect(error.detail).toContain('control');
    await rejected('POST', '/api/v2/samples', doc('samples', { name: 42 }), 422, 'invalid_type');
    await rejected('PATCH', `/api/v2/samples/${sampleId}`, doc('samples', { site_sample_id: ['a'] }, undefined, sampleId), 422, 'invalid_type');
  });

  it('answers 422 to strings over 4096 characters, and accepts 4096', async () => {
    const { error } = await rejected('POST', '/api/v2/samples', doc('samples', { name: 'long', site_sample_id: 'x'.repeat(4097) }), 422, 'invalid_value');
    expect(error.source).toEqual({ pointer: '/data/attributes/site_sample_id' });
    const ok = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'long-ok', site_sample_id: 'x'.repeat(4096) }) });
    expect(ok.status).toBe(201);
    expect(ok.body.data.attributes.site_sample_id).toHaveLength(4096);
    // Long values stay searchable: the filter finds exactly that record.
    const found = await call('GET', `/api/v2/samples?filter[site_sample_id]=${'x'.repeat(4096)}`);
    expect(found.body.data.map((r: { id: string }) => r.id)).toEqual([ok.body.data.id]);
    expect((await call('GET', `/api/v2/samples?filter[site_sample_id]=${'x'.repeat(4095)}`)).body.data).toEqual([]);
  });

  it('answers 413 to a body over 1 MiB', async () => {
    const body = JSON.stringify(doc('samples', { name: 'huge', site_sample_id: 'x'.repeat(1024 * 1024) }));
    const { error } = await rejected('POST', '/api/v2/samples', body, 413, 'payload_too_large');
    expect(error.detail).toContain('1048576');
    await rejected(
      'PATCH',
      `/api/v2/samples/${sampleId}`,
      JSON.stringify(doc('samples', { site_sample_id: 'y'.repeat(1024 * 1024) }, undefined, sampleId)),
      413,
      'payload_too_large',
    );
  });
});

describe('identifiers in URLs (§1.3)', () => {
  it('answers 400 to a malformed id and 404 to an unknown one', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '1e3', '%20']) {
      for (const path of [
        `/api/v2/samples/${id}`,
        `/api/v2/samples/${id}/studies`,
        `/api/v2/samples/${id}/relationships/studies`,
        `/api/v2/barcode_printers/${id}`,
      ]) {
        const res = await call('GET', path);
        expect(res.status, path).toBe(400);
        expectError(res, 400, 'invalid_id');
      }
      await rejected('PATCH', `/api/v2/samples/${id}`, doc('samples', { site_sample_id: 'x' }, undefined, id), 400, 'invalid_id');
    }
    for (const path of ['/api/v2/samples/99999', '/api/v2/samples/99999/studies', '/api/v2/samples/99999/relationships/studies', '/api/v2/users/99999']) {
      expectError(await call('GET', path), 404, 'record_not_found');
    }
    await rejected('PATCH', '/api/v2/samples/99999', doc('samples', { site_sample_id: 'x' }, undefined, '99999'), 404, 'record_not_found');
  });

  it('renders ids as strings and uuids as lower-case v4', async () => {
    const res = await call('GET', `/api/v2/samples/${sampleId}`);
    expect(res.body.data.id).toBe(sampleId);
    expect(sampleId).toMatch(/^[1-9]\d*$/);
    expect(res.body.data.attributes.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('error objects (§1.7)', () => {
  it('never answers 500, and every error is well formed', async () => {
    const linkage = fc.oneof(
      fc.jsonValue(),
      fc.record({
        data: fc.oneof(
          fc.constant(null),
          fc.jsonValue(),
          fc.array(fc.record({ type: fc.constantFrom('studies', 'samples', 'users', 'x'), id: fc.oneof(fc.string(), fc.integer()) })),
        ),
      }),
    );
    const document = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          data: fc.record(
            {
              type: fc.oneof(fc.constantFrom('samples', 'sample_metadata', 'studies'), fc.jsonValue()),
              id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
              attributes: fc.oneof(
                fc.dictionary(fc.constantFrom('name', 'site_sample_id', 'control', 'control_type', 'uuid', 'cohort', 'gender', 'x'), fc.jsonValue()),
                fc.jsonValue(),
              ),
              relationships: fc.oneof(
                fc.dictionary(fc.constantFrom('studies', 'sample_metadata', 'component_samples', 'sample_manifest', 'sample', 'x'), linkage),
                fc.jsonValue(),
              ),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    );
    const metadataId = (await call('GET', `/api/v2/samples/${sampleId}/relationships/sample_metadata`)).body.data.id;
    await fc.assert(
      fc.asyncProperty(
        document,
        fc.constantFrom(
          'POST /api/v2/samples',
          `PATCH /api/v2/samples/${sampleId}`,
          'POST /api/v2/sample_metadata',
          `PATCH /api/v2/sample_metadata/${metadataId}`,
        ),
        async (body, target) => {
          const [method, path] = target.split(' ') as [string, string];
          const res = await call(method, path, { body });
          if (res.status >= 400) expectWellFormedErrors(res);
          else expect([200, 201]).toContain(res.status);
        },
      ),
      { numRuns: 150 },
    );
    const query = fc.array(
      fc.tuple(
        fc.constantFrom(
          'include',
          'fields[samples]',
          'filter[name]',
          'filter[x]',
          'page[number]',
          'page[size]',
          'page[cursor]',
          'sort',
          'filter',
          'foo',
          'fields',
        ),
        fc.string(),
      ),
      { maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        query,
        fc.constantFrom('/api/v2/samples', `/api/v2/samples/${sampleId}`, `/api/v2/samples/${sampleId}/studies`, '/api/v2/users'),
        async (pairs, path) => {
          const qs = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
          const res = await call('GET', `${path}?${qs}`);
          if (res.status >= 400) expectWellFormedErrors(res);
          else expect(res.status).toBe(200);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers odd query strings and huge numbers without a 500', async () => {
    for (const query of [
      'page[number]=99999999999999999999',
      'page[number]=100000000000&page[size]=500',
      'page[size]=99999999999999999999',
      'filter[name]=%',
      'include=%E0%A4%A',
      'sort=',
      'include=',
      'page[cursor]=bnVsbA',
      'page[cursor]=%%%',
      'fields[samples]=',
    ]) {
      const res = await call('GET', `/api/v2/samples?${query}`);
      expect(res.status, query).toBeLessThan(500);
      if (res.status >= 400) expectWellFormedErrors(res);
    }
  });

  it('keeps one title per kind of problem', async () => {
    const a = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'same-title', control: 'yes' }) });
    const b = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 7 }) });
    expect(a.body.errors[0].code).toBe(b.body.errors[0].code);
    expect(a.body.errors[0].title).toBe(b.body.errors[0].title);
    expect(a.body.errors[0].detail).not.toBe(b.body.errors[0].detail);
  });
});
