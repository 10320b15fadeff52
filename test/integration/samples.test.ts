import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '#lib/store/client.ts';
import { call, doc, idOf } from '../support/api.ts';
import { createSample, rel, rels, SAMPLE_METADATA_FIELDS, sampleCounts, uniqueName } from '../support/fixtures.ts';
import { expectError, idsOf } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { refused } from '../support/table.ts';

/**
 * samples (interface.md "samples", contract §2 samples): creation with its metadata record, the
 * sample_metadata linking rules, studies and component_samples, the name rules, control/control_type,
 * filters and PATCH. After every rejected write the test checks that nothing was written.
 */

beforeAll(freshStore);

const BASE = 'https://lts.test/api/v2';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Numbers the names and keys some tests make up themselves. */
let seq = 0;

async function getSample(id: string, query = ''): Promise<any> {
  const res = await call('GET', `/api/v2/samples/${id}${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The id of a sample's metadata record, through the related-resource endpoint. */
async function metadataIdOf(sampleId: string): Promise<string> {
  const res = await call('GET', `/api/v2/samples/${sampleId}/sample_metadata`);
  expect(res.status).toBe(200);
  expect(res.body.data.type).toBe('sample_metadata');
  return res.body.data.id;
}

async function metadataForSample(sampleId: string): Promise<any[]> {
  const res = await call('GET', `/api/v2/sample_metadata?filter[sample_id]=${sampleId}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

let studyA: string;
let studyB: string;

beforeAll(async () => {
  studyA = await idOf('studies', 'name', 'Study A');
  studyB = await idOf('studies', 'name', 'Study B');
});

describe('POST /samples', () => {
  it('creates a sample and renders every attribute, with absolute links and no linkage unless included', async () => {
    const before = await sampleCounts();
    const name = uniqueName('Full');
    const res = await call('POST', '/api/v2/samples', {
      body: doc('samples', { name, site_sample_id: 'SITE-0001', control: true, control_type: 'pcr positive' }),
    });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data.type).toBe('samples');
    expect(data.id).toMatch(/^[1-9]\d*$/);
    expect(data.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      name,
      site_sample_id: 'SITE-0001',
      sanger_sample_id: 'SITE-0001',
      control: true,
      control_type: 'pcr positive',
    });
    expect(data.links.self).toBe(`${BASE}/samples/${data.id}`);
    expect(res.headers.Location).toBe(`${BASE}/samples/${data.id}`);
    expect(Object.keys(data.relationships).sort()).toEqual(['component_samples', 'poly_metadata', 'sample_manifest', 'sample_metadata', 'studies']);
    for (const [relName, relationship] of Object.entries<any>(data.relationships)) {
      expect(relationship.links).toEqual({ self: `${BASE}/samples/${data.id}/relationships/${relName}`, related: `${BASE}/samples/${data.id}/${relName}` });
      expect(relationship).not.toHaveProperty('data');
    }
    expect(await sampleCounts()).toEqual({ samples: before.samples + 1, sample_metadata: before.sample_metadata + 1 });

    const read = await getSample(data.id);
    expect(read.data.attributes).toEqual(data.attributes);
  });

  it('renders unset attributes as null', async () => {
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', {}) });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toEqual({
      uuid: expect.stringMatching(UUID_V4),
      name: null,
      site_sample_id: null,
      sanger_sample_id: null,
      control: null,
      control_type: null,
    });
  });

  it('creates its empty sample_metadata record, reachable via the related link, include and filter[sample_id]', async () => {
    const sample = await createSample();

    const related = await call('GET', `/api/v2/samples/${sample.id}/sample_metadata`);
    expect(related.status).toBe(200);
    const metadata = related.body.data;
    expect(metadata.type).toBe('sample_metadata');
    expect(Object.keys(metadata.attributes).sort()).toEqual([...SAMPLE_METADATA_FIELDS].sort());
    for (const field of SAMPLE_METADATA_FIELDS) expect(metadata.attributes[field]).toBeNull();
    expect(related.body.links.self).toBe(`${BASE}/samples/${sample.id}/sample_metadata`);

    const included = await getSample(sample.id, '?include=sample_metadata');
    expect(included.data.relationships.sample_metadata.data).toEqual({ type: 'sample_metadata', id: metadata.id });
    expect(included.included).toHaveLength(1);
    expect(included.included[0]).toMatchObject({ type: 'sample_metadata', id: metadata.id });
    // Only the included relationship carries linkage.
    expect(included.data.relationships.studies).not.toHaveProperty('data');

    const linkage = await call('GET', `/api/v2/samples/${sample.id}/relationships/sample_metadata`);
    expect(linkage.status).toBe(200);
    expect(linkage.body.data).toEqual({ type: 'sample_metadata', id: metadata.id });

    const found = await metadataForSample(sample.id);
    expect(found.map((m) => m.id)).toEqual([metadata.id]);

    const back = await call('GET', `/api/v2/sample_metadata/${metadata.id}/sample`);
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({ type: 'samples', id: sample.id });

    // Round trip: the primary sample is not repeated in included.
    const nested = await getSample(sample.id, '?include=sample_metadata.sample');
    expect(nested.included.map((r: any) => `${r.type}:${r.id}`)).toEqual([`sample_metadata:${metadata.id}`]);
    expect(nested.included[0].relationships.sample.data).toEqual({ type: 'samples', id: sample.id });
  });

  it('returns the new metadata record in the POST response when asked to include it', async () => {
    const res = await call('POST', '/api/v2/samples?include=sample_metadata', { body: doc('samples', { name: uniqueName() }) });
    expect(res.status).toBe(201);
    const linkage = res.body.data.relationships.sample_metadata.data;
    expect(linkage.type).toBe('sample_metadata');
    expect(res.body.included).toEqual([expect.objectContaining({ type: 'sample_metadata', id: linkage.id })]);
    expect(await metadataIdOf(res.body.data.id)).toBe(linkage.id);
  });

  it('links an existing, unlinked sample_metadata record instead of creating one', async () => {
    const orphan = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 'Cohort-Link', donor_id: 'D-77' }) });
    expect(orphan.status).toBe(201);
    const metadataId = orphan.body.data.id;
    expect(await call('GET', `/api/v2/sample_metadata/${metadataId}/sample`).then((r) => r.body.data)).toBeNull();

    const before = await sampleCounts();
    const sample = await createSample({}, { sample_metadata: rel('sample_metadata', metadataId) });
    expect(await sampleCounts()).toEqual({ samples: before.samples + 1, sample_metadata: before.sample_metadata });

    expect(await metadataIdOf(sample.id)).toBe(metadataId);
    const found = await metadataForSample(sample.id);
    expect(found).toHaveLength(1);
    expect(found[0].id).toBe(metadataId);
    expect(found[0].attributes).toMatchObject({ cohort: 'Cohort-Link', donor_id: 'D-77' });
    const back = await call('GET', `/api/v2/sample_metadata/${metadataId}/sample`);
    expect(back.body.data).toMatchObject({ type: 'samples', id: sample.id });
  });

  it('refuses a sample_metadata record linked to another sample (422) and writes nothing', async () => {
    const owner = await createSample();
    const taken = await metadataIdOf(owner.id);
    const before = await sampleCounts();
    const name = uniqueName('Thief');

    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name }, { sample_metadata: rel('sample_metadata', taken) }) });
    expectError(res, 422, 'invalid_value', '/data/relationships/sample_metadata');
    expect(res.body.errors[0].detail).toContain('sample_metadata');

    expect(await sampleCounts()).toEqual(before);
    expect((await call('GET', `/api/v2/samples?filter[name]=${name}`)).body.data).toEqual([]);
    expect(await metadataIdOf(owner.id)).toBe(taken);
    expect((await metadataForSample(owner.id)).map((m) => m.id)).toEqual([taken]);
    expect((await call('GET', `/api/v2/sample_metadata/${taken}/sample`)).body.data).toMatchObject({ type: 'samples', id: owner.id });
  });

  it('answers 404 for an unknown sample_metadata record and writes nothing', async () => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, { sample_metadata: rel('sample_metadata', '999999') }) });
    expectError(res, 404, 'record_not_found', '/data/relationships/sample_metadata/data');
    expect(await sampleCounts()).toEqual(before);
  });

  it('links studies (to-many), rendered with include=studies and via /samples/{id}/studies', async () => {
    const sample = await createSample({}, { studies: rels('studies', [studyA, studyB]) });

    const read = await getSample(sample.id, '?include=studies');
    expect(read.data.relationships.studies.data).toEqual([
      { type: 'studies', id: studyA },
      { type: 'studies', id: studyB },
    ]);
    expect(read.included.map((s: any) => [s.type, s.id, s.attributes.name]).sort()).toEqual([
      ['studies', studyA, 'Study A'],
      ['studies', studyB, 'Study B'],
    ]);

    const related = await call('GET', `/api/v2/samples/${sample.id}/studies`);
    expect(related.status).toBe(200);
    expect(related.body.data.map((s: any) => s.attributes.name).sort()).toEqual(['Study A', 'Study B']);
    expect(related.body.meta.record_count).toBe(2);

    const linkage = await call('GET', `/api/v2/samples/${sample.id}/relationships/studies`);
    expect(linkage.body.data).toEqual([
      { type: 'studies', id: studyA },
      { type: 'studies', id: studyB },
    ]);

    const none = await createSample();
    const empty = await call('GET', `/api/v2/samples/${none.id}/studies`);
    expect(empty.body.data).toEqual([]);
    expect(empty.body.meta.record_count).toBe(0);
    expect((await getSample(none.id, '?include=studies')).data.relationships.studies.data).toEqual([]);
  });

  it('rejects studies linkage that does not resolve (404) or has the wrong type (400), writing nothing', async () => {
    const before = await sampleCounts();
    const unknown = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, { studies: rels('studies', [studyA, '999999']) }) });
    expectError(unknown, 404, 'record_not_found', '/data/relationships/studies/data/1');

    const wrongType = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, { studies: rels('users', ['1']) }) });
    expectError(wrongType, 400, 'type_mismatch', '/data/relationships/studies/data/0/type');

    const notArray = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, { studies: rel('studies', studyA) }) });
    expectError(notArray, 400, 'invalid_linkage');

    const badId = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, { studies: rels('studies', ['abc']) }) });
    expectError(badId, 400, 'invalid_id');
    expect(await sampleCounts()).toEqual(before);
  });

  it('accepts component_samples linkage typed samples or component_samples and renders it as samples', async () => {
    const partA = await createSample();
    const partB = await createSample();
    const mix = await createSample(
      {},
      {
        component_samples: {
          data: [
            { type: 'samples', id: partA.id },
            { type: 'component_samples', id: partB.id },
          ],
        },
      },
    );

    const read = await getSample(mix.id, '?include=component_samples');
    expect(read.data.relationships.component_samples.data).toEqual([
      { type: 'samples', id: partA.id },
      { type: 'samples', id: partB.id },
    ]);
    expect(read.included.map((s: any) => `${s.type}:${s.id}`).sort()).toEqual([`samples:${partA.id}`, `samples:${partB.id}`].sort());

    const related = await call('GET', `/api/v2/samples/${mix.id}/component_samples`);
    expect(related.status).toBe(200);
    expect(related.body.data.map((s: any) => [s.type, s.id])).toEqual([
      ['samples', partA.id],
      ['samples', partB.id],
    ]);
    const linkage = await call('GET', `/api/v2/samples/${mix.id}/relationships/component_samples`);
    expect(linkage.body.data).toEqual([
      { type: 'samples', id: partA.id },
      { type: 'samples', id: partB.id },
    ]);
  });

  it('rejects component_samples of another type (400) or unknown samples (404), writing nothing', async () => {
    const before = await sampleCounts();
    const wrongType = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, { component_samples: rels('studies', [studyA]) }) });
    expectError(wrongType, 400, 'type_mismatch', '/data/relationships/component_samples/data/0/type');
    const unknown = await call('POST', '/api/v2/samples', {
      body: doc('samples', { name: uniqueName() }, { component_samples: rels('component_samples', ['999999']) }),
    });
    expectError(unknown, 404, 'record_not_found', '/data/relationships/component_samples/data/0');
    expect(await sampleCounts()).toEqual(before);
  });

  it('rejects unknown, read-only and client-id members, writing nothing', async () => {
    const before = await sampleCounts();
    const readOnly = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName(), uuid: '8b0c56b6-3d5b-4f59-9d0b-0d0f0f0f0f0f' }) });
    expectError(readOnly, 400, 'param_not_allowed', '/data/attributes/uuid');

    const unknownRel = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, { projects: rels('projects', ['1']) }) });
    expectError(unknownRel, 400, 'param_not_allowed', '/data/relationships/projects');

    const clientId = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }, undefined, '77') });
    expectError(clientId, 403, 'client_generated_id');

    const wrongType = await call('POST', '/api/v2/samples', { body: doc('sample', { name: uniqueName() }) });
    expectError(wrongType, 409, 'conflict');

    const notJson = await call('POST', '/api/v2/samples', { body: '{"data":' });
    expectError(notJson, 400, 'invalid_json');

    const noData = await call('POST', '/api/v2/samples', { body: { type: 'samples' } });
    expectError(noData, 400, 'missing_member');

    const readKey = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName() }), key: 'test-read-key-0123456789' });
    expectError(readKey, 403, 'forbidden');

    expect(await sampleCounts()).toEqual(before);
  });

  it('rejects values of the wrong JSON type with 422, writing nothing', async () => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 42, site_sample_id: ['a'], control: 'yes' }) });
    expect(res.status).toBe(422);
    const pointers = res.body.errors.map((e: any) => e.source.pointer).sort();
    expect(pointers).toEqual(['/data/attributes/control', '/data/attributes/name', '/data/attributes/site_sample_id']);
    expect(await sampleCounts()).toEqual(before);
  });

  it('replays a POST repeated with the same Idempotency-Key without writing again; another body with that key is 422', async () => {
    const key = `idem-${process.pid}-${++seq}`;
    const body = doc('samples', { name: uniqueName('Idem'), site_sample_id: 'IDEM' });
    const before = await sampleCounts();
    const first = await call('POST', '/api/v2/samples', { body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    const again = await call('POST', '/api/v2/samples', { body, headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await sampleCounts()).toEqual({ samples: before.samples + 1, sample_metadata: before.sample_metadata + 1 });

    const other = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('Idem') }), headers: { 'Idempotency-Key': key } });
    expectError(other, 422, 'idempotency_key_reused');
    expect(await sampleCounts()).toEqual({ samples: before.samples + 1, sample_metadata: before.sample_metadata + 1 });
  });

  it('ids keep increasing after rejected writes; a write refused at commit skips the ids it reserved (contract §1.3)', async () => {
    const first = await createSample();
    const firstMetadata = Number(await metadataIdOf(first.id));
    // Refused before any id is reserved: nothing is skipped.
    const bad = await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'not valid!' }) });
    expectError(bad, 422);
    const second = await createSample();
    expect(Number(second.id)).toBe(Number(first.id) + 1);
    expect(Number(await metadataIdOf(second.id))).toBe(firstMetadata + 1);
    // Refused at commit (the name is taken): its ids are skipped, never handed out again.
    const duplicate = await call('POST', '/api/v2/samples', { body: doc('samples', { name: first.attributes.name }) });
    expectError(duplicate, 422, 'not_unique');
    const third = await createSample();
    expect(Number(third.id)).toBe(Number(second.id) + 2);
    expect(Number(await metadataIdOf(third.id))).toBe(firstMetadata + 3);
  });
});

describe('concurrent writes', () => {
  it('two simultaneous POSTs of one name: exactly one is created, the other is 422 not_unique', async () => {
    const name = `Race-${process.pid}-${++seq}`;
    const before = await sampleCounts();
    const results = await Promise.all([0, 1].map(() => call('POST', '/api/v2/samples', { body: doc('samples', { name }) })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(results.find((r) => r.status === 422)!.body.errors[0].code).toBe('not_unique');
    expect(await sampleCounts()).toEqual({ samples: before.samples + 1, sample_metadata: before.sample_metadata + 1 });
    expect((await call('GET', `/api/v2/samples?filter[name]=${name}`)).body.data).toHaveLength(1);
  });

  it('two simultaneous POSTs naming one free sample_metadata record: one links it, the other is 422', async () => {
    const free = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 'Contested' }) });
    expect(free.status).toBe(201);
    const before = await sampleCounts();
    const results = await Promise.all(
      [0, 1].map(() =>
        call('POST', '/api/v2/samples', {
          body: doc('samples', { name: uniqueName('Claim') }, { sample_metadata: rel('sample_metadata', free.body.data.id) }),
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    const winner = results.find((r) => r.status === 201)!.body.data.id;
    expect(await sampleCounts()).toEqual({ samples: before.samples + 1, sample_metadata: before.sample_metadata });
    expect((await metadataForSample(winner)).map((m) => m.id)).toEqual([free.body.data.id]);
    expect((await call('GET', `/api/v2/sample_metadata/${free.body.data.id}/sample`)).body.data).toMatchObject({ type: 'samples', id: winner });
  });

  it('simultaneous POSTs of different samples all get distinct ids (or a 409), with no lost record', async () => {
    const before = await sampleCounts();
    const results = await Promise.all([0, 1, 2].map(() => call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('Par') }) })));
    for (const r of results) expect([201, 409]).toContain(r.status);
    const created = results.filter((r) => r.status === 201).map((r) => r.body.data.id);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created).size).toBe(created.length);
    expect(await sampleCounts()).toEqual({ samples: before.samples + created.length, sample_metadata: before.sample_metadata + created.length });
  });
});

describe('name', () => {
  it('accepts letters, digits, _ and -', async () => {
    const name = `Ab_9-xY-${++seq}`;
    const sample = await createSample({ name });
    expect(sample.attributes.name).toBe(name);
  });

  it.each(['has space', 'semi;colon', 'dot.name', 'slash/name', 'ünïcode', 'tab\tname', 'star*'])('rejects %j (422) and writes nothing', async (name) => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name }) });
    expectError(res, 422, 'invalid_value', '/data/attributes/name');
    expect(res.body.errors[0].detail).toContain('name');
    expect(await sampleCounts()).toEqual(before);
  });

  it('is unique case-insensitively: 422 not_unique at /data/attributes/name, nothing written', async () => {
    const name = `Dup-Name-${++seq}`;
    await createSample({ name });
    for (const variant of [name, name.toLowerCase(), name.toUpperCase()]) {
      const before = await sampleCounts();
      const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: variant, site_sample_id: 'SHOULD-NOT-EXIST' }) });
      expectError(res, 422, 'not_unique', '/data/attributes/name');
      expect(res.body.errors[0].detail).toContain('name');
      expect(await sampleCounts()).toEqual(before);
    }
    const matches = await call('GET', `/api/v2/samples?filter[name]=${name}`);
    expect(matches.body.data).toHaveLength(1);
    expect(matches.body.data[0].attributes.name).toBe(name);
    expect((await call('GET', '/api/v2/samples?filter[site_sample_id]=SHOULD-NOT-EXIST')).body.data).toEqual([]);
  });

  it('cannot take a name already in use when set later by PATCH (422 not_unique)', async () => {
    const name = `Taken-${++seq}`;
    await createSample({ name });
    const unnamed = await createSample({ name: null });
    const res = await call('PATCH', `/api/v2/samples/${unnamed.id}`, { body: doc('samples', { name: name.toLowerCase() }, undefined, unnamed.id) });
    expectError(res, 422, 'not_unique', '/data/attributes/name');
    expect((await getSample(unnamed.id)).data.attributes.name).toBeNull();
  });

  it('cannot change once set (422), not even its case; the stored name stays', async () => {
    const name = `Fixed-${++seq}`;
    const sample = await createSample({ name });
    for (const change of [`Other-${seq}`, name.toLowerCase(), null]) {
      const res = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { name: change }, undefined, sample.id) });
      expectError(res, 422, 'invalid_value', '/data/attributes/name');
      expect(res.body.errors[0].detail).toContain(name);
    }
    const read = await getSample(sample.id);
    expect(read.data.attributes.name).toBe(name);
    expect((await call('GET', `/api/v2/samples?filter[name]=Other-${seq}`)).body.data).toEqual([]);

    // Sending the same name again is no change.
    const same = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { name, site_sample_id: 'SAME-NAME' }, undefined, sample.id) });
    expect(same.status).toBe(200);
    expect(same.body.data.attributes).toMatchObject({ name, site_sample_id: 'SAME-NAME' });
  });

  it('may be set later if it was empty, and is then fixed', async () => {
    const sample = await createSample({ name: null });
    expect(sample.attributes.name).toBeNull();
    const name = `Later-${++seq}`;
    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { name }, undefined, sample.id) });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.name).toBe(name);
    const found = await call('GET', `/api/v2/samples?filter[name]=${name}`);
    expect(found.body.data.map((s: any) => s.id)).toEqual([sample.id]);

    const again = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { name: `${name}-b` }, undefined, sample.id) });
    expectError(again, 422, 'invalid_value', '/data/attributes/name');
    expect((await getSample(sample.id)).data.attributes.name).toBe(name);
  });

  it('rejects an invalid name set later by PATCH (422)', async () => {
    const sample = await createSample({ name: null });
    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { name: 'bad name' }, undefined, sample.id) });
    expectError(res, 422, 'invalid_value', '/data/attributes/name');
    expect((await getSample(sample.id)).data.attributes.name).toBeNull();
  });
});

describe('control and control_type', () => {
  it.each(['negative', 'positive', 'pcr negative', 'pcr positive', 'lysate negative'])('accepts control_type %j on a control', async (controlType) => {
    const sample = await createSample({ control: true, control_type: controlType });
    expect(sample.attributes).toMatchObject({ control: true, control_type: controlType });
    expect((await getSample(sample.id)).data.attributes.control_type).toBe(controlType);
  });

  it('accepts a non-control sample without control_type', async () => {
    const sample = await createSample({ control: false });
    expect(sample.attributes).toMatchObject({ control: false, control_type: null });
  });

  it.each([
    ['control false', { control: false, control_type: 'positive' }],
    ['control absent', { control_type: 'negative' }],
    ['control null', { control: null, control_type: 'pcr negative' }],
  ])('rejects control_type with %s (422) and writes nothing', async (_label, attributes) => {
    const before = await sampleCounts();
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName(), ...attributes }) });
    expectError(res, 422, 'invalid_value', '/data/attributes/control_type');
    expect(res.body.errors[0].detail).toContain('control_type');
    expect(await sampleCounts()).toEqual(before);
  });

  it.each(['other', 'Positive', 'pcr_positive', 'lysate positive', ''])(
    'rejects control_type %j outside the list (422) and writes nothing',
    async (controlType) => {
      const before = await sampleCounts();
      const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName(), control: true, control_type: controlType }) });
      expectError(res, 422, undefined, '/data/attributes/control_type');
      expect(await sampleCounts()).toEqual(before);
    },
  );

  it('rejects a PATCH that leaves control_type on a sample that is no longer a control', async () => {
    const sample = await createSample({ control: true, control_type: 'positive' });
    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { control: false }, undefined, sample.id) });
    expectError(res, 422, 'invalid_value', '/data/attributes/control_type');
    expect((await getSample(sample.id)).data.attributes).toMatchObject({ control: true, control_type: 'positive' });

    const both = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { control: false, control_type: null }, undefined, sample.id) });
    expect(both.status).toBe(200);
    expect(both.body.data.attributes).toMatchObject({ control: false, control_type: null });
  });

  it('rejects a PATCH that sets control_type on a non-control sample', async () => {
    const sample = await createSample();
    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { control_type: 'negative' }, undefined, sample.id) });
    expectError(res, 422, 'invalid_value', '/data/attributes/control_type');
    expect((await getSample(sample.id)).data.attributes).toMatchObject({ control: null, control_type: null });

    const ok = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { control: true, control_type: 'negative' }, undefined, sample.id) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.attributes).toMatchObject({ control: true, control_type: 'negative' });
  });
});

describe('filters', () => {
  let one: any;
  let two: any;
  let three: any;
  const tag = `F${process.pid}x${Date.now()}`;

  beforeAll(async () => {
    one = await createSample({ name: `${tag}-one`, site_sample_id: `${tag}-SITE-1` });
    two = await createSample({ name: `${tag}-two`, site_sample_id: `${tag}-SITE-2` });
    three = await createSample({ name: `${tag}-three`, site_sample_id: `${tag}-SITE-1` });
  });

  it('filter[uuid] finds one sample; several by comma list or repeated keys', async () => {
    const single = await call('GET', `/api/v2/samples?filter[uuid]=${one.attributes.uuid}`);
    expect(idsOf(single)).toEqual([one.id]);
    expect(single.body.meta.record_count).toBe(1);

    const upper = await call('GET', `/api/v2/samples?filter[uuid]=${one.attributes.uuid.toUpperCase()}`);
    expect(idsOf(upper)).toEqual([one.id]);

    const list = await call('GET', `/api/v2/samples?filter[uuid]=${one.attributes.uuid},${two.attributes.uuid}`);
    expect(idsOf(list)).toEqual([one.id, two.id]);

    const repeated = await call('GET', `/api/v2/samples?filter%5Buuid%5D%5B%5D=${two.attributes.uuid}&filter%5Buuid%5D%5B%5D=${three.attributes.uuid}`);
    expect(idsOf(repeated)).toEqual([two.id, three.id]);

    const none = await call('GET', '/api/v2/samples?filter[uuid]=00000000-0000-4000-8000-000000000000');
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.record_count).toBe(0);

    // The uuid of a record of another type finds no sample.
    const study = await call('GET', `/api/v2/studies/${studyA}`);
    expect(study.body.data.attributes.uuid).toMatch(UUID_V4);
    expect((await call('GET', `/api/v2/samples?filter[uuid]=${study.body.data.attributes.uuid}`)).body.data).toEqual([]);
  });

  it('filter[name] finds by name, also case-insensitively and as a comma list', async () => {
    expect(idsOf(await call('GET', `/api/v2/samples?filter[name]=${tag}-two`))).toEqual([two.id]);
    expect(idsOf(await call('GET', `/api/v2/samples?filter[name]=${tag.toUpperCase()}-TWO`))).toEqual([two.id]);
    expect(idsOf(await call('GET', `/api/v2/samples?filter[name]=${tag}-one,${tag}-three`))).toEqual([one.id, three.id]);
    expect(idsOf(await call('GET', `/api/v2/samples?filter[name]=${tag}-none`))).toEqual([]);
  });

  it('filter[site_sample_id] finds every sample with that id; comma lists mean any of', async () => {
    expect(idsOf(await call('GET', `/api/v2/samples?filter[site_sample_id]=${tag}-SITE-1`))).toEqual([one.id, three.id]);
    expect(idsOf(await call('GET', `/api/v2/samples?filter[site_sample_id]=${tag}-SITE-1,${tag}-SITE-2`))).toEqual([one.id, two.id, three.id]);
    const res = await call('GET', `/api/v2/samples?filter[site_sample_id]=${tag}-SITE-2`);
    expect(idsOf(res)).toEqual([two.id]);
    expect(res.body.meta.record_count).toBe(1);
  });

  it('combines filters (all must match)', async () => {
    const res = await call('GET', `/api/v2/samples?filter[site_sample_id]=${tag}-SITE-1&filter[name]=${tag}-three,${tag}-two`);
    expect(idsOf(res)).toEqual([three.id]);
  });

  it('rejects unknown filters (400) with source.parameter', async () => {
    for (const filter of ['supplier_name', 'control', 'sample_id']) {
      const res = await call('GET', `/api/v2/samples?filter[${filter}]=x`);
      expectError(res, 400, 'filter_not_allowed');
      expect(res.body.errors[0].source).toEqual({ parameter: `filter[${filter}]` });
    }
  });

  it('rejects an unknown include (400)', async () => {
    const res = await call('GET', `/api/v2/samples/${one.id}?include=projects`);
    expectError(res, 400, 'invalid_include');
  });
});

describe("sanger_sample_id, the reference's name of site_sample_id (contract §7.4)", () => {
  it('POST by the reference name stores one value, rendered under both names and found by both filters', async () => {
    const id = uniqueName('SANGER');
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('Named'), sanger_sample_id: id }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ site_sample_id: id, sanger_sample_id: id });
    expect((await getSample(res.body.data.id)).data.attributes).toMatchObject({ site_sample_id: id, sanger_sample_id: id });
    expect(idsOf(await call('GET', `/api/v2/samples?filter[sanger_sample_id]=${id}`))).toEqual([res.body.data.id]);
    expect(idsOf(await call('GET', `/api/v2/samples?filter[site_sample_id]=${id}`))).toEqual([res.body.data.id]);
    const sparse = await call('GET', `/api/v2/samples/${res.body.data.id}?fields[samples]=sanger_sample_id`);
    expect(sparse.body.data.attributes).toEqual({ sanger_sample_id: id });
  });

  it('both names with one value are accepted; PATCH by either name changes the one value', async () => {
    const sample = await createSample({ site_sample_id: 'BOTH-1', sanger_sample_id: 'BOTH-1' });
    expect(sample.attributes).toMatchObject({ site_sample_id: 'BOTH-1', sanger_sample_id: 'BOTH-1' });
    const byReference = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { sanger_sample_id: 'BOTH-2' }, undefined, sample.id) });
    expect(byReference.body.data.attributes).toMatchObject({ site_sample_id: 'BOTH-2', sanger_sample_id: 'BOTH-2' });
    const bySite = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { site_sample_id: 'BOTH-3' }, undefined, sample.id) });
    expect(bySite.body.data.attributes).toMatchObject({ site_sample_id: 'BOTH-3', sanger_sample_id: 'BOTH-3' });
    expect(idsOf(await call('GET', '/api/v2/samples?filter[sanger_sample_id]=BOTH-2'))).toEqual([]);
    const cleared = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { sanger_sample_id: null }, undefined, sample.id) });
    expect(cleared.body.data.attributes).toMatchObject({ site_sample_id: null, sanger_sample_id: null });
  });

  it('the two names with different values: 422 at sanger_sample_id naming both, nothing written (POST and PATCH)', async () => {
    const before = await sampleCounts();
    const post = await refused('POST', '/api/v2/samples', doc('samples', { name: uniqueName(), site_sample_id: 'A-1', sanger_sample_id: 'B-1' }));
    const error = expectError(post, 422, 'invalid_value', '/data/attributes/sanger_sample_id');
    for (const named of ['sanger_sample_id', 'site_sample_id', '"A-1"', '"B-1"']) expect(error.detail).toContain(named);
    // A value and null differ too.
    expectError(await refused('POST', '/api/v2/samples', doc('samples', { site_sample_id: 'A-1', sanger_sample_id: null })), 422, 'invalid_value');
    expect(await sampleCounts()).toEqual(before);
    const sample = await createSample({ site_sample_id: 'KEPT' });
    const patch = await refused(
      'PATCH',
      `/api/v2/samples/${sample.id}`,
      doc('samples', { site_sample_id: 'A-2', sanger_sample_id: 'B-2' }, undefined, sample.id),
    );
    expectError(patch, 422, 'invalid_value', '/data/attributes/sanger_sample_id');
    expect((await getSample(sample.id)).data.attributes).toMatchObject({ site_sample_id: 'KEPT', sanger_sample_id: 'KEPT' });
  });

  it('a value of the wrong JSON type is a 422 at the reference name, nothing written', async () => {
    expectError(await refused('POST', '/api/v2/samples', doc('samples', { sanger_sample_id: 12 })), 422, 'invalid_type', '/data/attributes/sanger_sample_id');
  });
});

describe('PATCH /samples/{id}', () => {
  it('updates site_sample_id, control and control_type', async () => {
    const sample = await createSample({ site_sample_id: 'OLD' });
    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, {
      body: doc('samples', { site_sample_id: 'NEW', control: true, control_type: 'lysate negative' }, undefined, sample.id),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({
      ...sample.attributes,
      site_sample_id: 'NEW',
      sanger_sample_id: 'NEW',
      control: true,
      control_type: 'lysate negative',
    });
    expect((await getSample(sample.id)).data.attributes).toEqual(res.body.data.attributes);
    expect((await call('GET', '/api/v2/samples?filter[site_sample_id]=NEW')).body.data.map((s: any) => s.id)).toContain(sample.id);
    expect((await call('GET', '/api/v2/samples?filter[site_sample_id]=OLD')).body.data.map((s: any) => s.id)).not.toContain(sample.id);
  });

  it('replaces studies and component_samples', async () => {
    const part = await createSample();
    const sample = await createSample({}, { studies: rels('studies', [studyA]) });
    const res = await call('PATCH', `/api/v2/samples/${sample.id}?include=studies,component_samples`, {
      body: {
        data: {
          type: 'samples',
          id: sample.id,
          relationships: { studies: rels('studies', [studyB]), component_samples: rels('component_samples', [part.id]) },
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.relationships.studies.data).toEqual([{ type: 'studies', id: studyB }]);
    expect(res.body.data.relationships.component_samples.data).toEqual([{ type: 'samples', id: part.id }]);

    const read = await getSample(sample.id, '?include=studies,component_samples');
    expect(read.data.relationships.studies.data).toEqual([{ type: 'studies', id: studyB }]);
    expect(read.data.relationships.component_samples.data).toEqual([{ type: 'samples', id: part.id }]);

    const cleared = await call('PATCH', `/api/v2/samples/${sample.id}`, {
      body: { data: { type: 'samples', id: sample.id, relationships: { studies: { data: [] } } } },
    });
    expect(cleared.status).toBe(200);
    expect((await call('GET', `/api/v2/samples/${sample.id}/studies`)).body.data).toEqual([]);
  });

  it('switches to another unlinked sample_metadata record; the old one is released', async () => {
    const sample = await createSample();
    const old = await metadataIdOf(sample.id);
    const free = await call('POST', '/api/v2/sample_metadata', { body: doc('sample_metadata', { cohort: 'Switch' }) });
    expect(free.status).toBe(201);
    const before = await sampleCounts();

    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, {
      body: { data: { type: 'samples', id: sample.id, relationships: { sample_metadata: rel('sample_metadata', free.body.data.id) } } },
    });
    expect(res.status).toBe(200);
    expect(await metadataIdOf(sample.id)).toBe(free.body.data.id);
    expect((await metadataForSample(sample.id)).map((m) => m.id)).toEqual([free.body.data.id]);
    expect((await call('GET', `/api/v2/sample_metadata/${old}/sample`)).body.data).toBeNull();
    expect((await call('GET', `/api/v2/sample_metadata/${free.body.data.id}/sample`)).body.data).toMatchObject({ type: 'samples', id: sample.id });
    expect(await sampleCounts()).toEqual(before);
  });

  it('refuses a sample_metadata record of another sample, or none at all (422), changing nothing', async () => {
    const owner = await createSample();
    const sample = await createSample();
    const ownersMetadata = await metadataIdOf(owner.id);
    const own = await metadataIdOf(sample.id);

    const stolen = await call('PATCH', `/api/v2/samples/${sample.id}`, {
      body: { data: { type: 'samples', id: sample.id, relationships: { sample_metadata: rel('sample_metadata', ownersMetadata) } } },
    });
    expectError(stolen, 422, 'invalid_value', '/data/relationships/sample_metadata');

    const removed = await call('PATCH', `/api/v2/samples/${sample.id}`, {
      body: { data: { type: 'samples', id: sample.id, relationships: { sample_metadata: { data: null } } } },
    });
    expectError(removed, 422, 'invalid_value', '/data/relationships/sample_metadata');

    expect(await metadataIdOf(sample.id)).toBe(own);
    expect(await metadataIdOf(owner.id)).toBe(ownersMetadata);
    expect((await metadataForSample(owner.id)).map((m) => m.id)).toEqual([ownersMetadata]);
    expect((await metadataForSample(sample.id)).map((m) => m.id)).toEqual([own]);
  });

  it('keeps everything when one problem rejects the PATCH', async () => {
    const sample = await createSample({ site_sample_id: 'KEEP' }, { studies: rels('studies', [studyA]) });
    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, {
      body: {
        data: {
          type: 'samples',
          id: sample.id,
          attributes: { site_sample_id: 'CHANGED', control_type: 'positive' },
          relationships: { studies: rels('studies', [studyB]) },
        },
      },
    });
    expectError(res, 422, 'invalid_value', '/data/attributes/control_type');
    const read = await getSample(sample.id, '?include=studies');
    expect(read.data.attributes.site_sample_id).toBe('KEEP');
    expect(read.data.relationships.studies.data).toEqual([{ type: 'studies', id: studyA }]);
  });

  it('rejects bad PATCH requests: read-only attribute 400, id mismatch 409, missing id 400, unknown 404, malformed id 400', async () => {
    const sample = await createSample();
    expectError(
      await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { uuid: 'x' }, undefined, sample.id) }),
      400,
      'param_not_allowed',
      '/data/attributes/uuid',
    );
    expectError(
      await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { site_sample_id: 'x' }, undefined, String(Number(sample.id) + 1000)) }),
      409,
      'conflict',
    );
    expectError(await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { site_sample_id: 'x' }) }), 400, 'missing_member');
    expectError(await call('PATCH', '/api/v2/samples/999999', { body: doc('samples', { site_sample_id: 'x' }, undefined, '999999') }), 404, 'record_not_found');
    expectError(await call('PATCH', '/api/v2/samples/abc', { body: doc('samples', { site_sample_id: 'x' }, undefined, 'abc') }), 400, 'invalid_id');
    expect((await getSample(sample.id)).data.attributes.site_sample_id).toBeNull();
  });

  it('answers 405 with Allow for DELETE and for writes to relationship endpoints', async () => {
    const sample = await createSample();
    const del = await call('DELETE', `/api/v2/samples/${sample.id}`);
    expectError(del, 405, 'method_not_allowed');
    expect(del.headers.Allow).toBe('GET, PATCH');
    const relWrite = await call('PATCH', `/api/v2/samples/${sample.id}/relationships/studies`, { body: { data: [] } });
    expectError(relWrite, 405, 'method_not_allowed');
    expect(relWrite.headers.Allow).toBe('GET');
    const collection = await call('PATCH', '/api/v2/samples', { body: doc('samples', {}) });
    expectError(collection, 405, 'method_not_allowed');
    expect(collection.headers.Allow).toBe('GET, POST');
    expect((await getSample(sample.id)).data.id).toBe(sample.id);
  });
});

describe('reading', () => {
  it('answers 404 for an unknown sample and 400 for a malformed id', async () => {
    expectError(await call('GET', '/api/v2/samples/999999'), 404, 'record_not_found');
    expectError(await call('GET', '/api/v2/samples/0'), 400, 'invalid_id');
    expectError(await call('GET', '/api/v2/samples/999999/sample_metadata'), 404, 'record_not_found');
    expectError(await call('GET', '/api/v2/samples/1/unknown_relationship'), 404);
  });

  it('lists samples in id order with a record count and page links', async () => {
    const res = await call('GET', '/api/v2/samples?page[size]=2');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(Number(res.body.data[0].id)).toBeLessThan(Number(res.body.data[1].id));
    const total = res.body.meta.record_count;
    expect(total).toBeGreaterThan(2);
    expect(res.body.links.first).toBe(`${BASE}/samples?page%5Bnumber%5D=1&page%5Bsize%5D=2`);
    expect(res.body.links.last).toBe(`${BASE}/samples?page%5Bnumber%5D=${Math.ceil(total / 2)}&page%5Bsize%5D=2`);
    expect(res.body.links.next).toMatch(/^https:\/\/lts\.test\/api\/v2\/samples\?page%5Bnumber%5D=2&page%5Bsize%5D=2/);
  });

  it('applies sparse fieldsets as traction-ui asks for them', async () => {
    const sample = await createSample({ site_sample_id: 'SPARSE' });
    const res = await call(
      'GET',
      `/api/v2/samples/${sample.id}?include=sample_metadata&fields[samples]=sample_metadata,name,uuid&fields[sample_metadata]=sample_common_name`,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.attributes).sort()).toEqual(['name', 'uuid']);
    expect(Object.keys(res.body.data.relationships)).toEqual(['sample_metadata']);
    expect(res.body.included[0].attributes).toEqual({ sample_common_name: null });
  });
});

describe('what a create writes', () => {
  // Only watches: the transactions go to DynamoDB Local unchanged.
  const WATCH = 'testWatchSampleTransactions';
  const sent: { Put?: { Item: { pk: string } }; Update?: { Key: { pk: string }; ExpressionAttributeNames: Record<string, string> } }[][] = [];
  beforeAll(() => {
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') sent.push((args.input as { TransactItems: (typeof sent)[number] }).TransactItems);
        return next(args);
      },
      { step: 'initialize', name: WATCH },
    );
  });
  afterAll(() => {
    dynamo().middlewareStack.remove(WATCH);
  });

  it('one transaction of five items: the sample, its name guard, its metadata record, one count shard for both, the request', async () => {
    sent.length = 0;
    const before = await sampleCounts();
    await createSample();
    expect(sent).toHaveLength(1);
    const keys = sent[0]!.map((item) => (item.Put ? `Put ${item.Put.Item.pk}` : `Update ${item.Update!.Key.pk}`).replace(/[0-9]+$|auto:.*$/, '…'));
    expect(keys.sort()).toEqual([
      'Put $lts#family_sample_metadata#id_…',
      'Put $lts#family_samples#id_…',
      'Put $lts#key_…',
      expect.stringMatching(/^Put \$lts#scope_samples\.name#value_/),
      'Update $lts#counts_samples',
    ]);
    const counted = Object.values(sent[0]!.find((item) => item.Update)!.Update!.ExpressionAttributeNames).sort();
    expect(counted).toEqual(['n:sample_metadata', 'n:samples']);
    expect(await sampleCounts()).toEqual({ samples: before.samples + 1, sample_metadata: before.sample_metadata + 1 });
  });
});
