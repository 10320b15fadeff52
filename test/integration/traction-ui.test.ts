import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, createSample, createTube, rel } from '../support/fixtures.ts';
import { adminUuid, postTransfer, templateUuid } from '../support/lab.ts';
import { freshStore } from '../support/store.ts';

/**
 * traction-ui's calls to the reference's API v2, replayed (sanger/traction-ui; each call cites its file): its
 * receptions import plates, tubes, Kinnex tubes and multiplexed libraries by barcode from `labware` with deep
 * include strings, and its Kinnex report reads studies with their metadata's faculty sponsor. Every query
 * string is built as the client builds it (src/api/createRequest.js, `parametersToString`: the keys of
 * `{ filter, ...labwareRequestConfig }` in order, nested objects as `key[name]=value`, nothing encoded), sent
 * with its headers (src/api/createRequest.js `defaultHeaders.jsonApi` and src/api/Config.js's
 * `X-Sequencescape-Client-Id`), and the answer read back the way src/lib/receptions/sequencescapeUtils.js
 * reads it.
 */

/** src/api/createRequest.js, parametersToString: `a[b]=c&…`, values as they are (no encoding). */
const query = (parameters: Record<string, string | Record<string, string>>): string =>
  Object.entries(parameters)
    .flatMap(([key, value]) => (typeof value === 'string' ? [`${key}=${value}`] : Object.entries(value).map(([name, v]) => `${key}[${name}]=${v}`)))
    .join('&');

/** src/api/createRequest.js defaultHeaders.jsonApi; the key header is src/api/Config.js's (call sends it). */
const TRACTION_HEADERS = { 'content-type': 'application/vnd.api+json', accept: 'application/vnd.api+json' };

const get = async (path: string) => {
  const res = await call('GET', path, { headers: TRACTION_HEADERS });
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 400)}`).toBe(200);
  return res.body;
};

/** A reception's `labwareRequestConfig`: its include string and sparse fieldsets. */
interface RequestConfig {
  include: string;
  fields: Record<string, string>;
}

/** src/lib/receptions/SequencescapePlates.js, labwareRequestConfig. */
const PLATES_CONFIG: RequestConfig = {
  include: 'receptacles.aliquots.sample.sample_metadata,receptacles.aliquots.study',
  fields: {
    plates: 'labware_barcode,receptacles,retention_instruction',
    tubes: 'labware_barcode,receptacles,retention_instruction',
    wells: 'position,aliquots',
    receptacles: 'aliquots',
    samples: 'sample_metadata,name,uuid',
    sample_metadata: 'sample_common_name',
    studies: 'uuid',
    aliquots: 'study,library_type,sample',
  },
};
/** src/lib/receptions/SequencescapeTubes.js, labwareRequestConfig. */
const TUBES_CONFIG: RequestConfig = {
  include: 'receptacles.aliquots.sample.sample_metadata,receptacles.aliquots.study',
  fields: {
    tubes: 'labware_barcode,receptacles',
    receptacles: 'aliquots',
    samples: 'sample_metadata,name,uuid',
    sample_metadata: 'sample_common_name',
    studies: 'uuid',
    aliquots: 'study,library_type,sample',
  },
};
/** src/lib/receptions/SRJaguarKinnex.js, labwareRequestConfig. */
const KINNEX_CONFIG: RequestConfig = {
  include: 'receptacles.aliquots.sample.sample_metadata,receptacles.aliquots.study',
  fields: {
    tubes: 'labware_barcode,receptacles',
    receptacles: 'aliquots',
    samples: 'sample_metadata,name,uuid',
    sample_metadata: 'sample_common_name,supplier_name,date_of_sample_collection,donor_id',
    studies: 'uuid',
    aliquots: 'study,library_type,sample',
  },
};
/** src/lib/receptions/SequencescapeMultiplexedLibraries.js, labwareRequestConfig. */
const MULTIPLEXED_CONFIG: RequestConfig = {
  include:
    'receptacles.aliquots.library.aliquots.sample.sample_metadata,receptacles.aliquots.library.aliquots.study,receptacles.aliquots.library.aliquots,receptacles.aliquots.library.labware.receptacles',
  fields: {
    tubes: 'labware_barcode,receptacles',
    labware: 'labware_barcode,receptacles',
    receptacles: 'aliquots',
    samples: 'sample_metadata,name,uuid',
    sample_metadata: 'sample_common_name,volume,concentration',
    studies: 'uuid',
    aliquots: 'study,library_type,sample,insert_size_to,tag_oligo',
  },
};

/** src/lib/receptions/sequencescapeUtils.js, getLabware: `request.get({ filter: { barcode: barcodes }, ...labwareRequestConfig })`. */
const labwareByBarcode = (barcodes: string[], config: RequestConfig) => get(`/api/v2/labware?${query({ filter: { barcode: barcodes.join(',') }, ...config })}`);

// sequencescapeUtils.js: findIncluded and getIncludedData, as the client reads an answer.
const findIncluded = (included: any[], data: any, type: string) => included.find((i) => i.id === data.id && i.type === type);
function getIncludedData(labware: any, included: any[]) {
  expect(labware.relationships.aliquots?.data?.length, 'the client throws without aliquots').toBeGreaterThan(0);
  const aliquot = findIncluded(included, labware.relationships.aliquots.data[0], 'aliquots');
  const study = findIncluded(included, aliquot.relationships.study.data, 'studies');
  const sample = findIncluded(included, aliquot.relationships.sample.data, 'samples');
  const sample_metadata = findIncluded(included, sample.relationships.sample_metadata.data, 'sample_metadata');
  return { aliquot, study, sample, sample_metadata };
}

let studyA: { id: string; uuid: string };
let studyB: { id: string; uuid: string };
const METADATA = {
  sample_common_name: 'Homo sapiens',
  supplier_name: 'SUP-1',
  donor_id: 'D-7',
  date_of_sample_collection: '2026-11-30',
  volume: '12',
  concentration: '3.5',
};

/** A sample with the metadata traction-ui reads, in a receptacle, with a study (and, for libraries, its library and insert size). */
async function sampleIn(receptacle: { type: string; id: string }, study: string, library?: { insert_size_to: number }) {
  const sample = await createSample();
  const metadata = (await get(`/api/v2/samples/${sample.id}/sample_metadata`)).data;
  const patched = await call('PATCH', `/api/v2/sample_metadata/${metadata.id}`, { body: doc('sample_metadata', METADATA, undefined, metadata.id) });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const res = await call('POST', '/api/v2/aliquots', {
    body: doc(
      'aliquots',
      { library_type: 'Pacbio_HiFi', ...(library ?? {}) },
      {
        receptacle: { data: receptacle },
        sample: rel('samples', sample.id),
        study: rel('studies', study),
        ...(library ? { library: { data: receptacle } } : {}),
      },
    ),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return sample;
}

const receptacleOf = async (tube: any) => (await get(`/api/v2/tubes/${tube.id}/receptacle`)).data;

beforeAll(async () => {
  await freshStore();
  const studyRecord = async (name: string) => {
    const id = await idOf('studies', 'name', name);
    return { id, uuid: (await get(`/api/v2/studies/${id}`)).data.attributes.uuid };
  };
  studyA = await studyRecord('Study A');
  studyB = await studyRecord('Study B');
});

describe('receptions: SequencescapePlates.js, plates by barcode', () => {
  it('answers the deep include with each filled well’s position, aliquot, study uuid, sample and common name; empty wells skipped', async () => {
    const plate = await createPlate();
    const wells = (await get(`/api/v2/plates/${plate.id}/wells?page[size]=3`)).data;
    const samples = [await sampleIn({ type: 'wells', id: wells[0].id }, studyA.id), await sampleIn({ type: 'wells', id: wells[2].id }, studyB.id)];
    const { data, included } = await labwareByBarcode([plate.attributes.labware_barcode.machine_barcode], PLATES_CONFIG);
    expect(data).toHaveLength(1);
    const [labware] = data;
    expect(labware.type).toBe('plates');
    expect(labware.attributes.retention_instruction).toBeNull();
    // transformPlate: each receptacle a well; those without aliquots dropped.
    const imported = labware.relationships.receptacles.data
      .map((receptacle: any) => findIncluded(included, receptacle, 'wells'))
      .filter((well: any) => well.relationships.aliquots.data.length > 0)
      .map((well: any) => {
        const { aliquot, study, sample, sample_metadata } = getIncludedData(well, included);
        return {
          position: well.attributes.position.name,
          study: study.attributes.uuid,
          library_type: aliquot.attributes.library_type,
          name: sample.attributes.name,
          species: sample_metadata.attributes.sample_common_name,
        };
      });
    expect(imported).toEqual([
      { position: 'A1', study: studyA.uuid, library_type: 'Pacbio_HiFi', name: samples[0].attributes.name, species: 'Homo sapiens' },
      { position: 'C1', study: studyB.uuid, library_type: 'Pacbio_HiFi', name: samples[1].attributes.name, species: 'Homo sapiens' },
    ]);
    // Sparse fieldsets as asked: a sample renders its name and uuid only.
    expect(Object.keys(findIncluded(included, { id: samples[0].id }, 'samples').attributes).sort()).toEqual(['name', 'uuid']);
  });
});

describe('receptions: SequencescapeTubes.js and SRJaguarKinnex.js, tubes by barcode', () => {
  let tubes: any[];
  beforeAll(async () => {
    tubes = [await createTube('Stock Tube'), await createTube('Stock Tube')];
    for (const [i, tube] of tubes.entries()) await sampleIn(await receptacleOf(tube), i === 0 ? studyA.id : studyB.id);
  });

  it('tubes: several barcodes at once, each tube’s receptacle → aliquot → study, sample, metadata', async () => {
    const barcodes = tubes.map((t) => t.attributes.labware_barcode.human_barcode);
    const { data, included } = await labwareByBarcode(barcodes, TUBES_CONFIG);
    const imported = data.map((labware: any) => {
      const receptacle = findIncluded(included, labware.relationships.receptacles.data[0], 'receptacles');
      const { study, sample_metadata } = getIncludedData(receptacle, included);
      return {
        barcode: labware.attributes.labware_barcode.human_barcode,
        study: study.attributes.uuid,
        species: sample_metadata.attributes.sample_common_name,
      };
    });
    expect(imported.sort((a: any, b: any) => a.barcode.localeCompare(b.barcode))).toEqual(
      [
        { barcode: barcodes[0], study: studyA.uuid, species: 'Homo sapiens' },
        { barcode: barcodes[1], study: studyB.uuid, species: 'Homo sapiens' },
      ].sort((a, b) => a.barcode.localeCompare(b.barcode)),
    );
  });

  it('Kinnex: every sample of the tube with its supplier name, donor and collection date', async () => {
    const { data, included } = await labwareByBarcode([tubes[0].attributes.labware_barcode.human_barcode], KINNEX_CONFIG);
    const receptacle = findIncluded(included, data[0].relationships.receptacles.data[0], 'receptacles');
    // getAllSamplesAndMetadataFromAliquots
    const samples = receptacle.relationships.aliquots.data.map((a: any) => {
      const aliquot = findIncluded(included, a, 'aliquots');
      const sample = findIncluded(included, aliquot.relationships.sample.data, 'samples');
      return findIncluded(included, sample.relationships.sample_metadata.data, 'sample_metadata').attributes;
    });
    expect(samples).toEqual([{ sample_common_name: 'Homo sapiens', supplier_name: 'SUP-1', date_of_sample_collection: '2026-11-30', donor_id: 'D-7' }]);
  });
});

describe('receptions: SequencescapeMultiplexedLibraries.js, a multiplexed library tube by barcode', () => {
  it('includes the pool’s libraries with their aliquots, samples, studies and labware; the pool reads volume, concentration, insert size', async () => {
    const library = await createTube('Library Tube');
    const libraryReceptacle = await receptacleOf(library);
    const sample = await sampleIn(libraryReceptacle, studyA.id, { insert_size_to: 8000 });
    const mx = await createTube('MX Tube');
    const moved = await postTransfer({
      template: await templateUuid('Transfer between specific tubes'),
      source: library.attributes.uuid,
      destination: mx.attributes.uuid,
      user: await adminUuid(),
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);

    const mxBarcode = mx.attributes.labware_barcode.human_barcode;
    const { data, included } = await labwareByBarcode([mxBarcode], MULTIPLEXED_CONFIG);
    expect(data.map((d: any) => d.type)).toEqual(['tubes']);
    // buildPool: the first sample_metadata and the first aliquot included stand for the pool.
    const sampleMetadata = included.find((i: any) => i.type === 'sample_metadata');
    const aliquot = included.find((i: any) => i.type === 'aliquots');
    expect({
      barcode: data[0].attributes.labware_barcode.human_barcode,
      volume: sampleMetadata.attributes.volume,
      concentration: sampleMetadata.attributes.concentration,
      insert_size: aliquot.attributes.insert_size_to,
    }).toEqual({ barcode: mxBarcode, volume: '12', concentration: '3.5', insert_size: 8000 });

    // transformMultiplexedLibraryTube: each library's labware, its receptacle, and what getIncludedData reads.
    // The client picks the library tubes out of `included` by type `labware` (contract §7.4 types a receptacle's
    // labware so; another branch makes it so): here they are found by the type the receptacle's linkage gives.
    const labwareType = (await get(`/api/v2/receptacles/${libraryReceptacle.id}?include=labware`)).data.relationships.labware.data.type;
    const libraries = included.filter((i: any) => i.type === labwareType && i.id === library.id);
    expect(libraries).toHaveLength(1);
    const childReceptacle = findIncluded(included, libraries[0].relationships.receptacles.data[0], 'receptacles');
    const { aliquot: libraryAliquot, study, sample: librarySample, sample_metadata } = getIncludedData(childReceptacle, included);
    expect({
      barcode: libraries[0].attributes.labware_barcode.human_barcode,
      study: study.attributes.uuid,
      name: librarySample.attributes.name,
      library: {
        volume: sample_metadata.attributes.volume,
        insert_size: libraryAliquot.attributes.insert_size_to,
        tag_sequence: libraryAliquot.attributes.tag_oligo,
      },
    }).toEqual({
      barcode: library.attributes.labware_barcode.human_barcode,
      study: studyA.uuid,
      name: sample.attributes.name,
      library: { volume: '12', insert_size: 8000, tag_sequence: null },
    });
  });
});

describe('reports: KinnexReport.js, fetchSequencescapeStudies', () => {
  it('finds studies by a comma list of uuids with study_metadata.faculty_sponsor, and reads each study’s submitting faculty', async () => {
    const { data, included } = await get(
      `/api/v2/studies?${query({ filter: { uuid: `${studyA.uuid},${studyB.uuid}` }, include: 'study_metadata.faculty_sponsor' })}`,
    );
    // groupIncludedByResource (src/api/JsonApi.js): included grouped by type.
    const byType = (type: string) => included.filter((i: any) => i.type === type);
    const report = data.map((study: any) => {
      const metadata = byType('study_metadata').find((s: any) => s.id === study.relationships.study_metadata.data.id);
      const sponsor = byType('faculty_sponsors').find((s: any) => s.id === metadata.relationships.faculty_sponsor.data.id);
      return { study_number: study.id, uuid: study.attributes.uuid, study_name: study.attributes.name, submitting_faculty: sponsor.attributes.name };
    });
    expect(report.sort((a: any, b: any) => a.study_name.localeCompare(b.study_name))).toEqual([
      { study_number: studyA.id, uuid: studyA.uuid, study_name: 'Study A', submitting_faculty: 'Prof Sponsor A' },
      { study_number: studyB.id, uuid: studyB.uuid, study_name: 'Study B', submitting_faculty: 'Prof Sponsor B' },
    ]);
  });
});
