import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, createSample, createTube, rel } from '../support/fixtures.ts';
import { adminUuid, postTransfer, templateUuid } from '../support/lab.ts';
import { expectError, idsOf, statuses } from '../support/responses.ts';
import { freshStore } from '../support/store.ts';
import { refused } from '../support/table.ts';

/**
 * The reference's remaining read types (contract §7.5): study metadata and faculty sponsors (reference data,
 * linked from studies), sample manifests (reference data, linked from samples), the types without a writer
 * here (lanes, work orders, pick lists, fragments: read-only and empty), and aliquots' `library` and
 * `insert_size_to`. Each: its reads (include, filters, fields), bad filters a 400, writes refused.
 */

let study: string;
let manifest: any;

beforeAll(async () => {
  await freshStore();
  study = await idOf('studies', 'name', 'Study A');
  manifest = (await call('GET', '/api/v2/sample_manifests')).body.data[0];
});

const get = async (path: string) => {
  const res = await call('GET', path);
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 400)}`).toBe(200);
  return res.body;
};
const included = (body: any, type: string) => (body.included ?? []).filter((r: any) => r.type === type);

describe('studies → study_metadata → faculty_sponsor', () => {
  it('includes each study’s metadata and its faculty sponsor, by the reference data’s names', async () => {
    const body = await get('/api/v2/studies?filter[name]=Study A,Study B&include=study_metadata.faculty_sponsor');
    expect(body.data.map((s: any) => s.attributes.name).sort()).toEqual(['Study A', 'Study B']);
    const metadata = included(body, 'study_metadata');
    const sponsors = included(body, 'faculty_sponsors');
    const sponsorOf = (name: string) => {
      const s = body.data.find((d: any) => d.attributes.name === name);
      const m = metadata.find((r: any) => r.id === s.relationships.study_metadata.data.id);
      return sponsors.find((r: any) => r.id === m.relationships.faculty_sponsor.data.id).attributes.name;
    };
    expect([sponsorOf('Study A'), sponsorOf('Study B')]).toEqual(['Prof Sponsor A', 'Prof Sponsor B']);
    // The key the loader finds a study's metadata by is written, never rendered.
    expect(Object.keys(metadata[0].attributes)).toEqual(['uuid']);
  });

  it('reads study_metadata and faculty_sponsors on their own: by id, filter[name], fields, related links', async () => {
    const sponsor = await idOf('faculty_sponsors', 'name', 'prof sponsor b');
    expect((await get(`/api/v2/faculty_sponsors/${sponsor}?fields[faculty_sponsors]=name`)).data.attributes).toEqual({ name: 'Prof Sponsor B' });
    const metadata = (await get(`/api/v2/studies/${study}/study_metadata`)).data;
    expect(metadata.type).toBe('study_metadata');
    expect((await get(`/api/v2/study_metadata/${metadata.id}/faculty_sponsor`)).data.attributes.name).toBe('Prof Sponsor A');
    expect((await get('/api/v2/study_metadata')).data).toHaveLength(2);
  });

  it('refuses unknown filters (400) and every write (405)', async () => {
    for (const type of ['study_metadata', 'faculty_sponsors']) {
      expectError(await call('GET', `/api/v2/${type}?filter[study]=Study A`), 400, 'filter_not_allowed');
      expectError(await refused('POST', `/api/v2/${type}`, doc(type, {})), 405);
    }
    expectError(await call('GET', '/api/v2/study_metadata?filter[name]=x'), 400, 'filter_not_allowed');
  });
});

describe('sample_manifests', () => {
  it('renders supplier_name; a sample links its manifest and includes it', async () => {
    expect(manifest.attributes).toEqual({ uuid: manifest.attributes.uuid, supplier_name: 'Supplier A' });
    const sample = (
      await call('POST', '/api/v2/samples', { body: doc('samples', { name: 'MANIFESTED-1' }, { sample_manifest: rel('sample_manifests', manifest.id) }) })
    ).body.data;
    const body = await get(`/api/v2/samples/${sample.id}?include=sample_manifest&fields[sample_manifests]=supplier_name`);
    expect(body.data.relationships.sample_manifest.data).toEqual({ type: 'sample_manifests', id: manifest.id });
    expect(body.included).toEqual([expect.objectContaining({ type: 'sample_manifests', id: manifest.id, attributes: { supplier_name: 'Supplier A' } })]);
    expect((await get(`/api/v2/samples/${sample.id}/sample_manifest`)).data.id).toBe(manifest.id);
  });

  it('a sample naming a manifest that does not exist is a 404, nothing written; unknown filters are 400', async () => {
    const res = await refused('POST', '/api/v2/samples', doc('samples', { name: 'MANIFESTED-2' }, { sample_manifest: rel('sample_manifests', '999999') }));
    expectError(res, 404);
    expectError(await call('GET', '/api/v2/sample_manifests?filter[name]=Manifest 1'), 400, 'filter_not_allowed');
  });
});

describe('types without a writer: lanes, fragments (and the filters work_orders and pick_lists refuse)', () => {
  it.each([
    ['lanes', 'include=samples,studies,projects&fields[lanes]=name'],
    ['fragments', 'fields[fragments]=uuid'],
  ])('%s: an empty collection with its includes, filters and fields; 404 by id; 405 for writes', async (type, query) => {
    const body = await get(`/api/v2/${type}?${query}`);
    expect(body.data).toEqual([]);
    expect(body.meta.record_count).toBe(0);
    expectError(await call('GET', `/api/v2/${type}/1`), 404);
    expectError(await refused('POST', `/api/v2/${type}`, doc(type, {})), 405);
  });

  it('refuses bad filters with a 400 naming the filter and value', async () => {
    const state = expectError(await call('GET', '/api/v2/work_orders?filter[state]=finished'), 400, 'invalid_parameter');
    expect(state.detail).toContain('filter[state]');
    expect(state.detail).toContain('"finished"');
    for (const [type, filter] of [
      ['lanes', 'name'],
      ['work_orders', 'study'],
      ['pick_lists', 'state'],
      ['fragments', 'uuid'],
    ]) {
      expectError(await call('GET', `/api/v2/${type}?filter[${filter}]=x`), 400, 'filter_not_allowed');
    }
    expectError(await call('GET', '/api/v2/lanes?include=labware'), 400);
  });
});

describe('aliquots: library and insert_size_to', () => {
  /** A library tube: its aliquot made in its own receptacle, which is its library. */
  async function libraryTube(insertSize: number) {
    const tube = await createTube('Library Tube');
    const receptacle = (await get(`/api/v2/tubes/${tube.id}/receptacle`)).data;
    const sample = await createSample();
    const res = await call('POST', '/api/v2/aliquots', {
      body: doc(
        'aliquots',
        { library_type: 'Standard', insert_size_to: insertSize },
        {
          receptacle: rel('receptacles', receptacle.id),
          sample: rel('samples', sample.id),
          study: rel('studies', study),
          library: rel('receptacles', receptacle.id),
        },
      ),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { tube, receptacle, aliquot: res.body.data };
  }

  it('renders both as POSTed; include=library finds the receptacle; copies carry them on', async () => {
    const { tube, receptacle, aliquot } = await libraryTube(450);
    expect(aliquot.attributes).toMatchObject({ insert_size_to: 450, tag_oligo: null, library_type: 'Standard' });
    const body = await get(`/api/v2/aliquots/${aliquot.id}?include=library.aliquots&fields[aliquots]=insert_size_to,tag_oligo,library`);
    expect(body.data.attributes).toEqual({ insert_size_to: 450, tag_oligo: null });
    expect(body.data.relationships.library.data).toEqual({ type: 'receptacles', id: receptacle.id });
    expect(included(body, 'receptacles').map((r: any) => r.id)).toEqual([receptacle.id]);
    // Pooled into an MX tube, the copy still names its library and insert size.
    const mx = await createTube('MX Tube');
    const moved = await postTransfer({
      template: await templateUuid('Transfer between specific tubes'),
      source: tube.attributes.uuid,
      destination: mx.attributes.uuid,
      user: await adminUuid(),
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    const copy = (await get(`/api/v2/tubes/${mx.id}/aliquots?include=library`)).data[0];
    expect(copy.attributes.insert_size_to).toBe(450);
    expect(copy.relationships.library.data).toEqual({ type: 'receptacles', id: receptacle.id });
  });

  it('an aliquot without them renders null for both', async () => {
    const plate = await createPlate();
    const well = (await get(`/api/v2/plates/${plate.id}/wells?page[size]=1`)).data[0];
    const sample = await createSample();
    const res = await call('POST', '/api/v2/aliquots', { body: doc('aliquots', {}, { receptacle: rel('wells', well.id), sample: rel('samples', sample.id) }) });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.insert_size_to).toBeNull();
    expect((await get(`/api/v2/aliquots/${res.body.data.id}/library`)).data).toBeNull();
  });

  it('refuses a bad insert size or an unknown library at the field, nothing written', async () => {
    const tube = await createTube('Library Tube');
    const receptacle = (await get(`/api/v2/tubes/${tube.id}/receptacle`)).data;
    const sample = await createSample();
    const body = (attributes: Record<string, unknown>, library = receptacle.id) =>
      doc('aliquots', attributes, { receptacle: rel('receptacles', receptacle.id), sample: rel('samples', sample.id), library: rel('receptacles', library) });
    for (const bad of [-1, 2.5, '450']) {
      const error = expectError(await refused('POST', '/api/v2/aliquots', body({ insert_size_to: bad })), 422, undefined, '/data/attributes/insert_size_to');
      expect(error.detail).toContain('insert_size_to');
    }
    expectError(await refused('POST', '/api/v2/aliquots', body({}, '999999001')), 404, undefined, '/data/relationships/library/data');
    const notReceptacle = doc(
      'aliquots',
      {},
      { receptacle: rel('receptacles', receptacle.id), sample: rel('samples', sample.id), library: rel('tubes', tube.id) },
    );
    expectError(await refused('POST', '/api/v2/aliquots', notReceptacle), 400, 'type_mismatch', '/data/relationships/library/data/type');
  });

  it('50 aliquots POSTed at once into the wells of one plate, each naming its well as its library, all land', async () => {
    const plate = await createPlate();
    const wells = (await get(`/api/v2/plates/${plate.id}/wells?page[size]=50`)).data;
    const samples = await Promise.all(wells.map(() => createSample()));
    const results = await Promise.all(
      wells.map((well: any, i: number) =>
        call('POST', '/api/v2/aliquots', {
          body: doc(
            'aliquots',
            { insert_size_to: 100 + i },
            { receptacle: rel('wells', well.id), sample: rel('samples', samples[i].id), library: rel('wells', well.id) },
          ),
        }),
      ),
    );
    expect(statuses(results)).toEqual(['201 × 50']);
    const held = await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=50&include=aliquots.library,aliquots.receptacle`);
    const aliquots = included(held.body, 'aliquots');
    expect(aliquots).toHaveLength(50);
    const libraryOf = new Map(aliquots.map((a: any) => [a.relationships.receptacle.data.id, a.relationships.library.data.id]));
    expect(idsOf(held).every((id) => libraryOf.get(id) === id)).toBe(true);
    expect(new Set(aliquots.map((a: any) => a.attributes.insert_size_to)).size).toBe(50);
  });
});
