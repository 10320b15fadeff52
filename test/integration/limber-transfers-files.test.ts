import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import {
  auditedTransactionItems,
  bulkTransferItems,
  LARGE_WRITE_ITEM_LIMIT,
  MAX_WELL_TRANSFERS_PER_BULK_TRANSFER,
  mostInOneTransaction,
  QC_FILE_STORED_BYTES,
  TRANSACTION_ITEM_LIMIT,
} from '#lib/domain/budgets.ts';
import { columnOrder, layoutForSize } from '#lib/domain/geometry.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import type { Receptacle } from '#lib/domain/labware.ts';
import { packContents } from '#lib/domain/qc-files.ts';
import { registry } from '#lib/resources/index.ts';
import { getRecords } from '#lib/store/records.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, createTube, inBatches, rel } from '../support/fixtures.ts';
import { adminUuid, contentsOf, filledPlate } from '../support/lab.ts';
import { createOrder, workIds } from '../support/requests.ts';
import { expectError, statuses } from '../support/responses.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { seedEmptyPlates, seedRequestBook } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, refused, tableSnapshot } from '../support/table.ts';

/**
 * Limber's bulk transfers (its multi-plate pool), QC files (upload, the labware's file list, download) and
 * bait library layouts (the baited plate: `preview`, then create), sent as Limber's classes send them
 * (app/integrations/sequencescape/api/v2/{bulk_transfer,qc_file,bait_library_layout}.rb), with their bad
 * input, their writes at the edges of one transaction and of the bound of one request, and one 50-way burst each.
 */

beforeAll(freshStore);

let user: string;
beforeAll(async () => {
  user = await adminUuid();
});

/** The wells of a plate by position: `{ id, uuid }`. */
async function wellsOf(plateId: string): Promise<Map<string, { id: string; uuid: string }>> {
  const res = await call('GET', `/api/v2/plates/${plateId}/wells?page[size]=100`);
  return new Map(res.body.data.map((w: any) => [w.attributes.position.name, { id: w.id, uuid: w.attributes.uuid }]));
}

const BULK = '/api/v2/bulk_transfers';
const bulk = (wellTransfers: unknown[], extra: Record<string, unknown> = {}) =>
  doc('bulk_transfers', { user_uuid: user, well_transfers: wellTransfers, ...extra });
/** Limber's well transfer: `{source_uuid, source_location, destination_uuid, destination_location}`, string keys. */
const wt = (source: any, from: string, destination: any, to: string, extra: Record<string, unknown> = {}) => ({
  source_uuid: source.attributes.uuid,
  source_location: from,
  destination_uuid: destination.attributes.uuid,
  destination_location: to,
  ...extra,
});

/** Empty 96-well plates stored as the service stores them: hundreds through the API are not what these tests are about. */
const seededPlates = async (n: number) =>
  (await seedEmptyPlates(n, Number(await idOf('plate_purposes', 'name', 'Stock Plate')))).map((p) => ({ id: String(p.id), attributes: { uuid: p.uuid } }));

/** DynamoDB calls of a bulk transfer beside one Query per source plate, at most (see the first test). */
const CALLS_BESIDE_SOURCES = 5;

describe('bulk_transfers, as Limber’s multi-plate pool sends them', () => {
  it('201: one transfer request per well pair through the one planner, copies carrying the outer request, a Transfer::BetweenPlates per plate pair', async () => {
    const [first, second] = await Promise.all([filledPlate(2), filledPlate(2)]);
    const { submission } = await createOrder((await workIds()).study);
    const child = await createPlate();
    const res = await call('POST', `${BULK}?include=transfers`, {
      body: bulk([
        wt(first.plate, 'A1', child, 'A1'),
        wt(first.plate, 'B1', child, 'B1', { submission_id: Number(submission) }),
        wt(second.plate, 'A1', child, 'C1'),
        wt(second.plate, 'B1', child, 'D1'),
      ]),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // Calls follow the plates, not the wells: the user (none while the reference cache holds it); the plates and
    // submission (one batched read); a Query of the requests out of each source plate; the ids of the transfers
    // and of the bulk transfer; the transaction.
    expect(res.calls).toBeLessThanOrEqual(CALLS_BESIDE_SOURCES + 2);
    const transfers = res.body.included.filter((r: any) => r.type === 'transfers');
    expect(transfers.map((t: any) => [t.attributes.transfer_type, t.attributes.transfers])).toEqual([
      ['Transfer::BetweenPlates', { A1: ['A1'], B1: ['B1'] }],
      ['Transfer::BetweenPlates', { A1: ['C1'], B1: ['D1'] }],
    ]);
    expect(res.body.data.relationships.transfers.data.map((t: any) => t.id)).toEqual(transfers.map((t: any) => t.id));

    const held = await contentsOf('plates', child.id);
    expect([...held].map(([p, a]) => [p, a.map((x) => x.sample)])).toEqual([
      ['A1', [first.samples.get('A1')]],
      ['B1', [first.samples.get('B1')]],
      ['C1', [second.samples.get('A1')]],
      ['D1', [second.samples.get('B1')]],
    ]);
    const read = await call('GET', `/api/v2/plates/${child.id}?include=wells.transfer_requests_as_target.submission,parents,transfers_as_destination`);
    const requests = read.body.included.filter((r: any) => r.type === 'transfer_requests');
    expect(requests.map((r: any) => r.attributes.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(requests.map((r: any) => r.relationships.submission.data?.id ?? null)).toEqual([null, submission, null, null]);
    expect(read.body.data.relationships.parents.data.map((p: any) => p.id).sort()).toEqual([first.plate.id, second.plate.id].sort());
    expect(read.body.data.relationships.transfers_as_destination.data.map((t: any) => t.id)).toEqual(transfers.map((t: any) => t.id));

    const events = (await outboxEvents()).filter(
      (e) => ['bulk_transfers', 'transfers'].includes(e.resource.type) || (e.resource.type === 'plates' && e.resource.id === child.id),
    );
    expect(events.map((e) => e.type).sort()).toEqual(['bulk_transfers.created', 'plates.created', 'plates.updated', 'transfers.created', 'transfers.created']);
  });

  it('the outer request: the open request out of the source well in the entry’s submission', async () => {
    const { stock, submission, requests } = await bookedPlate([{ slot: 1 }]);
    const child = await createPlate();
    expect((await call('POST', BULK, { body: bulk([wt(stock, 'A1', child, 'A1', { submission_id: Number(submission) })]) })).status).toBe(201);
    const well = (await wellsOf(child.id)).get('A1')!;
    const read = await call('GET', `/api/v2/wells/${well.id}?include=aliquots.request`);
    expect(read.body.included.find((r: any) => r.type === 'aliquots').relationships.request.data).toEqual({ type: 'requests', id: requests[0] });
  });
});

describe('bulk_transfers: bad input is a precise 4xx at its entry, nothing written', () => {
  let source: any;
  let child: any;
  let tube: any;
  beforeAll(async () => {
    [source, child, tube] = await Promise.all([filledPlate(2).then((f) => f.plate), createPlate(), createTube()]);
  });
  const at = (i: number, field: string) => `/data/attributes/well_transfers/${i}/${field}`;
  const post = (entries: unknown[], extra?: Record<string, unknown>) => refused('POST', BULK, bulk(entries, extra));

  it('unknown plate or submission: 404 at its field; a tube, a well off the grid: 422 naming them', async () => {
    const unknown = `${source.attributes.uuid.slice(0, 24)}000000000000`;
    expect(
      expectError(await post([wt(source, 'A1', { attributes: { uuid: unknown } }, 'A1')]), 404, 'record_not_found', at(0, 'destination_uuid')).detail,
    ).toContain(unknown);
    expectError(await post([wt(source, 'A1', child, 'A1', { submission_id: 999_999 })]), 404, 'record_not_found', at(0, 'submission_id'));
    expect(expectError(await post([wt(source, 'A1', tube, 'A1')]), 422, 'invalid_value', at(0, 'destination_uuid')).detail).toMatch(
      /is tubes \d+, not a plate/,
    );
    expect(
      expectError(await post([wt(source, 'A1', child, 'A1'), wt(source, 'Z99', child, 'B1')]), 422, 'invalid_value', at(1, 'source_location')).detail,
    ).toContain('"Z99" (A1 to H12)');
  });

  it('empty, an unknown member, no user, a pair given twice, a tag clash: 422 each', async () => {
    expectError(await post([]), 422, 'invalid_value', '/data/attributes/well_transfers');
    expectError(await post([wt(source, 'A1', child, 'A1', { volume: 5 })]), 422, undefined, '/data/attributes/well_transfers/0');
    expectError(await refused('POST', BULK, doc('bulk_transfers', { well_transfers: [wt(source, 'A1', child, 'A1')] })), 422, 'required');
    expect(
      expectError(await post([wt(source, 'A1', child, 'A1'), wt(source, 'A1', child, 'A1')]), 422, 'invalid_value', at(1, 'destination_location')).detail,
    ).toContain('(entry 0)');
    // Two untagged samples cannot share a well.
    expect(
      expectError(await post([wt(source, 'A1', child, 'A1'), wt(source, 'B1', child, 'A1')]), 422, 'invalid_value', at(1, 'source_location')).detail,
    ).toContain('tag clash');
  });

  it(`past ${MAX_WELL_TRANSFERS_PER_BULK_TRANSFER} well transfers: 422 too_large naming the limit`, async () => {
    const res = await post(Array.from({ length: MAX_WELL_TRANSFERS_PER_BULK_TRANSFER + 1 }, () => wt(source, 'A1', child, 'A1')));
    expect(expectError(res, 422, 'too_large', '/data/attributes/well_transfers').detail).toContain(`at most ${MAX_WELL_TRANSFERS_PER_BULK_TRANSFER}`);
  });
});

const QC = '/api/v2/qc_files';
/** Limber's upload (QcFile.create_for_labware!): contents, filename, and the labware as a `labware` linkage. */
const qcFile = (filename: unknown, contents: unknown, labwareId: string, type = 'labware') =>
  doc('qc_files', { contents, filename }, { labware: rel(type, labwareId) });

describe('qc_files, as Limber uploads, lists and downloads them', () => {
  it('201 with size and content type; the labware’s list (Limber’s fields) without contents; the download by uuid with them; an event without them', async () => {
    const [plate, tube] = await Promise.all([createPlate(), createTube()]);
    const csv = 'Well,Concentration\nA1,12.5\nB1,— 3 µl\n';
    const res = await call('POST', QC, { body: qcFile('pcr cycles.csv', csv, plate.id) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ filename: 'pcr cycles.csv', contents: csv, size: Buffer.byteLength(csv), content_type: 'text/csv' });
    const uuid = res.body.data.attributes.uuid;
    expect((await call('POST', QC, { body: qcFile('notes.txt', 'tube notes', tube.id, 'tubes') })).status).toBe(201);

    // QcFilesController#index: Labware.includes(:qc_files).select(qc_files: %i[filename size uuid created_at]).find(uuid:)
    const plateUuid = plate.attributes.uuid;
    const list = await call('GET', `/api/v2/labware?include=qc_files&fields[qc_files]=filename,size,uuid,created_at&filter[uuid]=${plateUuid}`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data[0].relationships.qc_files.data).toEqual([{ type: 'qc_files', id: res.body.data.id }]);
    expect(Object.keys(list.body.included[0].attributes).sort()).toEqual(['created_at', 'filename', 'size', 'uuid']);

    // QcFilesController#show: QcFile.find(uuid:).first.contents
    const download = await call('GET', `${QC}?filter[uuid]=${uuid}`);
    expect(download.body.data.map((f: any) => [f.attributes.filename, f.attributes.contents])).toEqual([['pcr cycles.csv', csv]]);
    const tubeFiles = await call('GET', `/api/v2/tubes/${tube.id}?include=qc_files`);
    expect(tubeFiles.body.included.map((f: any) => f.attributes.content_type)).toEqual(['text/plain']);

    const [event] = (await outboxEvents()).filter((e) => e.type === 'qc_files.created' && e.resource.id === res.body.data.id);
    expect(event!.data.attributes).toMatchObject({ filename: 'pcr cycles.csv', contents: null, size: Buffer.byteLength(csv) });
  });

  it('bad input: a precise 4xx at the field, nothing written', async () => {
    const plate = await createPlate();
    expectError(
      await refused('POST', QC, doc('qc_files', { filename: 'a.csv' }, { labware: rel('labware', plate.id) })),
      422,
      'required',
      '/data/attributes/contents',
    );
    expectError(
      await refused('POST', QC, doc('qc_files', { contents: 'x' }, { labware: rel('labware', plate.id) })),
      422,
      'required',
      '/data/attributes/filename',
    );
    expectError(await refused('POST', QC, qcFile('', 'x', plate.id)), 422, undefined, '/data/attributes/filename');
    expectError(await refused('POST', QC, qcFile('a'.repeat(256), 'x', plate.id)), 422, undefined, '/data/attributes/filename');
    expectError(await refused('POST', QC, qcFile('a.csv', 42, plate.id)), 422, undefined, '/data/attributes/contents');
    expectError(await refused('POST', QC, qcFile('a.csv', 'x', '999999')), 404, 'record_not_found', '/data/relationships/labware/data');
    expectError(await refused('POST', QC, doc('qc_files', { contents: 'x', filename: 'a.csv' })), 422, 'required', '/data/relationships/labware');
  });

  it(`contents up to ${QC_FILE_STORED_BYTES} stored (compressed) bytes: a 1,000,000-byte CSV fits; the largest incompressible text fits, one character more is 422 naming the limit`, async () => {
    const plate = await createPlate();
    const rows = Array.from({ length: 40_000 }, (_, i) => `W${String(i).padStart(5, '0')},${(i % 997) / 10},ok`).join('\n');
    const csv = rows.padEnd(1_000_000, ',');
    const big = await call('POST', QC, { body: qcFile('plate-reader.csv', csv, plate.id) });
    expect(big.status, JSON.stringify(big.body).slice(0, 300)).toBe(201);
    expect(big.body.data.attributes.size).toBe(1_000_000);
    expect((await call('GET', `${QC}/${big.body.data.id}`)).body.data.attributes.contents).toBe(csv);

    // Random base64 text compresses little: the longest prefix whose stored form fits, found with the service's own packing.
    const noise = randomBytes(400_000).toString('base64');
    const fits = (n: number) => packContents(noise.slice(0, n)).ok;
    let [low, high] = [0, noise.length];
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(mid)) low = mid;
      else high = mid - 1;
    }
    expect(fits(low) && !fits(low + 1)).toBe(true);
    const over = await refused('POST', QC, qcFile('noise.txt', noise.slice(0, low + 1), plate.id));
    expect(expectError(over, 422, 'too_large', '/data/attributes/contents').detail).toContain(`at most ${QC_FILE_STORED_BYTES}`);
    const edge = await call('POST', QC, { body: qcFile('noise.txt', noise.slice(0, low), plate.id) });
    expect(edge.status, JSON.stringify(edge.body).slice(0, 300)).toBe(201);
    expect((await call('GET', `${QC}/${edge.body.data.id}`)).body.data.attributes.contents).toBe(noise.slice(0, low));
  });
});

/**
 * A stock plate whose wells hold one sample each, with a pending request of one submission out of each
 * well asking for a bait library (the `bait_library_name` request option of the reference's bait library
 * requests), seeded as the service stores request books: what an order from a submission template makes.
 */
async function bookedPlate(wells: { slot: number; bait?: string }[]): Promise<{ stock: any; submission: string; requests: string[] }> {
  const { plate: stock } = await filledPlate(wells.length);
  const { study, libraryCreation } = await workIds();
  const { submission, order } = await createOrder(study, [libraryCreation]);
  const book = await seedRequestBook(
    { submission: Number(submission), labware: Number(stock.id) },
    wells.map(({ slot, bait }) => ({
      state: 'pending',
      requestType: Number(libraryCreation),
      asset: ['wells', slotId(Number(stock.id), slot)] as const,
      order: Number(order),
      ...(bait ? { options: { bait_library_name: bait } } : {}),
    })),
  );
  return { stock, submission, requests: wells.map((_, i) => String(book.id * 1000 + i)) };
}

/** A child stamped from such a stock plate by a bulk transfer (the material moves carrying the requests): the baited plate Limber makes. */
async function stampedChild(wells: { slot: number; bait?: string }[]) {
  const { stock, submission } = await bookedPlate(wells);
  const child = await createPlate();
  const positions = ['A1', 'B1', 'C1', 'D1'].slice(0, wells.length);
  const res = await call('POST', BULK, { body: bulk(positions.map((p) => wt(stock, p, child, p, { submission_id: Number(submission) }))) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return child;
}

const LAYOUTS = '/api/v2/bait_library_layouts';

describe('bait_library_layouts, as Limber’s baited plate makes them', () => {
  it('preview answers well → bait and writes nothing; create lays the baits on the aliquots and records the layout; a plate is laid out once', async () => {
    const child = await stampedChild([
      { slot: 1, bait: 'Human all exon 50MB' },
      { slot: 2, bait: 'Mouse all exon' },
      { slot: 3, bait: 'Human all exon 50MB' },
    ]);
    // BaitLibraryLayout.preview(plate_uuid:, user_uuid:): json_api_client's custom endpoint posts the parameters as they are.
    const preview = await answered(`${LAYOUTS}/preview`, { plate_uuid: child.attributes.uuid, user_uuid: user });
    expect(preview.body).toEqual({
      data: {
        type: 'bait_library_layouts',
        id: 'preview',
        attributes: { well_layout: { A1: 'Human all exon 50MB', B1: 'Mouse all exon', C1: 'Human all exon 50MB' } },
      },
    });

    const made = await call('POST', `${LAYOUTS}?include=plate`, { body: doc('bait_library_layouts', { plate_uuid: child.attributes.uuid, user_uuid: user }) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data.attributes.layout).toEqual({ 'Human all exon 50MB': ['A1', 'C1'], 'Mouse all exon': ['B1'] });
    const read = await call('GET', `/api/v2/plates/${child.id}?include=wells.aliquots.bait_library`);
    const baits = read.body.included.filter((r: any) => r.type === 'bait_libraries').map((b: any) => b.attributes.name);
    expect(baits.sort()).toEqual(['Human all exon 50MB', 'Mouse all exon']);
    const a1 = read.body.included.find((r: any) => r.type === 'wells' && r.attributes.position.name === 'A1');
    const aliquot = read.body.included.find((r: any) => r.type === 'aliquots' && r.id === a1.relationships.aliquots.data[0].id);
    expect(aliquot.relationships.bait_library.data.type).toBe('bait_libraries');

    const again = await refused('POST', LAYOUTS, doc('bait_library_layouts', { plate_uuid: child.attributes.uuid, user_uuid: user }));
    expectError(again, 422, undefined, '/data/relationships/plate');
  });

  it('bad input: preview’s missing or unknown parameters (400, 404), a well asking for no bait or an unknown one (422), nothing written', async () => {
    const child = await stampedChild([{ slot: 1, bait: 'Human all exon 50MB' }, { slot: 2 }]);
    expectError(await refused('POST', `${LAYOUTS}/preview`, { user_uuid: user }), 400, 'missing_member', '/plate_uuid');
    expectError(await refused('POST', `${LAYOUTS}/preview`, { plate_uuid: user, user_uuid: user }), 404, 'record_not_found', '/plate_uuid');
    const noBait = await refused('POST', `${LAYOUTS}/preview`, { plate_uuid: child.attributes.uuid, user_uuid: user });
    expect(expectError(noBait, 422, 'invalid_value', '/plate_uuid').detail).toMatch(
      /B1 on plate \d+ is pooled for submission \d+, but its requests there name no bait library/,
    );
    const create = await refused('POST', LAYOUTS, doc('bait_library_layouts', { plate_uuid: child.attributes.uuid, user_uuid: user }));
    expectError(create, 422, 'invalid_value', '/data/relationships/plate');

    const unknown = await stampedChild([{ slot: 1, bait: 'Martian all exon' }]);
    const res = await refused('POST', LAYOUTS, doc('bait_library_layouts', { plate_uuid: unknown.attributes.uuid, user_uuid: user }));
    expect(expectError(res, 422, 'invalid_value', '/data/relationships/plate').detail).toContain('"Martian all exon", which is no bait library');
  });
});

/** A preview: answered 200, and nothing written (the table is as before). */
async function answered(path: string, body: unknown) {
  const before = await tableSnapshot();
  const res = await call('POST', path, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(await tableSnapshot()).toEqual(before);
  return res;
}

/**
 * A plate of `size` wells whose first `filled` wells each hold one tagged aliquot (tags numbered from
 * `firstTag`, so plates seeded with distinct ranges pool without a clash), written into its record
 * directly: hundreds of samples through the API would take minutes, and the filling is not what is tested.
 */
async function taggedPlate(purpose: string, filled: number, firstTag: number): Promise<any> {
  const plate = await createPlate(purpose);
  const record = (await getRecords([{ family: 'labware', id: Number(plate.id) }])).get(`labware:${plate.id}`)!;
  const receptacles = (record.attrs.receptacles as Receptacle[]).map((r, i) =>
    i < filled
      ? {
          ...r,
          aliquots: [
            { n: i + 1, sample: 900_000 + firstTag + i, study: null, tag: { oligo: `T${firstTag + i}`, index: firstTag + i }, tag2: null, library_type: null },
          ],
        }
      : r,
  );
  const uow = new UnitOfWork(registry, new Date().toISOString());
  uow.update(record, { attrs: { receptacles, aliquotCount: filled } });
  await uow.commit();
  return plate;
}

describe('bulk_transfers at their limits: one transaction, several, the bound of one request', () => {
  it(`${MAX_WELL_TRANSFERS_PER_BULK_TRANSFER} well transfers, four full 384-well plates pooled into one (4 × 384 wells), fit one transaction`, {
    timeout: 300_000,
  }, async () => {
    const sources = await Promise.all([0, 1, 2, 3].map((q) => taggedPlate('Stock Plate 384', 384, q * 384 + 1)));
    const child = await createPlate('Stock Plate 384');
    const positions = columnOrder(layoutForSize(384)!);
    const entries = sources.flatMap((source) => positions.map((p) => wt(source, p, child, p)));
    expect(entries).toHaveLength(MAX_WELL_TRANSFERS_PER_BULK_TRANSFER);
    const res = await call('POST', BULK, { body: bulk(entries) });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    expect(res.calls).toBeLessThanOrEqual(CALLS_BESIDE_SOURCES + 4);
    expect(res.body.data.relationships.transfers).toBeDefined();
    const stored = (await getRecords([{ family: 'labware', id: Number(child.id) }])).get(`labware:${child.id}`)!;
    const wells = stored.attrs.receptacles as Receptacle[];
    expect(wells.map((w) => [w.aliquots.length, w.transfers?.length])).toEqual(positions.map(() => [4, 4]));
  });

  // One source into many plates: each destination is its update, its transfer record, its new link to the source and
  // its audit entry; the source has its audit entry too (docs/decisions.md, "Audit trail").
  const intoPlates = (plates: number) => auditedTransactionItems(bulkTransferItems(plates, plates, plates), 1 + plates);
  const ONE_TRANSACTION = mostInOneTransaction(intoPlates);
  it(`one well into ${ONE_TRANSACTION} plates is one transaction of ${intoPlates(ONE_TRANSACTION)} items; into one more, one write of several`, async () => {
    expect(intoPlates(ONE_TRANSACTION + 1)).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    const { plate: source, samples } = await filledPlate(1);
    const plates = await seededPlates(2 * ONE_TRANSACTION + 1);
    const entries = plates.map((p) => wt(source, 'A1', p, 'A1'));
    const fits = await observeCalls(() => call('POST', BULK, { body: bulk(entries.slice(0, ONE_TRANSACTION)) }));
    expect(fits.result.status, JSON.stringify(fits.result.body).slice(0, 500)).toBe(201);
    expect(fits.transactions).toEqual([intoPlates(ONE_TRANSACTION)]);
    const past = await observeCalls(() => call('POST', BULK, { body: bulk(entries.slice(ONE_TRANSACTION)) }));
    expect(past.result.status, JSON.stringify(past.result.body).slice(0, 500)).toBe(201);
    expect(past.transactions.length).toBeGreaterThan(1);
    expect((await call('GET', `${BULK}/${past.result.body.data.id}/transfers?page[size]=100`)).body.data).toHaveLength(ONE_TRANSACTION + 1);
    for (const p of [plates[0]!, plates.at(-1)!]) expect((await contentsOf('plates', p.id)).get('A1')?.map((a) => a.sample)).toEqual([samples.get('A1')]);
  });

  // 1 + 3n records and index entries: 1,333 destinations are the bound's 4,000; 1,334 past it.
  const PAST_THE_BOUND = Math.floor((LARGE_WRITE_ITEM_LIMIT - 1) / 3) + 1;
  it(`one well into ${PAST_THE_BOUND} plates is past the bound of one request: 422 naming it, nothing written`, { timeout: 180_000 }, async () => {
    const { plate: source } = await filledPlate(1);
    const plates = await seededPlates(PAST_THE_BOUND);
    const over = await refused('POST', BULK, bulk(plates.map((p) => wt(source, 'A1', p, 'A1'))));
    expect(expectError(over, 422, 'too_large', '/data/attributes/well_transfers').detail).toBe(
      `well_transfers - fills ${PAST_THE_BOUND} labware (${PAST_THE_BOUND} of them newly children of a source), which would write ${1 + 3 * PAST_THE_BOUND} records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}`,
    );
  });
});

describe('50 writes at once', () => {
  const WRITERS = 50;
  const BURST_BUDGET_MS = 240_000;
  const runBudget = process.env.LTS_REQUEST_BUDGET_MS;
  beforeAll(() => {
    process.env.LTS_REQUEST_BUDGET_MS = String(BURST_BUDGET_MS);
    resetConfig();
  });
  afterAll(() => {
    process.env.LTS_REQUEST_BUDGET_MS = runBudget;
    resetConfig();
  });

  it('50 bulk transfers out of one plate into 50 plates: 50 × 201, none conflicts (the source is never written)', {
    timeout: BURST_BUDGET_MS + 60_000,
  }, async () => {
    const { plate: source, samples } = await filledPlate(1);
    const plates = await inBatches(WRITERS, 10, () => createPlate());
    const results = await Promise.all(plates.map((p) => call('POST', BULK, { body: bulk([wt(source, 'A1', p, 'A1')]) })));
    expect(statuses(results)).toEqual([`201 × ${WRITERS}`]);
    for (const p of plates) expect((await contentsOf('plates', p.id)).get('A1')?.map((a) => a.sample)).toEqual([samples.get('A1')]);
  });

  // One plate is one record (as the collections' writers into one plate): each commits in turn; on a loaded machine a writer may pass its window (409).
  it('20 bulk transfers into 20 distinct wells of ONE plate: each 201 or 409, every 201 in its well, nothing lost or mixed', {
    timeout: BURST_BUDGET_MS + 60_000,
  }, async () => {
    const { plate: source, samples } = await filledPlate(20);
    const destination = await createPlate();
    const positions = [...samples.keys()];
    const results = await Promise.all(positions.map((p) => call('POST', BULK, { body: bulk([wt(source, p, destination, p)]) })));
    expect(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => r.status)).toEqual([]);
    const landed = positions.filter((_, i) => results[i]!.status === 201);
    const held = await contentsOf('plates', destination.id);
    expect([...held.keys()].sort()).toEqual([...landed].sort());
    expect(
      landed.filter(
        (p) =>
          held
            .get(p)!
            .map((a) => a.sample)
            .join() !== samples.get(p),
      ),
    ).toEqual([]);
  });

  it('50 QC files onto one plate: 50 × 201 (each file is its own record), all listed with the plate', { timeout: BURST_BUDGET_MS + 60_000 }, async () => {
    const plate = await createPlate();
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => call('POST', QC, { body: qcFile(`run-${i}.csv`, `well,value\nA1,${i}\n`, plate.id) })),
    );
    expect(statuses(results)).toEqual([`201 × ${WRITERS}`]);
    const listed = await call('GET', `/api/v2/plates/${plate.id}/qc_files?page[size]=100&fields[qc_files]=filename`);
    expect(listed.body.data.map((f: any) => f.attributes.filename).sort()).toEqual(Array.from({ length: WRITERS }, (_, i) => `run-${i}.csv`).sort());
  });

  it('50 bait library layouts of ONE plate at once: one 201, every other refused (422, or 409 past its retries), the plate baited once', {
    timeout: BURST_BUDGET_MS + 60_000,
  }, async () => {
    const child = await stampedChild([{ slot: 1, bait: 'Zebrafish ZV9' }]);
    const body = doc('bait_library_layouts', { plate_uuid: child.attributes.uuid, user_uuid: user });
    const results = await Promise.all(Array.from({ length: WRITERS }, () => call('POST', LAYOUTS, { body })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201 && r.status !== 422 && r.status !== 409).map((r) => r.status)).toEqual([]);
    const all = await call('GET', `${LAYOUTS}?page[size]=500&include=plate`);
    expect(all.body.data.filter((l: any) => l.relationships.plate.data.id === child.id)).toHaveLength(1);
    const stored = (await getRecords([{ family: 'labware', id: Number(child.id) }])).get(`labware:${child.id}`)!;
    const zebrafish = Number(await idOf('bait_libraries', 'name', 'Zebrafish ZV9'));
    expect((stored.attrs.receptacles as Receptacle[])[0]!.aliquots.map((a) => a.bait_library)).toEqual([zebrafish]);
  });
});
