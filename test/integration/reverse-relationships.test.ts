import { beforeAll, describe, expect, it } from 'vitest';
import { slotId } from '#lib/domain/labware-ids.ts';
import { aggregateIndex } from '#lib/jsonapi/resource.ts';
import { MAX_REVERSE_RECORDS } from '#lib/jsonapi/reverse.ts';
import { doc } from '../support/api.ts';
import { direct } from '../support/engine.ts';
import { createPlate, inBatches, rel } from '../support/fixtures.ts';
import { notesRegistry, notesRegistryFor, testNotes } from '../support/notes-registry.ts';
import { seedRecords } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { scanTable } from '../support/table.ts';

/**
 * Reverse relationships (lib/jsonapi/reverse.ts), proved with test-only definitions (test/support/notes-registry.ts):
 * a test_note points at a well, and wells declare `test_notes: reverse('test_notes', 'well')`. The requests are
 * served by the engine with that registry (past authentication, so no API key lookup is counted).
 */

beforeAll(freshStore);

const get = (path: string) => direct('GET', `/api/v2/${path}`, undefined, notesRegistry);

/** A note on a well through the engine; its id. The text names the well, so a note linked to the wrong well shows. */
async function addNote(wellId: number): Promise<string> {
  const { response, document } = await direct(
    'POST',
    '/api/v2/test_notes',
    doc('test_notes', { text: `on ${wellId}` }, { well: rel('wells', wellId) }),
    notesRegistry,
  );
  expect(response.status, response.body).toBe(201);
  return document.data.id;
}

/** Notes on wells: well id → note ids. */
type Notes = Map<number, string[]>;

async function addNotes(notes: Notes, wellIds: number[]): Promise<void> {
  const ids = await inBatches(wellIds.length, 10, (i) => addNote(wellIds[i]!));
  for (const [i, well] of wellIds.entries()) notes.set(well, [...(notes.get(well) ?? []), ids[i]!]);
}

const linkageOf = (ids: string[] = []) => [...ids].sort((a, b) => Number(a) - Number(b)).map((id) => ({ type: 'test_notes', id }));

/** Every included well links exactly its notes (empty elsewhere), and every note is included once, with the text of its well. */
function expectNotesOnWells(document: any, notes: Notes, wellCount: number): void {
  const wells = document.included.filter((r: any) => r.type === 'wells');
  expect(wells).toHaveLength(wellCount);
  for (const well of wells) expect(well.relationships.test_notes.data, `well ${well.id}`).toEqual(linkageOf(notes.get(Number(well.id))));
  const included = document.included.filter((r: any) => r.type === 'test_notes');
  expect(included.map((n: any) => n.id).sort()).toEqual([...notes.values()].flat().sort());
  const wellOf = new Map([...notes].flatMap(([well, ids]) => ids.map((id) => [id, well])));
  for (const note of included) expect(note.attributes.text).toBe(`on ${wellOf.get(note.id)}`);
}

let small: { id: number; uuid: string; notes: Notes };
let large: { id: number; uuid: string; notes: Notes };

beforeAll(async () => {
  const [a, b] = [await createPlate(), await createPlate('Stock Plate 384')];
  small = { id: Number(a.id), uuid: a.attributes.uuid, notes: new Map() };
  large = { id: Number(b.id), uuid: b.attributes.uuid, notes: new Map() };
  // A few notes on a 96-well plate: two on A1, one on the 40th well.
  await addNotes(
    small.notes,
    [1, 1, 40].map((slot) => slotId(small.id, slot)),
  );
  // 100 notes on a 384-well plate: one on every fourth well (96 wells), a second on four of them.
  const slots = [...Array.from({ length: 96 }, (_, i) => 1 + 4 * i), 5, 9, 13, 17];
  await addNotes(
    large.notes,
    slots.map((slot) => slotId(large.id, slot)),
  );
});

describe('a reverse relationship is read per aggregate: one Query per plate, however many wells', () => {
  it('GET /plates/{id}?include=wells.test_notes costs the same on a 384-well plate with 100 notes as on a 96-well plate with 3', async () => {
    const few = await get(`plates/${small.id}?include=wells.test_notes`);
    const many = await get(`plates/${large.id}?include=wells.test_notes`);
    expect(few.response.status).toBe(200);
    expect(many.response.status).toBe(200);
    expectNotesOnWells(few.document, small.notes, 96);
    expectNotesOnWells(many.document, large.notes, 384);

    expect(many.counts).toEqual(few.counts);
    // Observed budget: 3 calls (BatchGetItem 2, Query 1) —
    //   1 BatchGet  the plate, which holds its wells (the `wells` level costs nothing more)
    //   1 Query     the test_notes index entries under the plate (scope test_notes.well, value labware:<id>),
    //               for all its wells at once, strongly consistent, in note id order
    //   1 BatchGet  the notes found (one per 100), which tells which well each points at; the include level
    //               then finds them in the request's cache
    // A plate with more than 100 notes costs one more BatchGet per 100; more wells or more plates of notes
    // elsewhere cost nothing.
    expect(few.counts).toEqual({ BatchGetItem: 2, Query: 1 });
  });

  it('/wells/{id}/test_notes and /wells/{id}/relationships/test_notes answer the notes of that well only', async () => {
    const a1 = slotId(small.id, 1);
    const notes = linkageOf(small.notes.get(a1));
    expect(notes).toHaveLength(2);

    const related = await get(`wells/${a1}/test_notes`);
    expect(related.response.status).toBe(200);
    expect(related.document.data.map((n: any) => ({ type: n.type, id: n.id }))).toEqual(notes);
    expect(related.document.data.map((n: any) => n.attributes.text)).toEqual([`on ${a1}`, `on ${a1}`]);
    expect(related.document.meta.record_count).toBe(2);
    // The well's plate, the plate's index entries, the notes.
    expect(related.counts).toEqual({ BatchGetItem: 2, Query: 1 });

    const linkage = await get(`wells/${a1}/relationships/test_notes`);
    expect(linkage.response.status).toBe(200);
    expect(linkage.document.data).toEqual(notes);
    expect(linkage.document.links).toEqual({
      self: `https://lts.test/api/v2/wells/${a1}/relationships/test_notes`,
      related: `https://lts.test/api/v2/wells/${a1}/test_notes`,
    });
    expect(linkage.counts).toEqual({ BatchGetItem: 2, Query: 1 });

    // Through the polymorphic receptacles path a well is a well, with its notes.
    expect((await get(`receptacles/${a1}/relationships/test_notes`)).document.data).toEqual(notes);

    // A well without notes: empty, at the same cost (the plate's notes are read to tell which wells they are on).
    const empty = await get(`wells/${slotId(small.id, 2)}/relationships/test_notes`);
    expect(empty.document.data).toEqual([]);
    expect(empty.counts).toEqual({ BatchGetItem: 2, Query: 1 });
    // On a plate without notes, the Query finds nothing and no note is read.
    const bare = await get(`wells/${slotId(Number((await createPlate()).id), 1)}/relationships/test_notes`);
    expect(bare.document.data).toEqual([]);
    expect(bare.counts).toEqual({ BatchGetItem: 1, Query: 1 });
  });

  it('notes across two plates cost one Query per plate', async () => {
    const one = await get(`plates?filter[uuid]=${small.uuid}&include=wells.test_notes`);
    const two = await get(`plates?filter[uuid]=${small.uuid},${large.uuid}&include=wells.test_notes`);
    expect(one.response.status).toBe(200);
    expect(two.response.status).toBe(200);
    expectNotesOnWells(two.document, new Map([...small.notes, ...large.notes]), 96 + 384);
    // The plates by uuid (one BatchGet), one Query per plate, the notes of both (one BatchGet: 103 notes, 2 batches of ≤ 100 keys).
    expect(one.counts).toEqual({ BatchGetItem: 2, Query: 1 });
    expect(two.counts).toEqual({ BatchGetItem: 3, Query: 2 });
  });
});

describe('writes keep the aggregate index in their own transaction', () => {
  it('a note is found through its well from the response that creates it, and moved to another plate it is found there only', async () => {
    const other = Number((await createPlate()).id);
    const from = slotId(small.id, 60);
    const to = slotId(other, 3);
    const created = await direct(
      'POST',
      '/api/v2/test_notes?include=well.test_notes',
      doc('test_notes', { text: 'moving' }, { well: rel('wells', from) }),
      notesRegistry,
    );
    expect(created.response.status, created.response.body).toBe(201);
    const id = created.document.data.id;
    // Read-your-writes: the note is staged, not yet in the index, and still the well's.
    const well = created.document.included.find((r: any) => r.type === 'wells');
    expect(well.relationships.test_notes.data).toEqual([{ type: 'test_notes', id }]);

    const entries = async () => (await scanTable('term')).filter((t) => t.scope === 'test_notes.well' && String(t.id) === id).map((t) => t.value as string);
    expect(await entries()).toEqual([`labware:${small.id}`]);

    const moved = await direct('PATCH', `/api/v2/test_notes/${id}`, doc('test_notes', {}, { well: rel('wells', to) }, id), notesRegistry);
    expect(moved.response.status, moved.response.body).toBe(200);
    expect(await entries()).toEqual([`labware:${other}`]);
    expect((await get(`wells/${from}/relationships/test_notes`)).document.data).toEqual([]);
    expect((await get(`wells/${to}/relationships/test_notes`)).document.data).toEqual([{ type: 'test_notes', id }]);
  });
});

describe('bounded: a reverse relationship reads at most its maximum of pointing records', () => {
  /**
   * Notes with index entries of about 2 KB (a scope near DynamoDB's 2,048-byte partition key), so that
   * one plate's entries span two of DynamoDB's 1 MB Query pages, and a maximum of 600 (the service's
   * own is MAX_REVERSE_RECORDS, 5,000): the same paging and the same edge as 5,000 entries of ~200
   * bytes, at an eighth of the writes and reads.
   */
  const MAX = 600;
  const bulky = notesRegistryFor(
    { ...testNotes, indexes: { well: { ...aggregateIndex('well'), scope: `test_notes.well.${'x'.repeat(1_800)}` } } },
    { max: MAX },
  );
  const read = (path: string) => direct('GET', `/api/v2/${path}`, undefined, bulky);

  it(`reads ${MAX} notes pointing into one plate, page after page; one more is a 400 naming the relationship and the limit`, async () => {
    expect(MAX).toBeLessThan(MAX_REVERSE_RECORDS);
    const plate = Number((await createPlate()).id);
    // Written straight into the table as the engine stores them (record and index entry each).
    const seeded = await seedRecords(
      'test_notes',
      MAX,
      (i) => ({ attrs: { text: 'seeded' }, rels: { well: { type: 'wells', id: slotId(plate, 1 + (i % 96)) } } }),
      bulky,
    );
    const a1 = slotId(plate, 1);

    const full = await read(`wells/${a1}/relationships/test_notes`);
    expect(full.response.status).toBe(200);
    expect(full.document.data).toEqual(linkageOf(seeded.filter((_, i) => i % 96 === 0).map((r) => String(r.id))));
    // Observed: the plate (1 BatchGet); the plate's 600 index entries of ~2 KB, read to the end of the range
    // in 3 Query pages (at most 1 MB each); the notes, to find the 7 on A1 (6 BatchGets of 100).
    expect(full.counts).toEqual({ BatchGetItem: 7, Query: 3 });

    const extra = await direct('POST', '/api/v2/test_notes', doc('test_notes', { text: 'one too many' }, { well: rel('wells', slotId(plate, 2)) }), bulky);
    expect(extra.response.status).toBe(201);
    for (const path of [`wells/${a1}/relationships/test_notes`, `wells/${a1}/test_notes`, `plates/${plate}?include=wells.test_notes`]) {
      await expect(read(path), path).rejects.toMatchObject({
        status: 400,
        errors: [expect.objectContaining({ code: 'too_many_related', detail: expect.stringMatching(`^test_notes - more than ${MAX} test_notes`) })],
      });
    }
    // Other plates' notes are read as before.
    expect((await read(`wells/${slotId(small.id, 1)}/relationships/test_notes`)).document.data).toEqual([]);
  });
});
