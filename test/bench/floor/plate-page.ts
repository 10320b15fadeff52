import { labwareOfSlot } from '#lib/domain/labware-ids.ts';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import { renderResource, type Fieldsets } from '#lib/jsonapi/render.ts';
import { asLinked } from '#lib/jsonapi/resource.ts';
import { aliquotViews, qcResultViews, receptacleViews, transferRequestViews } from '#lib/resources/labware-views.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { registry } from '#lib/resources/index.ts';
import { isSequencingKey } from '#lib/resources/submissions.ts';
import { decodeUuid } from '#lib/store/uuids.ts';
import { refsOf, type Ref, type RelValue, type StoredRecord } from '#lib/store/records.ts';
import { termsUnder, type Db, type Item } from './db.ts';
import { recordKey } from './keys.ts';
import type { Answer } from './reads.ts';
import { PLATE_PRESENTER_INCLUDES } from '../../support/limber.ts';

/**
 * The floor of Limber's plate page (`plate_for_presenter`: PLATE_PRESENTER_INCLUDES, with its fields of
 * submissions and sample metadata) for one plate: the least DynamoDB work the answer needs on today's
 * table, planned by hand — every read that does not wait for another runs at once (one BatchGetItem of all
 * the records a round names, the index Queries beside it), three rounds in all. It renders with the
 * service's own resource definitions (lib/jsonapi/render.ts and the labware views), so what the ratio
 * measures is the service's request path and include engine against a hand-planned read, not rendering.
 */

/** The include paths this floor answers, as Limber's client flattens them. */
export const PRESENTER_INCLUDE = PLATE_PRESENTER_INCLUDES.join(',');

const FIELDS: Fieldsets = new Map([
  ['submissions', new Set(['lanes_of_sequencing', 'multiplexed?'])],
  ['sample_metadata', new Set(['sample_common_name', 'collected_by', 'sample_description'])],
]);

/** Index Queries at once: the service's limit (lib/store/records.ts), so both are as polite to the table. */
const PARALLEL_QUERIES = 4;

const asRecord = (item: Item): StoredRecord => item as unknown as StoredRecord;

/**
 * The records of the refs, by `type:id` as asked: one BatchGetItem (chunks at once) of the items that hold
 * them — a record's own item, or for an embedded record its parent's (a request in its book), whose
 * embedded records are then built once.
 */
export async function load(db: Db, table: string, refs: readonly Ref[]): Promise<Map<string, StoredRecord>> {
  const storage = refs.map((ref) => ({ ref, ...registry.storageOf(ref) }));
  const keys = new Map(storage.map(({ family, id }) => [`${family}:${id}`, recordKey(family, id)]));
  const items = keys.size > 0 ? await db.batchGet(table, [...keys.values()]) : [];
  const holders = new Map(items.map((item) => [`${item.family}:${item.id}`, asRecord(item)]));
  const views = new Map<StoredRecord, Map<string, StoredRecord>>();
  const viewsOf = (holder: StoredRecord) => {
    if (!views.has(holder))
      views.set(holder, new Map(registry.embeddedIn(holder.type).flatMap((d) => d.embedded!.extract(holder).map((v) => [`${v.family}:${v.id}`, v] as const))));
    return views.get(holder)!;
  };
  const out = new Map<string, StoredRecord>();
  for (const { ref, family, id, embedded } of storage) {
    const holder = holders.get(`${family}:${id}`);
    const record = holder && embedded ? viewsOf(holder).get(`${registry.familyOf(ref.type)}:${ref.id}`) : holder;
    if (record) out.set(`${ref.type}:${ref.id}`, record);
  }
  return out;
}

const found = (records: Map<string, StoredRecord>, ref: Ref) => records.get(`${ref.type}:${ref.id}`);

/** The requests the records hold: requests' index entries name the books that hold them (lib/resources/request-books.ts). */
export const requestsIn = (records: readonly (StoredRecord | undefined)[]): StoredRecord[] =>
  records.flatMap((record) => (record ? registry.recordsOfType(record, 'requests') : []));

/** `termsUnder` for many values, a few Queries at once; the result per value. */
export async function termsUnderEach(db: Db, table: string, scope: string, values: readonly string[]): Promise<Map<string, Ref[]>> {
  const result = new Map<string, Ref[]>();
  const queue = [...values];
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL_QUERIES, queue.length) }, async () => {
      for (let value = queue.shift(); value !== undefined; value = queue.shift()) result.set(value, await termsUnder(db, table, scope, value));
    }),
  );
  return result;
}

/** The index value a record's pointing records are under: its aggregate (a well's plate, a request's book). */
export const aggregate = (ref: Ref) => registry.aggregateKey(ref);
export const unique = (refs: Ref[]): Ref[] => [...new Map(refs.map((r) => [`${r.type}:${r.id}`, r])).values()];

/** GET /api/v2/plates?filter[uuid]=…&include=PLATE_PRESENTER_INCLUDES&fields[…]: the page Limber opens after a scan. */
export async function plateForPresenter(db: Db, table: string, base: string, params: URLSearchParams): Promise<Answer> {
  const uuid = params.get('filter[uuid]') ?? '';
  const decoded = decodeUuid(uuid.toLowerCase());
  const plateItem = decoded ? (await db.batchGet(table, [recordKey('labware', decoded.id)]))[0] : undefined;
  const plate = plateItem && plateItem.uuid === uuid && plateItem.type === 'plates' ? asRecord(plateItem) : undefined;
  // The one page's links, as the service writes them: every other parameter kept, then the page's.
  const kept = [...params].filter(([k]) => !k.startsWith('page'));
  const page = [...kept, ['page[number]', '1'], ['page[size]', '100']].map(([k, v]) => `${encodeURIComponent(k!)}=${encodeURIComponent(v!)}`);
  const self = `${base}/api/v2/plates?${page.join('&')}`;
  if (!plate) return { status: 200, body: { data: [], links: { first: self, last: self }, meta: { record_count: 0 } } };

  const wells = receptacleViews(plate);
  const aliquots = aliquotViews(plate);
  const transferRequests = transferRequestViews(plate);
  const qcResults = qcResultViews(plate);
  const aliquotRequests = unique(aliquots.flatMap((a) => refsOf(a.rels.request)));
  const sourceLabware = unique(transferRequests.flatMap((t) => refsOf(t.rels.source_asset)).map((s) => ({ type: 'labware', id: labwareOfSlot(s.id) })));

  // Round 1: what the plate names, its children, and the requests out of its wells.
  const [first, childRefs, requestsOutRefs] = await Promise.all([
    load(db, table, [...refsOf(plate.rels.purpose), ...unique(aliquots.flatMap((a) => refsOf(a.rels.sample))), ...aliquotRequests, ...sourceLabware]),
    termsUnder(db, table, 'labware.parents', String(plate.id)),
    termsUnder(db, table, 'requests.asset', aggregate(plate)),
  ]);
  const samples = aliquots.flatMap((a) => refsOf(a.rels.sample)).flatMap((ref) => found(first, ref) ?? []);

  // Round 2: the samples' metadata, the children, the requests out of the wells; the requests' types and submissions; their poly metadata.
  const [second, polyMetadata] = await Promise.all([
    load(db, table, [
      ...samples.flatMap((s) => refsOf(s.rels.sample_metadata)),
      ...childRefs,
      ...requestsOutRefs,
      ...aliquotRequests.flatMap((ref) => {
        const request = found(first, ref);
        return request ? [...refsOf(request.rels.request_type), ...refsOf(request.rels.submission)] : [];
      }),
    ]),
    termsUnderEach(db, table, 'poly_metadata.metadatable', [...new Set(aliquotRequests.map(aggregate))]),
  ]);
  const children = childRefs.flatMap((ref) => found(second, ref) ?? []);
  // A book's requests are out of this plate's wells or out of other labware the book's requests moved into.
  const requestsOut = requestsIn(requestsOutRefs.map((ref) => found(second, ref))).filter((r) =>
    refsOf(r.rels.asset).some((a) => a.type === 'wells' && labwareOfSlot(a.id) === plate.id),
  );
  const aliquotRequestRecords = aliquotRequests.flatMap((ref) => found(first, ref) ?? []);
  const submissionRefs = unique([...aliquotRequestRecords, ...requestsOut].flatMap((r) => refsOf(r.rels.submission)));

  // Round 3: the children's purposes, the poly metadata, what the requests out name; each submission's requests and orders (its two attributes).
  const [third, submissionRequests, submissionOrders] = await Promise.all([
    load(db, table, [
      ...children.flatMap((c) => refsOf(c.rels.purpose)),
      ...[...polyMetadata.values()].flat(),
      ...requestsOut.flatMap((r) => [...refsOf(r.rels.request_type), ...refsOf(r.rels.submission)]),
    ]),
    termsUnderEach(db, table, 'requests.submission', submissionRefs.map(aggregate)),
    termsUnderEach(db, table, 'orders.submission', submissionRefs.map(aggregate)),
  ]);
  // Round 4: the submissions' requests and orders; round 5: their request types.
  const fourth = await load(db, table, [...submissionRequests.values(), ...submissionOrders.values()].flat());
  const fifth = await load(
    db,
    table,
    [...fourth.values(), ...requestsIn([...fourth.values()])].flatMap((r) => [...refsOf(r.rels.request_type), ...refsOf(r.rels.request_types)]),
  );
  const any = (ref: Ref) => found(first, ref) ?? found(second, ref) ?? found(third, ref) ?? found(fourth, ref) ?? found(fifth, ref);
  // A labware's purpose links and is included as the service declares it (`purposes`, lib/resources/labware.ts).
  const purposeRelationship = (labware: StoredRecord) => registry.get(labware.type)!.relationships!.purpose!;
  const purposeLinkage = (labware: StoredRecord) => asLinked(purposeRelationship(labware), labware.rels.purpose ?? null);
  const purposeOf = (labware: StoredRecord) => {
    const purpose = any(labware.rels.purpose as Ref);
    return purpose && registry.as(purpose, purposeRelationship(labware).linkedAs ?? purpose.type);
  };

  // Linkage, as the service resolves each relationship.
  const linkages = new Map<StoredRecord, Map<string, RelValue>>();
  const link = (record: StoredRecord, name: string, value: RelValue) => {
    if (!linkages.has(record)) linkages.set(record, new Map());
    linkages.get(record)!.set(name, value);
  };
  link(plate, 'purpose', purposeLinkage(plate));
  link(
    plate,
    'child_plates',
    children.filter((c) => c.type === 'plates').map((c) => ({ type: 'plates', id: c.id })),
  );
  link(
    plate,
    'wells',
    wells.map((w) => ({ type: 'wells', id: w.id })),
  );
  const downstreamTubes = new Map<number, Ref[]>();
  for (const child of children.filter((c) => c.type === 'tubes')) {
    for (const receptacle of labwareAttrs(child).receptacles) {
      for (const { source } of receptacle.transfers ?? [])
        downstreamTubes.set(source, unique([...(downstreamTubes.get(source) ?? []), { type: 'tubes', id: child.id }]));
    }
  }
  for (const well of wells) {
    link(well, 'qc_results', well.rels.qc_results ?? []);
    link(
      well,
      'downstream_tubes',
      (downstreamTubes.get(well.id) ?? []).sort((a, b) => a.id - b.id),
    );
    link(
      well,
      'requests_as_source',
      requestsOut.filter((r) => refsOf(r.rels.asset).some((a) => a.id === well.id)).map((r) => ({ type: 'requests', id: r.id })),
    );
    link(well, 'aliquots', well.rels.aliquots ?? []);
    link(well, 'transfer_requests_as_target', well.rels.transfer_requests_as_target ?? []);
  }
  for (const child of children) link(child, 'purpose', purposeLinkage(child));
  for (const request of [...aliquotRequestRecords, ...requestsOut]) {
    link(request, 'request_type', request.rels.request_type ?? null);
    link(request, 'primer_panel', null);
    link(request, 'pre_capture_pool', null);
    link(request, 'submission', request.rels.submission ?? null);
  }
  const requestMetadata: StoredRecord[] = [];
  for (const request of aliquotRequestRecords) {
    const held = (polyMetadata.get(aggregate(request)) ?? []).flatMap((ref) => found(third, ref) ?? []);
    const own = held.filter((m) => refsOf(m.rels.metadatable).some((t) => t.type === 'requests' && t.id === request.id));
    requestMetadata.push(...own);
    link(
      request,
      'poly_metadata',
      own.map((m) => ({ type: 'poly_metadata', id: m.id })),
    );
  }
  for (const aliquot of aliquots) {
    link(aliquot, 'sample', aliquot.rels.sample ?? null);
    link(aliquot, 'request', aliquot.rels.request ?? null);
  }
  for (const sample of samples) link(sample, 'sample_metadata', sample.rels.sample_metadata ?? null);
  for (const transfer of transferRequests) link(transfer, 'source_asset', transfer.rels.source_asset ?? null);
  const sourceWells = transferRequests.flatMap((t) => refsOf(t.rels.source_asset));
  const sourceViews = new Map(
    sourceLabware.flatMap((ref) => {
      const labware = found(first, ref);
      return labware ? receptacleViews(labware).map((w) => [`${w.type}:${w.id}`, w] as const) : [];
    }),
  );

  const included = new Map<string, StoredRecord>();
  const include = (records: (StoredRecord | undefined)[]) => {
    for (const r of records) if (r) included.set(`${r.type}:${r.id}`, r);
  };
  include([purposeOf(plate)]);
  include(children);
  include(children.map(purposeOf));
  include(wells);
  include(qcResults);
  include(requestsOut);
  include([...aliquotRequestRecords, ...requestsOut].flatMap((r) => [...refsOf(r.rels.request_type), ...refsOf(r.rels.submission)].map(any)));
  include(aliquots);
  include(samples);
  include(samples.flatMap((s) => refsOf(s.rels.sample_metadata).map(any)));
  include(aliquotRequestRecords);
  include(requestMetadata);
  include(transferRequests);
  include(sourceWells.map((ref) => sourceViews.get(`${ref.type}:${ref.id}`)));

  // The submissions' two attributes, as lib/resources/submissions.ts computes them.
  const submissionAttributes = new Map<string, Map<string, unknown>>();
  for (const ref of submissionRefs) {
    const typesOf = (records: StoredRecord[], relationship: string) => records.map((r) => refsOf(r.rels[relationship]).flatMap((t) => found(fifth, t) ?? []));
    const loaded = (refs: Ref[] | undefined) => (refs ?? []).map((r) => found(fourth, r));
    const requestTypes = typesOf(requestsIn(loaded(submissionRequests.get(aggregate(ref)))), 'request_type');
    const orderTypes = typesOf(
      loaded(submissionOrders.get(aggregate(ref))).flatMap((r) => r ?? []),
      'request_types',
    );
    submissionAttributes.set(
      `${ref.type}:${ref.id}`,
      new Map<string, unknown>([
        ['lanes_of_sequencing', requestTypes.filter(([type]) => isSequencingKey(type?.attrs.key)).length],
        ['multiplexed?', orderTypes.some((types) => types.some((t) => t.attrs.for_multiplexing === true))],
      ]),
    );
  }

  const ctx = { registry, baseUrl: base } as RequestContext;
  const render = (r: StoredRecord) => renderResource(ctx, r, FIELDS, linkages.get(r), submissionAttributes.get(`${r.type}:${r.id}`));
  included.delete(`plates:${plate.id}`);
  return {
    status: 200,
    body: {
      data: [render(plate)],
      included: [...included.values()].map(render),
      links: { first: self, last: self },
      meta: { record_count: 1 },
    },
  };
}
