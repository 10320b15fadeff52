import { beforeAll, describe, expect, it } from 'vitest';
import { ITEM_SIZE_LIMIT } from '#lib/domain/budgets.ts';
import { REQUESTS_PER_BOOK, requestId, slotId } from '#lib/domain/labware-ids.ts';
import { hasRoom, type BookedRequest, type RequestBook } from '#lib/domain/request-books.ts';
import type { Receptacle } from '#lib/domain/labware.ts';
import { loadReferenceData } from '#lib/reference/load.ts';
import { registry } from '#lib/resources/index.ts';
import { getRecords, type StoredRecord } from '#lib/store/records.ts';
import { UnitOfWork } from '#lib/store/unit-of-work.ts';
import { call, doc } from '../support/api.ts';
import { direct } from '../support/engine.ts';
import { createPlate, inBatches, rel } from '../support/fixtures.ts';
import { adminUuid } from '../support/lab.ts';
import { createOrder, createRequest, patchState, requestDoc, workIds, type WorkIds } from '../support/requests.ts';
import { seedRequestBook, seedSamples } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { withRequestBudget } from '../support/request-budget.ts';
import { outboxEvents, scanTable } from '../support/table.ts';
import { adminId, changeState, requestsOfSubmission, stamp } from '../support/work.ts';

/**
 * Request books (docs/decisions.md, "Requests that move together are stored together"): the requests a
 * submission made out of one labware are one item, so what moves a whole plate's requests is one write of
 * their book. Here, the edges that design is for: a 384-well plate's first pass and a 96-well work
 * completion with next requests, each one transaction; 50 clients creating requests in one book at once;
 * the 1,001st request of one (submission, labware) on a second page, found by every read. Large set-ups are
 * seeded straight into the table (samples, aliquots, books, as the service stores them): what is tested is
 * the write after them.
 */

beforeAll(freshStore);

let ids: WorkIds;
beforeAll(async () => {
  ids = await workIds();
  // A 384-well plate that is not an input plate (the default reference data has only a 384-well stock plate).
  await loadReferenceData(registry, { plate_purposes: [{ name: 'Working Dilution 384', barcode_prefix: 'DN', size: 384 }] });
});

const NOW = new Date().toISOString();

/** A plate of `purpose` whose first `count` wells each hold one new sample, written in one write of the plate as POST aliquots would. */
async function seededPlate(purpose: string, count: number): Promise<StoredRecord> {
  const plate = await createPlate(purpose);
  const samples = await seedSamples(count, `books-${plate.id}`);
  const record = (await getRecords([{ family: 'labware', id: Number(plate.id) }])).get(`labware:${plate.id}`)!;
  const receptacles = (record.attrs.receptacles as Receptacle[]).map((receptacle, i) =>
    i < count
      ? { ...receptacle, aliquots: [{ n: i + 1, sample: samples[i]!.id, study: Number(ids.study), tag: null, tag2: null, library_type: null }] }
      : receptacle,
  );
  const uow = new UnitOfWork(registry, NOW);
  uow.update(record, { attrs: { receptacles, aliquotCount: count } });
  await uow.commit();
  return (await getRecords([{ family: 'labware', id: Number(plate.id) }])).get(`labware:${plate.id}`)!;
}

/** A request book written straight into the table: `requests` of a submission out of wells of one plate, pending. */
const seededBook = (submission: string, order: string, plate: { id: number }, requests: { slot: number; requestType: string }[]) =>
  seedRequestBook(
    { submission: Number(submission), labware: plate.id },
    requests.map(({ slot, requestType }) => ({
      state: 'pending',
      requestType: Number(requestType),
      asset: ['wells', slotId(plate.id, slot)],
      order: Number(order),
    })),
  );

const books = async () => (await scanTable('record')).filter((item) => item.type === 'request_books');

describe('the writes that move a whole plate’s requests are one transaction', () => {
  it('a 384-well plate’s first pass: 384 requests started, every well passed, in one TransactWriteItems', { timeout: 300_000 }, async () => {
    const stock = await seededPlate('Stock Plate 384', 384);
    const { submission, order } = await createOrder(ids.study, [ids.libraryCreation]);
    await seededBook(
      submission,
      order,
      stock,
      Array.from({ length: 384 }, (_, i) => ({ slot: i + 1, requestType: ids.libraryCreation })),
    );
    // Limber's stamp of a 384-well plate: a transfer request collection, each copy naming the request out of its source well.
    const plate = await createPlate('Working Dilution 384');
    const wells = async (id: string | number) => (await call('GET', `/api/v2/plates/${id}/wells?page[size]=400`)).body.data.map((w: any) => w.attributes.uuid);
    const [from, into] = await Promise.all([wells(stock.id), wells(plate.id)]);
    const collection = await call('POST', '/api/v2/transfer_request_collections', {
      body: doc('transfer_request_collections', {
        user_uuid: await adminUuid(),
        transfer_requests_attributes: from.map((source: string, i: number) => ({ source_asset: source, target_asset: into[i] })),
      }),
    });
    expect(collection.status, JSON.stringify(collection.body).slice(0, 500)).toBe(201);

    const { response, counts } = await direct(
      'POST',
      '/api/v2/state_changes',
      doc('state_changes', { target_state: 'passed' }, { target: rel('plates', plate.id), user: rel('users', await adminId()) }),
    );
    expect(response.status, response.body?.slice(0, 500)).toBe(201);
    expect(counts.TransactWriteItems).toBe(1);
    const requests = await requestsOfSubmission(submission);
    expect(requests).toHaveLength(384);
    expect(requests.filter((r) => r.attributes.state !== 'started')).toEqual([]);
    const read = await call('GET', `/api/v2/plates/${plate.id}?include=wells&fields[wells]=state`);
    expect(read.body.data.attributes.state).toBe('passed');
    expect(read.body.included.filter((w: any) => w.attributes.state !== 'passed')).toEqual([]);
    const events = await outboxEvents();
    const started = new Set(requests.map((r) => r.id));
    expect(events.filter((e) => e.type === 'requests.state_changed' && started.has(e.resource.id))).toHaveLength(384);
    // Nothing of the book shows in the feed: it is storage, its requests are the events.
    expect(events.filter((e) => e.type.startsWith('request_books'))).toEqual([]);
  });

  it('a 96-well work completion whose requests have next requests: passed, next requests moved onto the wells, in one TransactWriteItems', {
    timeout: 300_000,
  }, async () => {
    const stock = await seededPlate('Stock Plate', 96);
    const { submission, order } = await createOrder(ids.study, [ids.libraryCreation, ids.sequencing]);
    const slots = Array.from({ length: 96 }, (_, i) => i + 1);
    // Per well its library request (place 2 × slot − 2 in the book) and the sequencing request after it.
    const book = await seededBook(
      submission,
      order,
      stock,
      slots.flatMap((slot) => [
        { slot, requestType: ids.libraryCreation },
        { slot, requestType: ids.sequencing },
      ]),
    );
    const plate = await createPlate('Library Plate');
    await stamp({ attributes: { uuid: stock.uuid } }, plate);
    await changeState(plate, 'passed');
    const { response, counts } = await direct(
      'POST',
      '/api/v2/work_completions',
      doc(
        'work_completions',
        {},
        { target: rel('plates', plate.id), user: rel('users', await adminId()), submissions: { data: [{ type: 'submissions', id: submission }] } },
      ),
    );
    expect(response.status, response.body?.slice(0, 500)).toBe(201);
    expect(counts.TransactWriteItems).toBe(1);

    const requests = await requestsOfSubmission(submission);
    const libraryIds = slots.map((slot) => String(requestId(book.id, 2 * slot - 2)));
    const nextIds = slots.map((slot) => String(requestId(book.id, 2 * slot - 1)));
    const state = new Map(requests.map((r) => [r.id, r.attributes.state]));
    expect(libraryIds.map((id) => state.get(id))).toEqual(Array(96).fill('passed'));
    expect(nextIds.map((id) => state.get(id))).toEqual(Array(96).fill('pending'));
    // The book is now found under the library plate too: its wells' requests out of them are the next requests, one Query.
    const read = await call('GET', `/api/v2/plates/${plate.id}?include=wells.requests_as_source`);
    const out = read.body.included.filter((r: any) => r.type === 'wells').map((w: any) => w.relationships.requests_as_source.data.map((r: any) => r.id));
    expect(out).toEqual(nextIds.map((id) => [id]));
    const stockOut = await call('GET', `/api/v2/plates/${stock.id}?include=wells.requests_as_source`);
    expect(stockOut.body.included.filter((r: any) => r.type === 'requests').map((r: any) => r.id)).toEqual(libraryIds);
  });
});

describe('POST /requests appends to its book', () => {
  const CLIENTS = 50;
  // Fifty writes of one record commit one after another (as lab-concurrency.test.ts): a budget no loaded machine outlasts.
  const BURST_BUDGET_MS = 240_000;
  withRequestBudget(BURST_BUDGET_MS);

  // One book is one record: these commit one after another, each retrying for three quarters of its budget. On
  // a loaded machine a writer may pass its window and get a 409 (as the collections' 50 writers into one plate),
  // so the test holds what must never happen: a lost or duplicated request, a 5xx, a second book.
  it('50 clients at once, 50 wells of ONE stock plate, one submission: each 201 or 409, every 201 a request of its own, none lost', {
    timeout: BURST_BUDGET_MS + 60_000,
  }, async () => {
    const plate = await createPlate('Stock Plate');
    const { submission, order } = await createOrder(ids.study, [ids.libraryCreation]);
    const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=100`)).body.data.slice(0, CLIENTS);
    const booksBefore = (await books()).length;
    const results = await Promise.all(
      wells.map((well: any) =>
        call('POST', '/api/v2/requests', {
          body: doc(
            'requests',
            {},
            {
              asset: rel('wells', well.id),
              submission: rel('submissions', submission),
              order: rel('orders', order),
              request_type: rel('request_types', ids.libraryCreation),
            },
          ),
        }),
      ),
    );
    expect(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => `${r.status} ${JSON.stringify(r.body)}`)).toEqual([]);
    const calls = results.map((r) => r.calls).sort((a, b) => a - b);
    console.info(
      `[measured] 50 POST /requests into one book: ${results.filter((r) => r.status === 201).length} × 201; DynamoDB calls per request median ${calls[25]}, max ${calls.at(-1)}`,
    );
    const created = results.filter((r) => r.status === 201).map((r) => r.body.data);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((r) => r.id)).size).toBe(created.length);
    expect(new Set(created.map((r) => r.attributes.uuid)).size).toBe(created.length);
    // Every answer is in the book, under its own well; nothing else is.
    const listed = await requestsOfSubmission(submission);
    expect(listed.map((r) => r.id).sort()).toEqual(created.map((r) => r.id).sort());
    const landed = wells.filter((_: any, i: number) => results[i]!.status === 201).map((w: any) => w.id);
    const read = await call('GET', `/api/v2/plates/${plate.id}?include=wells.requests_as_source`);
    const withRequest = read.body.included.filter((r: any) => r.type === 'wells' && r.relationships.requests_as_source.data.length > 0);
    expect(withRequest.map((w: any) => w.id).sort()).toEqual([...landed].sort());
    expect(withRequest.every((w: any) => w.relationships.requests_as_source.data.length === 1)).toBe(true);
    expect((await books()).length).toBe(booksBefore + 1);
    const events = await outboxEvents();
    const createdIds = new Set(created.map((r) => r.id));
    expect(events.filter((e) => e.type === 'requests.created' && createdIds.has(e.resource.id))).toHaveLength(created.length);
  });

  it('the 1,001st request of one (submission, labware) starts page 2 of its book, and every read finds it', { timeout: 120_000 }, async () => {
    const plate = { id: Number((await createPlate('Stock Plate')).id) };
    const { submission, order } = await createOrder(ids.study, [ids.libraryCreation, ids.sequencing]);
    const first = await seededBook(
      submission,
      order,
      plate,
      Array.from({ length: REQUESTS_PER_BOOK }, (_, i) => ({ slot: (i % 96) + 1, requestType: ids.libraryCreation })),
    );
    const well = { type: 'wells', id: String(slotId(plate.id, 5)) };
    const request = await createRequest({ asset: well, requestType: ids.sequencing, submission, order });
    const pages = (await books()).filter((b) => b.attrs.labware === plate.id);
    expect(pages.map((b) => [b.attrs.page, b.attrs.requests.length]).sort()).toEqual([
      [1, REQUESTS_PER_BOOK],
      [2, 1],
    ]);
    const second = pages.find((b) => b.attrs.page === 2)!;
    expect(request.id).toBe(String(requestId(second.id, 0)));
    expect(second.id).not.toBe(first.id);

    expect((await call('GET', `/api/v2/requests/${request.id}`)).body.data.attributes.uuid).toBe(request.attributes.uuid);
    expect((await call('GET', `/api/v2/requests?filter[uuid]=${request.attributes.uuid}`)).body.data.map((r: any) => r.id)).toEqual([request.id]);
    expect((await call('GET', `/api/v2/requests?filter[id]=${request.id}`)).body.data.map((r: any) => r.id)).toEqual([request.id]);
    const ofSubmission = await call('GET', `/api/v2/submissions/${submission}/requests?page[size]=1&page[number]=1001`);
    expect(ofSubmission.body.meta.record_count).toBe(REQUESTS_PER_BOOK + 1);
    expect(ofSubmission.body.data.map((r: any) => r.id)).toEqual([request.id]);
    // Out of well 5: the seeded requests on it (every 96th, from the 5th) and the new one, one Query for the plate.
    const out = await call('GET', `/api/v2/wells/${well.id}/relationships/requests_as_source`);
    const seededOnWell = Array.from({ length: REQUESTS_PER_BOOK }, (_, n) => n).filter((n) => n % 96 === 4);
    expect(out.body.data.map((r: any) => r.id)).toEqual([...seededOnWell.map((n) => String(requestId(first.id, n))), request.id]);
    const listed = await call('GET', `/api/v2/requests?page[size]=5&sort=-id`);
    expect(listed.body.data[0].id).toBe(request.id);
    expect(listed.body.meta.record_count).toBeGreaterThanOrEqual(REQUESTS_PER_BOOK + 1);
    // And it moves as any request: a PATCH writes its page only.
    expect((await patchState(request.id, 'started')).status).toBe(200);
    const after = (await books()).filter((b) => b.attrs.labware === plate.id);
    expect(after.find((b) => b.attrs.page === 1)!.version).toBe(first.version);
    expect(after.find((b) => b.attrs.page === 2)!.attrs.requests[0].state).toBe('started');
  });
});

describe('a book at its item size limit, and requests refused on the way in', () => {
  // The longest role the API takes: a page of these is full by its bytes long before REQUESTS_PER_BOOK.
  const ROLE = 'r'.repeat(4096);

  it('a page full by bytes sends the next request to page 2, and its requests still change (each change makes the page longer)', {
    timeout: 120_000,
  }, async () => {
    const plate = { id: Number((await createPlate('Stock Plate')).id) };
    const { submission, order } = await createOrder(ids.study, [ids.libraryCreation]);
    const now = Date.now();
    const request = (slot: number): BookedRequest => ({
      state: 'pending',
      requestType: Number(ids.libraryCreation),
      asset: ['wells', slotId(plate.id, slot)],
      order: Number(order),
      role: ROLE,
      created: now,
      updated: now,
    });
    // As many as the rule lets one page hold (lib/domain/request-books.ts, hasRoom).
    const page: RequestBook = { submission: Number(submission), labware: plate.id, page: 1, requests: [] };
    while (hasRoom(page, request(1))) page.requests.push(request((page.requests.length % 96) + 1));
    expect(page.requests.length).toBeLessThan(REQUESTS_PER_BOOK);
    const first = await seedRequestBook({ submission: page.submission, labware: plate.id }, page.requests);

    const next = await createRequest(
      { asset: { type: 'wells', id: String(slotId(plate.id, 2)) }, requestType: ids.libraryCreation, submission, order },
      { role: ROLE },
    );
    const pages = (await books()).filter((b) => b.attrs.labware === plate.id);
    expect(pages.map((b) => [b.attrs.page, b.attrs.requests.length]).sort()).toEqual([
      [1, page.requests.length],
      [2, 1],
    ]);
    expect(next.id).toBe(String(requestId(pages.find((b) => b.attrs.page === 2)!.id, 0)));

    // The full page grows by every request's change of state, written to DynamoDB Local (which refuses items over 400 KB).
    for (const [n, state] of [
      [0, 'started'],
      [0, 'failed'],
      [1, 'cancelled'],
    ] as const) {
      const res = await patchState(String(requestId(first.id, n)), state);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const stored = (await books()).find((b) => b.id === first.id)!;
    expect(stored.attrs.requests.slice(0, 2).map((r: BookedRequest) => r.state)).toEqual(['failed', 'cancelled']);
    expect(Buffer.byteLength(JSON.stringify(stored))).toBeLessThan(ITEM_SIZE_LIMIT);
  });

  it('a refused POST /requests names the field and value and changes no book, writes no book and no event', async () => {
    const plate = await createPlate('Stock Plate');
    const { submission, order } = await createOrder(ids.study, [ids.libraryCreation]);
    const well = { type: 'wells', id: String(slotId(Number(plate.id), 1)) };
    const links = { asset: well, requestType: ids.libraryCreation, submission, order };
    await createRequest(links);
    const [booksBefore, eventsBefore] = [await books(), (await outboxEvents()).length];

    const refusals: [string, ReturnType<typeof requestDoc>, number, string, RegExp][] = [
      ['a plate as the asset', requestDoc({ ...links, asset: { type: 'plates', id: plate.id } }), 400, '/data/relationships/asset/data/type', /plates/],
      ['an unknown asset', requestDoc({ ...links, asset: { type: 'wells', id: '999999999' } }), 404, '/data/relationships/asset/data', /999999999/],
      ['an unknown request type', requestDoc({ ...links, requestType: '999999' }), 404, '/data/relationships/request_type/data', /999999/],
      ['a state the machine has not', requestDoc(links, { state: 'finished' }), 422, '/data/attributes/state', /finished/],
      ['a role past 4,096 characters', requestDoc(links, { role: `${ROLE}r` }), 422, '/data/attributes/role', /role/],
      ['a priority not offered', requestDoc(links, { priority: 'urgent' }), 422, '/data/attributes/priority', /urgent/],
    ];
    const answers = [];
    for (const [what, body] of refusals) {
      const { status, body: answer } = await call('POST', '/api/v2/requests', { body });
      answers.push([what, status, answer.errors?.[0]?.source?.pointer, answer.errors?.[0]?.detail]);
    }
    expect(answers).toEqual(refusals.map(([what, , status, pointer, detail]) => [what, status, pointer, expect.stringMatching(detail)]));
    expect(await books()).toEqual(booksBefore);
    expect(await outboxEvents()).toHaveLength(eventsBefore);
  });
});

describe('request metadata and poly metadata write and read through the book', () => {
  it('linking metadata copies its options onto the request; its poly metadata are found from the request', async () => {
    const plate = await createPlate('Stock Plate');
    const { submission, order } = await createOrder(ids.study, [ids.libraryCreation]);
    const [a, b] = await inBatches(2, 1, (i) =>
      createRequest({ asset: { type: 'wells', id: String(slotId(Number(plate.id), i + 1)) }, requestType: ids.libraryCreation, submission, order }),
    );
    const metadata = await call('POST', '/api/v2/request_metadata', {
      body: doc('request_metadata', { number_of_pools: 3 }, { request: rel('requests', a.id) }),
    });
    expect(metadata.status, JSON.stringify(metadata.body)).toBe(201);
    const poly = await call('POST', '/api/v2/poly_metadata', {
      body: doc('poly_metadata', { key: 'flowcell', value: 'FC-9' }, { metadatable: rel('requests', b.id) }),
    });
    expect(poly.status, JSON.stringify(poly.body)).toBe(201);
    const read = await call('GET', `/api/v2/requests?filter[id]=${a.id},${b.id}&include=request_metadata,poly_metadata`);
    const byId = new Map(read.body.data.map((r: any) => [r.id, r]));
    expect((byId.get(a.id) as any).attributes.options).toEqual({ number_of_pools: 3 });
    expect((byId.get(a.id) as any).relationships.request_metadata.data).toEqual({ type: 'request_metadata', id: metadata.body.data.id });
    expect((byId.get(b.id) as any).relationships.poly_metadata.data).toEqual([{ type: 'poly_metadata', id: poly.body.data.id }]);
    // Moving the metadata to the other request of the same book: one write of the book, both requests changed.
    const moved = await call('PATCH', `/api/v2/request_metadata/${metadata.body.data.id}`, {
      body: doc('request_metadata', {}, { request: rel('requests', b.id) }, metadata.body.data.id),
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const [ra, rb] = await Promise.all([a.id, b.id].map(async (id) => (await call('GET', `/api/v2/requests/${id}`)).body.data.attributes.options));
    expect([ra, rb]).toEqual([{}, { number_of_pools: 3 }]);
  });
});
