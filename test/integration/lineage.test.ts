import { beforeAll, describe, expect, it } from 'vitest';
import { externalBarcode } from '#lib/domain/barcode.ts';
import { emptyReceptacles, type Contents, type Labware } from '#lib/domain/labware.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import { receiveTransfer } from '#lib/domain/receptacles.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import { Registry } from '#lib/jsonapi/registry.ts';
import { toOne, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { registry } from '#lib/resources/index.ts';
import { createLabware } from '#lib/operations/labware-factory.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { MAX_CHILDREN, MAX_LINEAGE } from '#lib/resources/lineage.ts';
import { accepted, relationshipAt } from '#lib/jsonapi/problems.ts';
import { getRecords, type StoredRecord } from '#lib/store/records.ts';
import { call, doc, warmKeyCache } from '../support/api.ts';
import { direct } from '../support/engine.ts';
import { addAliquot, createPlate, createSample, purposeId, rel } from '../support/fixtures.ts';
import { expectError, idsOf, typedIdsOf } from '../support/responses.ts';
import { seedTubes } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';

/**
 * Lineage on the child only (lib/domain/lineage.ts, lib/resources/lineage.ts): a child records its
 * parents, and its parents find it through the parent index, so making a child writes the child (and
 * one index item per parent) and never its parents. No endpoint makes children yet (issue 10 adds
 * transfers and conversions), so a test-only type, run through the engine with the service's own types,
 * makes them here.
 */

beforeAll(freshStore);

/**
 * Stands in for a transfer into a new plate: POST makes a plate from a source plate, every filled source
 * well's aliquots copied into the same well with a transfer request, the new plate naming the source as
 * its parent.
 */
const stamps: ResourceDef = {
  type: 'test_stamps',
  family: 'labware',
  methods: ['create'],
  attributes: {},
  relationships: { source: toOne('plates', 'W', { required: true }), purpose: toOne('plate_purposes', 'W', { required: true }) },
  filters: {},
  create: (ctx, input) => {
    const source = input.relationships.source as StoredRecord;
    const from = labwareAttrs(source);
    let contents: Contents = { receptacles: emptyReceptacles(from.receptacles.length), aliquotCount: 0 };
    for (const [i, receptacle] of from.receptacles.entries()) {
      if (receptacle.aliquots.length === 0) continue;
      const slot = i + 1;
      contents = accepted(receiveTransfer({ id: slotId(source.id, slot), receptacle }, contents, { slot, name: `well ${slot}` }), relationshipAt);
    }
    return createLabware(ctx, 'plates', {
      purpose: input.relationships.purpose as StoredRecord,
      size: from.size,
      state: 'pending',
      ...contents,
      parents: [refOf(source)],
    });
  },
};
const withStamps = new Registry([...registry.types.map((type) => registry.require(type)), stamps]);

let stockPurpose: string;
beforeAll(async () => {
  stockPurpose = await purposeId('plate_purposes', 'Stock Plate');
});

const stamp = (source: string) =>
  direct('POST', '/api/v2/test_stamps', doc('test_stamps', {}, { source: rel('plates', source), purpose: rel('plate_purposes', stockPurpose) }), withStamps);

async function stored(id: string): Promise<StoredRecord> {
  const record = (await getRecords([{ family: 'labware', id: Number(id) }])).get(`labware:${id}`);
  expect(record).toBeDefined();
  return record!;
}

const related = async (path: string) => {
  const res = await call('GET', path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
};

const byId = (a: string, b: string) => Number(a) - Number(b);

describe('children made from one parent at once', () => {
  let stock: any;
  let samples: string[];
  let children: string[];

  beforeAll(async () => {
    stock = await createPlate();
    samples = [(await createSample()).id, (await createSample()).id];
    await addAliquot({ type: 'wells', id: String(Number(stock.id) * 1000 + 1) }, samples[0]!);
    await addAliquot({ type: 'wells', id: String(Number(stock.id) * 1000 + 3) }, samples[1]!);
  });

  it('ten plates stamped from one stock plate at the same time all succeed, and the stock is never written', async () => {
    const before = await stored(stock.id);
    const results = await Promise.all(Array.from({ length: 10 }, () => stamp(stock.id)));
    expect(
      results.map((r) => r.response.status),
      JSON.stringify(results.map((r) => r.document?.errors)),
    ).toEqual(Array(10).fill(201));
    children = results.map((r) => r.document.data.id).sort(byId);
    expect(new Set(children).size).toBe(10);
    // The parent item is exactly as it was: no write of any child touched it.
    expect(await stored(stock.id)).toEqual(before);
  });

  it("the stock's children, child_plates and descendants list all ten, through the parent index", async () => {
    const listed = await related(`/api/v2/plates/${stock.id}/children?page[size]=100`);
    expect(typedIdsOf(listed)).toEqual(children.map((id) => `plates/${id}`));
    expect(listed.body.meta.record_count).toBe(10);
    expect(idsOf(await related(`/api/v2/plates/${stock.id}/child_plates`))).toEqual(children);
    expect(idsOf(await related(`/api/v2/plates/${stock.id}/descendants`))).toEqual(children);
    expect((await related(`/api/v2/plates/${stock.id}/relationships/children`)).body.data).toEqual(children.map((id) => ({ type: 'plates', id })));
  });

  it('each child names the stock as its parent and holds its stamped aliquots with transfer requests from the source wells', async () => {
    for (const id of children) {
      expect(typedIdsOf(await related(`/api/v2/plates/${id}/parents`))).toEqual([`plates/${stock.id}`]);
      expect(typedIdsOf(await related(`/api/v2/plates/${id}/ancestors`))).toEqual([`plates/${stock.id}`]);
    }
    const child = labwareAttrs(await stored(children[0]!)) as Labware;
    expect(child.receptacles[0]!.aliquots.map((a) => a.sample)).toEqual([Number(samples[0])]);
    expect(child.receptacles[0]!.transfers).toEqual([{ n: 1, source: Number(stock.id) * 1000 + 1, state: 'pending' }]);
    expect(child.receptacles[2]!.transfers).toMatchObject([{ source: Number(stock.id) * 1000 + 3, state: 'pending' }]);
    expect(child.receptacles[1]).toEqual({ state: 'pending', aliquots: [] });
    const wells = await related(`/api/v2/plates/${children[0]}?include=wells.aliquots.sample`);
    expect((wells.body.included as any[]).filter((r) => r.type === 'samples').map((s) => s.id)).toEqual([samples[0], samples[1]]);
  });

  it('descendants and ancestors follow every generation', async () => {
    const grandchild = await stamp(children[0]!);
    expect(grandchild.response.status).toBe(201);
    const id = grandchild.document.data.id;
    expect(idsOf(await related(`/api/v2/plates/${stock.id}/descendants`))).toEqual([...children, id]);
    expect(idsOf(await related(`/api/v2/plates/${stock.id}/children`))).toEqual(children);
    expect(idsOf(await related(`/api/v2/plates/${id}/ancestors`))).toEqual([stock.id, children[0]]);
  });

  it("a labware's children cost one strongly consistent index Query, however many there are", async () => {
    await warmKeyCache();
    // The stock (BatchGetItem), its children in the parent index (Query), the ten children (BatchGetItem).
    expect((await related(`/api/v2/plates/${stock.id}/children`)).calls).toBe(3);
    const { counts } = await direct('GET', `/api/v2/plates/${stock.id}/children`);
    expect(counts).toEqual({ BatchGetItem: 2, Query: 1 });
  });
});

describe('a labware with absurdly many children', () => {
  let parent: any;
  let children: StoredRecord[];

  let tubePurpose: number;

  /** `n` tubes naming `of` as their parent, written straight into the table with their index items. */
  const seedChildren = async (n: number, of: { type: string; id: number }) =>
    seedTubes(n, tubePurpose, (i) => ({ barcode: externalBarcode(`CHILD-${of.id}-${Math.random()}-${i}`), parents: [of] }));

  beforeAll(async () => {
    parent = await createPlate();
    tubePurpose = Number(await purposeId('tube_purposes', 'Stock Tube'));
    children = await seedChildren(MAX_CHILDREN, { type: 'plates', id: Number(parent.id) });
  });

  it(`lists up to ${MAX_CHILDREN} children`, async () => {
    const res = await related(`/api/v2/plates/${parent.id}/children?page[size]=5`);
    expect(res.body.meta.record_count).toBe(MAX_CHILDREN);
    expect(res.body.data).toHaveLength(5);
    expect((await related(`/api/v2/plates/${parent.id}/descendants?page[size]=1`)).body.meta.record_count).toBe(MAX_LINEAGE);
  });

  it(`a walk reaching more than ${MAX_LINEAGE} labware answers 400 naming the labware and the cap`, async () => {
    await seedChildren(1, { type: 'tubes', id: children[0]!.id });
    const error = expectError(await call('GET', `/api/v2/plates/${parent.id}/descendants`), 400, 'bad_request');
    expect(error.detail).toContain(`plates ${parent.id} has more than ${MAX_LINEAGE} descendants`);
    expect((await related(`/api/v2/plates/${parent.id}/children?page[size]=1`)).body.meta.record_count).toBe(MAX_CHILDREN);
  });

  it(`past ${MAX_CHILDREN} children, children, child_plates and descendants answer 400 naming the labware and the cap`, async () => {
    await seedChildren(1, { type: 'plates', id: Number(parent.id) });
    for (const relationship of ['children', 'descendants', 'child_plates']) {
      const error = expectError(await call('GET', `/api/v2/plates/${parent.id}/${relationship}`), 400, 'bad_request');
      expect(error.detail).toContain(`plates ${parent.id} has more than ${MAX_CHILDREN} children`);
    }
    expectError(await call('GET', `/api/v2/plates/${parent.id}?include=children`), 400, 'bad_request');
    // The parent itself still reads.
    expect((await call('GET', `/api/v2/plates/${parent.id}`)).status).toBe(200);
  });
});
