import { expect } from 'vitest';
import { config } from '#lib/config.ts';
import { call, doc, idOf } from './api.ts';

type Attributes = Record<string, unknown>;
type Relationships = Record<string, unknown>;

/** A resource linkage: what a relationship names. */
export interface Linkage {
  type: string;
  id: string;
}

/** A tube as a rack's `tube_locations` need it. */
export interface Tube {
  id: string;
  uuid: string;
}

/** The eleven attributes of a sample_metadata record, in alphabetical order (`phenotype`: lighthouse's, docs/decisions.md). */
export const SAMPLE_METADATA_FIELDS = [
  'cohort',
  'collected_by',
  'concentration',
  'date_of_sample_collection',
  'donor_id',
  'gender',
  'phenotype',
  'sample_common_name',
  'sample_description',
  'supplier_name',
  'volume',
] as const;

/** A to-one relationship for a write document. */
export const rel = (type: string, id: string | number) => ({ data: { type, id: String(id) } });

/** A to-many relationship for a write document. */
export const rels = (type: string, ids: string[]) => ({ data: ids.map((id) => ({ type, id })) });

let seq = 0;
/** A name no other record of the test file uses. */
export const uniqueName = (prefix = 'S') => `${prefix}-${process.pid}-${++seq}`;

/** The record count of a collection (`meta.record_count`). */
export async function recordCount(type: string): Promise<number> {
  const res = await call('GET', `/api/v2/${type}?page[size]=1`);
  expect(res.status).toBe(200);
  expect(typeof res.body.meta.record_count).toBe('number');
  return res.body.meta.record_count;
}

/** Totals of samples and sample_metadata, to show what a write created (or that it created nothing). */
export async function sampleCounts(): Promise<{ samples: number; sample_metadata: number }> {
  return { samples: await recordCount('samples'), sample_metadata: await recordCount('sample_metadata') };
}

/** POSTs a resource and returns its `data`, failing the test unless it was created (201). */
export async function create(type: string, attributes: Attributes = {}, relationships?: Relationships): Promise<any> {
  const res = await call('POST', `/api/v2/${type}`, { body: doc(type, attributes, relationships) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** Per labware type: its purpose type, and the purpose and attributes a test gets by default. */
const LABWARE = {
  plates: { purposes: 'plate_purposes', purpose: 'Stock Plate', attributes: {} },
  tubes: { purposes: 'tube_purposes', purpose: 'Stock Tube', attributes: {} },
  tube_racks: { purposes: 'tube_rack_purposes', purpose: 'Tube Rack 96', attributes: { size: 96 } },
} as const;
type LabwareType = keyof typeof LABWARE;
type PurposeType = (typeof LABWARE)[LabwareType]['purposes'];

const purposeIds = new Map<string, Promise<string>>();
/** The id of a plate, tube or tube rack purpose by name, looked up once per table. */
export function purposeId(type: PurposeType, name: string): Promise<string> {
  const key = `${config().LTS_TABLE_NAME}\n${type}\n${name}`;
  let id = purposeIds.get(key);
  if (!id) {
    id = idOf(type, 'name', name);
    purposeIds.set(key, id);
  }
  return id;
}

/** Labware of a purpose (by name) through the API; the defaults are a Stock Plate, a Stock Tube and a 96-tube rack. */
async function createLabware(type: LabwareType, purpose: string = LABWARE[type].purpose, attributes: Attributes = LABWARE[type].attributes): Promise<any> {
  const purposes = LABWARE[type].purposes;
  return create(type, attributes, { purpose: rel(purposes, await purposeId(purposes, purpose)) });
}

/** A plate through the API. */
export const createPlate = (purpose?: string, attributes?: Attributes) => createLabware('plates', purpose, attributes);
/** A tube through the API. */
export const createTube = (purpose?: string, attributes?: Attributes) => createLabware('tubes', purpose, attributes);
/** A tube rack through the API. */
export const createRack = (purpose?: string, attributes?: Attributes) => createLabware('tube_racks', purpose, attributes);

/** The id and uuid of a created tube. */
export const tubeOf = (tube: any): Tube => ({ id: tube.id, uuid: tube.attributes.uuid });

/** A sample through the API, with a unique name unless `attributes` give one. */
export const createSample = (attributes: Attributes = {}, relationships?: Relationships) =>
  create('samples', { name: uniqueName(), ...attributes }, relationships);

/** A write document for an aliquot: a sample in a receptacle, with an optional study and library type; undefined parts are left out. */
export function aliquotDoc(receptacle: Linkage | undefined, sample: string | undefined, extra: { study?: string; library_type?: string } = {}) {
  return doc('aliquots', extra.library_type !== undefined ? { library_type: extra.library_type } : {}, {
    ...(receptacle ? { receptacle: { data: receptacle } } : {}),
    ...(sample ? { sample: rel('samples', sample) } : {}),
    ...(extra.study ? { study: rel('studies', extra.study) } : {}),
  });
}

/** Puts a sample into a receptacle (a well or a tube's receptacle) through the API and returns the aliquot. */
export async function addAliquot(receptacle: Linkage, sample: string, extra: { study?: string; library_type?: string } = {}): Promise<any> {
  const res = await call('POST', '/api/v2/aliquots', { body: aliquotDoc(receptacle, sample, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/**
 * A submission with one order of Study A for library creation, through the API: what requests out of wells
 * are made in (POST /requests names all three).
 */
export async function submissionWithOrder(): Promise<{ submission: any; order: any; requestType: string }> {
  const study = await idOf('studies', 'name', 'Study A');
  const requestType = await idOf('request_types', 'key', 'library_creation');
  const submission = (await call('POST', '/api/v2/submissions', { body: doc('submissions') })).body.data;
  const order = await call('POST', '/api/v2/orders', {
    body: doc(
      'orders',
      {},
      { submission: rel('submissions', submission.id), study: rel('studies', study), request_types: { data: [{ type: 'request_types', id: requestType }] } },
    ),
  });
  expect(order.status, JSON.stringify(order.body)).toBe(201);
  return { submission, order: order.body.data, requestType };
}

/**
 * Runs `make(0)` … `make(n - 1)`, `size` at a time, and returns the results in order. Creations that
 * advance one counter (labware, samples) collide and retry when run wide, so callers keep `size` small.
 */
export async function inBatches<T>(n: number, size: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < n; start += size) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(size, n - start) }, (_, i) => make(start + i)))));
  }
  return results;
}
