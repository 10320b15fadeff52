import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { create, createSample, rel, SAMPLE_METADATA_FIELDS, sampleCounts, uniqueName } from '../support/fixtures.ts';
import { expectError } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';

/**
 * sample_metadata (interface.md "sample_metadata", contract §2 samples + sample_metadata): POST, PATCH of
 * all eleven attributes, limber's flow, gender normalisation, ISO 8601 dates, POST with a `sample`
 * relationship replacing the sample's empty record, and the rules around it. After every rejected write
 * the test checks that nothing was written.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
const ALL_VALUES = {
  cohort: 'Cohort 7',
  collected_by: 'Sanger Field Team',
  concentration: '12.5',
  date_of_sample_collection: '2024-05-01T10:30:00Z',
  donor_id: 'DONOR-001',
  gender: 'Female',
  phenotype: 'Positive',
  sample_common_name: 'Homo sapiens',
  sample_description: 'Buccal swab, frozen',
  supplier_name: 'Supplier-A',
  volume: '50',
};

const EMPTY = Object.fromEntries(SAMPLE_METADATA_FIELDS.map((f) => [f, null]));

const createMetadata = (attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>) =>
  create('sample_metadata', attributes, relationships);

async function getMetadata(id: string): Promise<any> {
  const res = await call('GET', `/api/v2/sample_metadata/${id}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function metadataOfSample(sampleId: string): Promise<any> {
  const res = await call('GET', `/api/v2/samples/${sampleId}/sample_metadata`);
  expect(res.status).toBe(200);
  return res.body.data;
}

const patch = (id: string, attributes: Record<string, unknown>) =>
  call('PATCH', `/api/v2/sample_metadata/${id}`, { body: doc('sample_metadata', attributes, undefined, id) });

describe('POST /sample_metadata', () => {
  it('creates a record with all eleven attributes and renders them', async () => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', ALL_VALUES) });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data.type).toBe('sample_metadata');
    expect(data.id).toMatch(/^[1-9]\d*$/);
    expect(data.attributes).toEqual(ALL_VALUES);
    expect(data.links.self).toBe(`${BASE}/sample_metadata/${data.id}`);
    expect(res.headers.Location).toBe(`${BASE}/sample_metadata/${data.id}`);
    expect(data.relationships.sample.links).toEqual({
      self: `${BASE}/sample_metadata/${data.id}/relationships/sample`,
      related: `${BASE}/sample_metadata/${data.id}/sample`,
    });
    expect(await sampleCounts()).toEqual({ samples: before.samples, sample_metadata: before.sample_metadata + 1 });

    expect((await getMetadata(data.id)).attributes).toEqual(ALL_VALUES);
    // Created without a sample: an orphan.
    expect((await call('GET', `/api/v2/sample_metadata/${data.id}/sample`)).body.data).toBeNull();
  });

  it('creates an empty record: every attribute null', async () => {
    const data = await createMetadata();
    expect(data.attributes).toEqual(EMPTY);
  });

  it('stores blank strings as null', async () => {
    const data = await createMetadata({ cohort: '', supplier_name: '   ', gender: '', date_of_sample_collection: '', volume: '5' });
    expect(data.attributes).toEqual({ ...EMPTY, volume: '5' });
  });

  it('rejects unknown attributes and a client id with 400/403, writing nothing', async () => {
    const before = await sampleCounts();
    expectError(
      await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { reference_genome: 'GRCh38' }) }),
      400,
      'param_not_allowed',
      '/data/attributes/reference_genome',
    );
    expectError(await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 'x' }, undefined, '5') }), 403, 'client_generated_id');
    expectError(await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadatas', { cohort: 'x' }) }), 409, 'conflict');
    expect(await sampleCounts()).toEqual(before);
  });

  it('rejects values of the wrong JSON type (422), writing nothing', async () => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 5, volume: { ul: 5 }, gender: true }) });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: any) => e.source.pointer).sort()).toEqual(['/data/attributes/cohort', '/data/attributes/gender', '/data/attributes/volume']);
    expect(await sampleCounts()).toEqual(before);
  });

  it('rejects strings over 4096 characters (422), writing nothing', async () => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { sample_description: 'x'.repeat(4097) }) });
    expectError(res, 422, 'invalid_value', '/data/attributes/sample_description');
    expect(await sampleCounts()).toEqual(before);
    const ok = await createMetadata({ sample_description: 'y'.repeat(4096) });
    expect(ok.attributes.sample_description).toHaveLength(4096);
  });
});

describe('PATCH /sample_metadata/{id}', () => {
  it('updates all eleven attributes', async () => {
    const sample = await createSample();
    const metadata = await metadataOfSample(sample.id);
    const res = await patch(metadata.id, ALL_VALUES);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual(ALL_VALUES);
    expect((await getMetadata(metadata.id)).attributes).toEqual(ALL_VALUES);

    const changed = {
      cohort: 'Cohort 8',
      collected_by: 'Other team',
      concentration: '3.1',
      date_of_sample_collection: '2023-12-31',
      donor_id: 'DONOR-002',
      gender: 'male',
      phenotype: 'Negative',
      sample_common_name: 'Mus musculus',
      sample_description: 'Tail clip',
      supplier_name: 'Supplier-B',
      volume: '10',
    };
    const again = await patch(metadata.id, changed);
    expect(again.status).toBe(200);
    expect(again.body.data.attributes).toEqual({ ...changed, gender: 'Male' });
    expect((await getMetadata(metadata.id)).attributes).toEqual({ ...changed, gender: 'Male' });
  });

  it('changes only the attributes sent, and clears with null', async () => {
    const metadata = await createMetadata(ALL_VALUES);
    const res = await patch(metadata.id, { volume: '99', donor_id: null });
    expect(res.status).toBe(200);
    expect((await getMetadata(metadata.id)).attributes).toEqual({ ...ALL_VALUES, volume: '99', donor_id: null });
  });

  it("follows limber's flow: sample's related link, then PATCH supplier_name/cohort/sample_description", async () => {
    const created = await call('POST', '/api/v2/samples', {
      body: doc(
        'samples',
        { name: uniqueName(), site_sample_id: 'CTRL-1', control: true, control_type: 'pcr positive' },
        { studies: { data: [{ type: 'studies', id: await idOf('studies', 'name', 'Study A') }] } },
      ),
    });
    expect(created.status).toBe(201);
    const related = await call('GET', created.body.data.relationships.sample_metadata.links.related.replace('https://lts.test', ''));
    expect(related.status).toBe(200);
    const id = related.body.data.id;
    const before = await sampleCounts();

    const res = await call('PATCH', `/api/v2/sample_metadata/${id}`, {
      body: {
        data: {
          id,
          type: 'sample_metadata',
          attributes: { supplier_name: 'Control supplier', cohort: 'Controls', sample_description: 'PCR positive control' },
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({ ...EMPTY, supplier_name: 'Control supplier', cohort: 'Controls', sample_description: 'PCR positive control' });

    const read = await call('GET', `/api/v2/samples/${created.body.data.id}?include=sample_metadata`);
    expect(read.body.included[0]).toMatchObject({
      type: 'sample_metadata',
      id,
      attributes: { supplier_name: 'Control supplier', cohort: 'Controls', sample_description: 'PCR positive control' },
    });
    expect(await sampleCounts()).toEqual(before);
  });

  it('accepts the id as a number in the body', async () => {
    const metadata = await createMetadata();
    const res = await call('PATCH', `/api/v2/sample_metadata/${metadata.id}`, {
      body: { data: { id: Number(metadata.id), type: 'sample_metadata', attributes: { cohort: 'numeric id' } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.cohort).toBe('numeric id');
  });

  it('cannot PATCH the sample relationship (400), changing nothing', async () => {
    const sample = await createSample();
    const other = await createSample();
    const metadata = await metadataOfSample(sample.id);
    const res = await call('PATCH', `/api/v2/sample_metadata/${metadata.id}`, {
      body: {
        data: { id: metadata.id, type: 'sample_metadata', attributes: { cohort: 'should not stick' }, relationships: { sample: rel('samples', other.id) } },
      },
    });
    expectError(res, 400, 'param_not_allowed', '/data/relationships/sample');
    expect((await getMetadata(metadata.id)).attributes.cohort).toBeNull();
    expect((await call('GET', `/api/v2/sample_metadata/${metadata.id}/sample`)).body.data).toMatchObject({ type: 'samples', id: sample.id });
    expect((await metadataOfSample(other.id)).id).not.toBe(metadata.id);

    const cleared = await call('PATCH', `/api/v2/sample_metadata/${metadata.id}`, {
      body: { data: { id: metadata.id, type: 'sample_metadata', relationships: { sample: { data: null } } } },
    });
    expectError(cleared, 400, 'param_not_allowed', '/data/relationships/sample');
    expect((await call('GET', `/api/v2/sample_metadata/${metadata.id}/sample`)).body.data).toMatchObject({ type: 'samples', id: sample.id });
  });

  it('rejects bad PATCH requests: unknown 404, id mismatch 409, unknown attribute 400', async () => {
    const metadata = await createMetadata({ cohort: 'keep' });
    expectError(await patch('999999', { cohort: 'x' }), 404, 'record_not_found');
    expectError(
      await call('PATCH', `/api/v2/sample_metadata/${metadata.id}`, { body: doc('sample_metadata', { cohort: 'x' }, undefined, '999999') }),
      409,
      'conflict',
    );
    expectError(await patch(metadata.id, { cohort: 'x', sample_id: 3 }), 400, 'param_not_allowed', '/data/attributes/sample_id');
    expect((await getMetadata(metadata.id)).attributes.cohort).toBe('keep');
  });

  it('answers DELETE with 405 and Allow', async () => {
    const metadata = await createMetadata();
    const res = await call('DELETE', `/api/v2/sample_metadata/${metadata.id}`);
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.Allow).toBe('GET, PATCH');
    await getMetadata(metadata.id);
  });
});

describe('concurrent PATCHes', () => {
  it('of different attributes of one record lose no update', async () => {
    const metadata = await createMetadata();
    const results = await Promise.all([
      patch(metadata.id, { cohort: 'from A' }),
      patch(metadata.id, { volume: 'from B' }),
      patch(metadata.id, { donor_id: 'from C' }),
    ]);
    for (const r of results) expect([200, 409]).toContain(r.status);
    const applied = results.filter((r) => r.status === 200).length;
    expect(applied).toBeGreaterThan(0);
    const after = (await getMetadata(metadata.id)).attributes;
    const expected = { cohort: 'from A', volume: 'from B', donor_id: 'from C' };
    // Every PATCH that was answered 200 is in the record.
    results.forEach((r, i) => {
      const [field, value] = Object.entries(expected)[i]!;
      if (r.status === 200) expect(after[field]).toBe(value);
      else expect(after[field]).toBeNull();
    });
  });
});

describe('replacing records concurrently', () => {
  const replace = (sampleId: string, cohort: string) =>
    call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort }, { sample: rel('samples', sampleId) }) });

  it("20 clients each replacing a different sample's record: 20 × 201, counts unchanged, each sample's filter finds its new record", async () => {
    const samples = await Promise.all(Array.from({ length: 20 }, () => createSample()));
    const before = await sampleCounts();
    const results = await Promise.all(samples.map((sample, i) => replace(sample.id, `cohort ${i}`)));
    expect(results.map((r) => r.status)).toEqual(samples.map(() => 201));
    expect(await sampleCounts()).toEqual(before);
    const found = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${samples.map((s) => s.id).join(',')}&page[size]=50`);
    expect(found.body.data.map((m: any) => m.id).sort()).toEqual(results.map((r) => r.body.data.id).sort());
    expect(found.body.meta.record_count).toBe(20);
  });

  it("10 clients replacing one sample's record: one 201, the others refused; the sample, its filter and the counts agree", async () => {
    const sample = await createSample();
    const before = await sampleCounts();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => replace(sample.id, `racer ${i}`)));
    const won = results.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) expect([409, 422]).toContain(r.status);
    expect((await metadataOfSample(sample.id)).id).toBe(won[0]!.body.data.id);
    const found = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${sample.id}`);
    expect(found.body.data.map((m: any) => m.id)).toEqual([won[0]!.body.data.id]);
    expect(await sampleCounts()).toEqual(before);
  });
});

describe('gender', () => {
  it.each([
    ['male', 'Male'],
    ['MALE', 'Male'],
    ['Female', 'Female'],
    ['fEmAlE', 'Female'],
    ['mixed', 'Mixed'],
    ['HERMAPHRODITE', 'Hermaphrodite'],
    ['unknown', 'Unknown'],
    ['not applicable', 'Not Applicable'],
    ['NOT APPLICABLE', 'Not Applicable'],
  ])('normalises %j to %j on POST and PATCH', async (input, expected) => {
    const created = await createMetadata({ gender: input });
    expect(created.attributes.gender).toBe(expected);
    expect((await getMetadata(created.id)).attributes.gender).toBe(expected);

    const other = await createMetadata({ gender: 'Unknown' });
    const res = await patch(other.id, { gender: input });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.gender).toBe(expected);
  });

  it.each(['F', 'M', 'other', 'males', 'not-applicable', 'Femalee', 'n/a'])('rejects %j (422) on POST and PATCH, writing nothing', async (gender) => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { gender, cohort: 'x' }) });
    expectError(res, 422, 'invalid_value', '/data/attributes/gender');
    expect(res.body.errors[0].detail).toContain('gender');
    expect(await sampleCounts()).toEqual(before);

    const existing = await createMetadata({ gender: 'Female', cohort: 'before' });
    const patched = await patch(existing.id, { gender, cohort: 'after' });
    expectError(patched, 422, 'invalid_value', '/data/attributes/gender');
    expect((await getMetadata(existing.id)).attributes).toMatchObject({ gender: 'Female', cohort: 'before' });
  });
});

describe('date_of_sample_collection', () => {
  it.each(['2024-05-01', '2024-05-01T10:30:00Z', '2024-05-01T10:30:00.123+01:00', '2024-05-01T10:30', '2024-02-29'])('accepts ISO 8601 %j', async (value) => {
    const data = await createMetadata({ date_of_sample_collection: value });
    expect(data.attributes.date_of_sample_collection).toBe(value);
    expect((await getMetadata(data.id)).attributes.date_of_sample_collection).toBe(value);
  });

  it.each([
    'yesterday',
    '01/05/2024',
    '2024/05/01',
    '1 May 2024',
    'posted date_of_sample_collection',
    '2024-13-01',
    '2024-05-32',
    '2024-02-30',
    '2023-02-29',
    '2024-04-31T10:00:00Z',
    '2024-05-01T25:00:00Z',
    '20240501T1030',
  ])('rejects %j (422) on POST and PATCH, writing nothing', async (value) => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { date_of_sample_collection: value }) });
    expectError(res, 422, 'invalid_value', '/data/attributes/date_of_sample_collection');
    expect(res.body.errors[0].detail).toContain('date_of_sample_collection');
    expect(await sampleCounts()).toEqual(before);

    const existing = await createMetadata({ date_of_sample_collection: '2020-01-01' });
    expectError(await patch(existing.id, { date_of_sample_collection: value }), 422, 'invalid_value', '/data/attributes/date_of_sample_collection');
    expect((await getMetadata(existing.id)).attributes.date_of_sample_collection).toBe('2020-01-01');
  });
});

describe('POST /sample_metadata with a sample relationship', () => {
  it("replaces the sample's empty record: the old one is gone and the sample points at the new one", async () => {
    const sample = await createSample();
    const old = await metadataOfSample(sample.id);
    const before = await sampleCounts();

    const res = await call('POST', '/api/v2/sample_metadata', {
      body: doc('sample_metadata', { cohort: 'Replacement', gender: 'mixed' }, { sample: rel('samples', sample.id) }),
    });
    expect(res.status).toBe(201);
    const fresh = res.body.data;
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.attributes).toEqual({ ...EMPTY, cohort: 'Replacement', gender: 'Mixed' });

    expectError(await call('GET', `/api/v2/sample_metadata/${old.id}`), 404, 'record_not_found');
    expect((await metadataOfSample(sample.id)).id).toBe(fresh.id);
    const linkage = await call('GET', `/api/v2/samples/${sample.id}/relationships/sample_metadata`);
    expect(linkage.body.data).toEqual({ type: 'sample_metadata', id: fresh.id });
    const included = await call('GET', `/api/v2/samples/${sample.id}?include=sample_metadata`);
    expect(included.body.included.map((r: any) => `${r.type}:${r.id}`)).toEqual([`sample_metadata:${fresh.id}`]);
    expect((await call('GET', `/api/v2/sample_metadata/${fresh.id}/sample`)).body.data).toMatchObject({ type: 'samples', id: sample.id });

    const found = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${sample.id}`);
    expect(found.body.data.map((m: any) => m.id)).toEqual([fresh.id]);
    expect(found.body.meta.record_count).toBe(1);

    // One created, one deleted.
    expect(await sampleCounts()).toEqual(before);
    // The deleted record cannot be linked any more.
    const relink = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, { sample_metadata: rel('sample_metadata', old.id) }) });
    expectError(relink, 404, 'record_not_found');
  });

  it('renders the sample linkage in the POST response when included', async () => {
    const sample = await createSample();
    const res = await call('POST', '/api/v2/sample_metadata?include=sample', {
      body: doc('sample_metadata', { volume: '1' }, { sample: rel('samples', sample.id) }),
    });
    expect(res.status).toBe(201);
    expect(res.body.data.relationships.sample.data).toEqual({ type: 'samples', id: sample.id });
    expect(res.body.included).toEqual([expect.objectContaining({ type: 'samples', id: sample.id })]);
  });

  it('replaces an empty record that was PATCHed back to empty', async () => {
    const sample = await createSample();
    const old = await metadataOfSample(sample.id);
    expect((await patch(old.id, { cohort: 'temporary' })).status).toBe(200);
    expect((await patch(old.id, { cohort: null })).status).toBe(200);
    const fresh = await createMetadata({ cohort: 'now' }, { sample: rel('samples', sample.id) });
    expect((await metadataOfSample(sample.id)).id).toBe(fresh.id);
    expectError(await call('GET', `/api/v2/sample_metadata/${old.id}`), 404);
  });

  it('refuses (422) when the current record holds data, and writes nothing', async () => {
    const sample = await createSample();
    const current = await metadataOfSample(sample.id);
    expect((await patch(current.id, { donor_id: 'HELD' })).status).toBe(200);
    const before = await sampleCounts();

    const res = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 'Intruder' }, { sample: rel('samples', sample.id) }) });
    expectError(res, 422, 'invalid_value', '/data/relationships/sample');
    expect(res.body.errors[0].detail).toContain('sample');

    expect(await sampleCounts()).toEqual(before);
    const still = await metadataOfSample(sample.id);
    expect(still.id).toBe(current.id);
    expect(still.attributes).toEqual({ ...EMPTY, donor_id: 'HELD' });
    const found = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${sample.id}`);
    expect(found.body.data.map((m: any) => m.id)).toEqual([current.id]);
  });

  it('answers 404 for an unknown sample and 400 for a wrong linkage type, writing nothing', async () => {
    const before = await sampleCounts();
    expectError(
      await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 'x' }, { sample: rel('samples', '999999') }) }),
      404,
      'record_not_found',
      '/data/relationships/sample/data',
    );
    expectError(
      await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 'x' }, { sample: rel('studies', '1') }) }),
      400,
      'type_mismatch',
    );
    expectError(
      await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 'x' }, { sample: { data: [{ type: 'samples', id: '1' }] } }) }),
      400,
      'invalid_linkage',
    );
    expect(await sampleCounts()).toEqual(before);
  });

  it('an explicit null sample creates an orphan record', async () => {
    const data = await createMetadata({ cohort: 'orphan' }, { sample: { data: null } });
    expect((await call('GET', `/api/v2/sample_metadata/${data.id}/sample`)).body.data).toBeNull();
  });
});

describe('filter[sample_id] and reading', () => {
  it("finds each sample's record; a comma list finds several", async () => {
    const a = await createSample();
    const b = await createSample();
    const ma = await metadataOfSample(a.id);
    const mb = await metadataOfSample(b.id);
    const one = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${a.id}`);
    expect(one.body.data.map((m: any) => m.id)).toEqual([ma.id]);
    const both = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${a.id},${b.id}`);
    expect(both.body.data.map((m: any) => m.id)).toEqual([ma.id, mb.id]);
    expect(both.body.meta.record_count).toBe(2);
    const none = await call('GET', '/api/v2/sample_metadata?filter[sample_id]=999999');
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.record_count).toBe(0);
  });

  it('follows the sample: an orphan record, an unknown sample or a value that is not an id finds nothing; with filter[id] both must hold', async () => {
    const orphan = await createMetadata({ cohort: 'unlinked' }, { sample: { data: null } });
    const sample = await createSample();
    const own = await metadataOfSample(sample.id);
    for (const value of ['abc', '0', '-1', '1.5', `${sample.id}x`]) {
      const res = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${value}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.record_count).toBe(0);
    }
    const mixed = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=abc,${sample.id}`);
    expect(mixed.body.data.map((m: any) => m.id)).toEqual([own.id]);
    const both = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${sample.id}&filter[id]=${own.id},${orphan.id}`);
    expect(both.body.data.map((m: any) => m.id)).toEqual([own.id]);
    const neither = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${sample.id}&filter[id]=${orphan.id}`);
    expect(neither.body.data).toEqual([]);
  });

  it('reads past a BatchGetItem of 100 keys: 120 samples among 500 values find their 120 records; 501 values are a 400 naming the filter', async () => {
    const samples = await Promise.all(Array.from({ length: 120 }, () => createSample()));
    const unknown = Array.from({ length: 380 }, (_, i) => String(900_000_000 + i));
    const values = [...samples.map((sample) => sample.id), ...unknown];
    const found = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${values.join(',')}&page[size]=100`);
    expect(found.status).toBe(200);
    expect(found.body.meta.record_count).toBe(120);
    expect(found.body.data).toHaveLength(100);
    const rest = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${values.join(',')}&page[size]=100&page[number]=2`);
    const ids = [...found.body.data, ...rest.body.data].map((m: any) => m.id);
    expect(new Set(ids).size).toBe(120);
    const tooMany = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${[...values, '900000999'].join(',')}`);
    expectError(tooMany, 400, undefined);
    expect(tooMany.body.errors[0].source).toEqual({ parameter: 'filter[sample_id]' });
  });

  it('rejects unknown filters (400)', async () => {
    for (const filter of ['uuid', 'cohort', 'sample']) {
      const res = await call('GET', `/api/v2/sample_metadata?filter[${filter}]=1`);
      expectError(res, 400, 'filter_not_allowed');
      expect(res.body.errors[0].source).toEqual({ parameter: `filter[${filter}]` });
    }
  });

  it('applies a sparse fieldset', async () => {
    const data = await createMetadata(ALL_VALUES);
    const res = await call('GET', `/api/v2/sample_metadata/${data.id}?fields[sample_metadata]=sample_common_name,volume,concentration`);
    expect(res.body.data.attributes).toEqual({ sample_common_name: 'Homo sapiens', volume: '50', concentration: '12.5' });
    expect(res.body.data.relationships ?? {}).toEqual({});
  });

  it('answers 404 for an unknown record', async () => {
    expectError(await call('GET', '/api/v2/sample_metadata/999999'), 404, 'record_not_found');
  });
});
