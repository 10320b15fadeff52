import { beforeAll, describe, expect, it } from 'vitest';
import { externalBarcode } from '#lib/domain/barcode.ts';
import { auditedTransactionItems, mostInOneTransaction, poolingItems, TRANSACTION_ITEM_LIMIT } from '#lib/domain/budgets.ts';
import { emptyReceptacles, type Labware, type Receptacle } from '#lib/domain/labware.ts';
import { getRecords } from '#lib/store/records.ts';
import { clearReferenceCache } from '#lib/store/reference-records.ts';
import { call, doc, idOf, warmKeyCache } from '../support/api.ts';
import { direct } from '../support/engine.ts';
import { createPlate } from '../support/fixtures.ts';
import { adminUuid, contentsOf, filledPlate, postTransfer, templateUuid, uuidOf } from '../support/lab.ts';
import { expectError } from '../support/responses.ts';
import { seedRecords } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { refused, requestItems } from '../support/table.ts';

/**
 * Transfers and tag layouts under concurrency and at their item budgets (issue 10, item 6): a source is
 * read, never written, so transfers out of one plate never contend; two into one destination are
 * serialised by its conditional write; a 384-well plate pooled into the most tubes one transaction holds,
 * and into more as one write of several; a 384-well tag layout in one write; and what each costs in DynamoDB calls,
 * the same whatever the plate's size.
 */

beforeAll(freshStore);

let user: string;
let stamp: string;
let bySubmission: string;
beforeAll(async () => {
  [user, stamp, bySubmission] = await Promise.all([
    adminUuid(),
    templateUuid('Transfer columns 1-12'),
    templateUuid('Transfer wells to MX library tubes by submission'),
  ]);
});

/**
 * The most pool tubes one transaction holds: 5 items each (the tube, its barcode guard, its link to the plate, its pool's
 * guard, its audit entry), beside the plate's audit entry (docs/decisions.md, "Audit trail").
 */
const pooledItems = (tubes: number) => auditedTransactionItems(poolingItems(tubes), 1 + tubes);
const ONE_TRANSACTION_OF_POOLS = mostInOneTransaction(pooledItems);
/** A pooling past one transaction: 96 tubes, 385 records and 288 index entries. */
const MORE_POOLS = 96;

/** Column order on a 384-well plate: A1, B1, … P1, A2, … */
const position384 = (slot: number) => `${String.fromCharCode(65 + ((slot - 1) % 16))}${Math.floor((slot - 1) / 16) + 1}`;

/**
 * A plate stored as the service stores it (384 wells unless `size` says 96), its first `filled` wells
 * each holding one sample with its own tag and material worked on for one of `pools` submissions (carried
 * on its transfer request), wells dealt out to the pools in turn. Seeded straight into the table: hundreds
 * of samples through the API would take minutes.
 */
let submissions = 800_000;
async function seededPlate(
  pools: number,
  { size = 384, filled }: { size?: 96 | 384; filled?: number } = {},
): Promise<{ id: string; uuid: string; barcode: string }> {
  const full = filled ?? size;
  // Submissions no other plate of the file uses, so each pooling makes its own tubes.
  const first = submissions;
  submissions += pools;
  const purpose = Number(await idOf('plate_purposes', 'name', size === 384 ? 'Stock Plate 384' : 'Stock Plate'));
  const aliquot = (i: number) => ({
    n: i + 1,
    sample: 900_000 + i,
    study: null,
    tag: { oligo: `ACGT${String(i).padStart(4, '0')}`, index: i + 1 },
    tag2: null,
    library_type: null,
  });
  const receptacles: Receptacle[] = emptyReceptacles(size).map((r, i) =>
    i < full ? { ...r, aliquots: [aliquot(i)], transfers: [{ n: i + 1, source: 1, state: 'pending', submission: first + (i % pools) }] } : r,
  );
  const [plate] = await seedRecords('plates', 1, () => {
    const attrs: Labware = {
      name: null,
      barcode: externalBarcode(`SEEDED-${first}`),
      state: 'pending',
      size,
      receptacles,
      aliquotCount: full,
      transferRequestCount: full,
    };
    return {
      attrs: attrs as unknown as Record<string, unknown>,
      rels: { purpose: { type: 'plate_purposes', id: purpose }, parents: [], custom_metadatum_collection: null },
    };
  });
  const read = (await call('GET', `/api/v2/plates/${plate!.id}`)).body.data;
  return { id: read.id, uuid: read.attributes.uuid, barcode: read.attributes.labware_barcode.human_barcode };
}

describe('concurrency', () => {
  it('twenty transfers out of one stock plate into twenty plates at once all succeed, and the stock plate is never written', async () => {
    const { plate: stock, samples } = await filledPlate(8);
    const before = (await call('GET', `/api/v2/plates/${stock.id}`)).body.data.attributes.updated_at;
    const destinations = await Promise.all(Array.from({ length: 20 }, () => createPlate('Working Dilution')));
    const results = await Promise.all(
      destinations.map((d) => postTransfer({ template: stamp, source: stock.attributes.uuid, destination: d.attributes.uuid, user })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    for (const destination of destinations) {
      const held = await contentsOf('plates', destination.id);
      expect([...held].map(([well, [a]]) => [well, a!.sample])).toEqual([...samples]);
    }
    expect((await call('GET', `/api/v2/plates/${stock.id}`)).body.data.attributes.updated_at).toBe(before);
    const children = await call('GET', `/api/v2/plates/${stock.id}/children`);
    expect(children.body.data.map((c: any) => c.id).sort()).toEqual(destinations.map((d) => d.id).sort());
  });

  it('twenty transfers from one source into one destination at once: one wins, the others are refused as a second transfer is; nothing merged', async () => {
    const { plate: source, samples } = await filledPlate(4);
    const destination = await createPlate();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => postTransfer({ template: stamp, source: source.attributes.uuid, destination: destination.attributes.uuid, user })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(19).fill(422)]);
    const loser = results.find((r) => r.status === 422)!;
    expect(expectError(loser, 422, 'invalid_value', '/data/relationships/destination').detail).toMatch(/can only be transferred to once from the source/);
    const held = await contentsOf('plates', destination.id);
    expect([...held].map(([well, aliquots]) => [well, aliquots.map((a) => a.sample)])).toEqual([...samples].map(([well, sample]) => [well, [sample]]));
    // One transfer request per filled well, from the winner only (read from the stored aggregate: the API does not render them).
    const stored = (await getRecords([{ family: 'labware', id: Number(destination.id) }])).get(`labware:${destination.id}`)!;
    expect((stored.attrs as unknown as Labware).receptacles.map((r) => r.transfers?.length ?? 0).filter((n) => n > 0)).toEqual([1, 1, 1, 1]);
  });

  it('transfers from two sources into one destination at once both land: neither is lost', async () => {
    const [{ plate: a, samples: fromA }, { plate: b, samples: fromB }] = await Promise.all([filledPlate(1), filledPlate(1)]);
    const destination = await createPlate();
    const custom = await templateUuid('Custom pooling');
    const results = await Promise.all([
      postTransfer({ template: custom, source: a.attributes.uuid, destination: destination.attributes.uuid, user, transfers: { A1: 'A1' } }),
      postTransfer({ template: custom, source: b.attributes.uuid, destination: destination.attributes.uuid, user, transfers: { A1: 'B1' } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([201, 201]);
    const held = await contentsOf('plates', destination.id);
    expect(held.get('A1')!.map((x) => x.sample)).toEqual([fromA.get('A1')]);
    expect(held.get('B1')!.map((x) => x.sample)).toEqual([fromB.get('A1')]);
  });
});

describe('budgets and DynamoDB calls', () => {
  it(`a 384-well plate pooled into ${ONE_TRANSACTION_OF_POOLS} tubes is one transaction; into ${MORE_POOLS}, one write of several, with the same reads`, {
    timeout: 180_000,
  }, async () => {
    expect(pooledItems(ONE_TRANSACTION_OF_POOLS)).toBeLessThanOrEqual(TRANSACTION_ITEM_LIMIT);
    expect(pooledItems(ONE_TRANSACTION_OF_POOLS + 1)).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    const atEdge = await seededPlate(ONE_TRANSACTION_OF_POOLS);
    await warmKeyCache();
    // Each transfer counted with no reference record kept by the process (lib/store/reference-records.ts), so both read the same.
    clearReferenceCache();
    const { response, document, counts } = await direct(
      'POST',
      '/api/v2/transfers',
      doc('transfers', { transfer_template_uuid: bySubmission, source_uuid: atEdge.uuid, user_uuid: user }),
    );
    expect(response.status, response.body).toBe(201);
    const tubes = new Set(Object.values(document.data.attributes.transfers).map((t: any) => t.uuid));
    expect(tubes.size).toBe(ONE_TRANSACTION_OF_POOLS);
    // Template, source and user in one read (BatchGetItem); the requests out of the wells (Query); the
    // pool-tube guards of all its pools (BatchGetItem); the MX Tube purpose (Query, BatchGetItem); the
    // transfer's id, the tubes' ids and their barcode numbers (UpdateItem ×3, whatever the number of tubes); the commit.
    expect(counts).toEqual({ BatchGetItem: 3, Query: 2, UpdateItem: 3, TransactWriteItems: 1 });

    // The same transfer from a small plate into two tubes costs the same calls.
    const small = await seededPlate(2);
    clearReferenceCache();
    const two = await direct('POST', '/api/v2/transfers', doc('transfers', { transfer_template_uuid: bySubmission, source_uuid: small.uuid, user_uuid: user }));
    expect(two.response.status, two.response.body).toBe(201);
    expect(two.counts).toEqual(counts);

    // Past one transaction (it was refused before writes could be staged in several): the same reads, more TransactWriteItems.
    const many = await seededPlate(MORE_POOLS);
    clearReferenceCache();
    const past = await direct('POST', '/api/v2/transfers', doc('transfers', { transfer_template_uuid: bySubmission, source_uuid: many.uuid, user_uuid: user }));
    expect(past.response.status, past.response.body?.slice(0, 500)).toBe(201);
    const { TransactWriteItems, ...reads } = past.counts;
    const { TransactWriteItems: one, ...sameReads } = counts;
    expect(reads).toEqual(sameReads);
    expect(TransactWriteItems).toBeGreaterThan(one!);
    const pooled = Object.values(past.document.data.attributes.transfers).map((t: any) => t.uuid);
    expect(new Set(pooled).size).toBe(MORE_POOLS);
    // Wells are dealt out to the pools in turn: each tube holds four.
    const read = await call('GET', `/api/v2/tubes?filter[uuid]=${pooled[0]}&include=aliquots`);
    expect(read.body.included.filter((r: any) => r.type === 'aliquots')).toHaveLength(384 / MORE_POOLS);
  });

  it('a 96-well stamp is one transaction, costing the same calls as a one-well stamp', async () => {
    const [full, one] = [await seededPlate(1, { size: 96 }), await seededPlate(1, { size: 96, filled: 1 })];
    const [d96, d1] = await Promise.all([createPlate(), createPlate()]);
    await warmKeyCache();
    const before = (await requestItems()).length;
    const big = await direct(
      'POST',
      '/api/v2/transfers',
      doc('transfers', { transfer_template_uuid: stamp, source_uuid: full.uuid, destination_uuid: d96.attributes.uuid, user_uuid: user }),
    );
    expect(big.response.status, big.response.body).toBe(201);
    const small = await direct(
      'POST',
      '/api/v2/transfers',
      doc('transfers', { transfer_template_uuid: stamp, source_uuid: one.uuid, destination_uuid: d1.attributes.uuid, user_uuid: user }),
    );
    expect(small.counts).toEqual(big.counts);
    // Template, source, destination and user in one read (BatchGetItem), the requests out of the source's
    // wells, whose pools the copies carry (Query), the transfer's id (UpdateItem), the commit.
    expect(big.counts).toEqual({ BatchGetItem: 1, Query: 1, UpdateItem: 1, TransactWriteItems: 1 });
    expect((await requestItems()).length).toBe(before + 2);
    expect((await contentsOf('plates', d96.id)).size).toBe(96);
  });

  it('a group tag layout on a full 384-well plate: 4 tags a well fits its record; 16 a well passes its byte budget, a 422 writing nothing', async () => {
    const i7 = await uuidOf('tag_groups', 'name', 'Test Tags i7');
    const layout = (plate: string, tagsPerWell: number) =>
      doc('tag_layouts', {
        plate_uuid: plate,
        tag_group_uuid: i7,
        direction: 'column',
        walking_by: 'as group by plate',
        tags_per_well: tagsPerWell,
        replace_tags: true,
        user_uuid: user,
      });
    const fits = await seededPlate(1);
    const res = await call('POST', '/api/v2/tag_layouts', { body: layout(fits.uuid, 4) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tagged = await contentsOf('plates', fits.id);
    expect([...tagged.values()].every((aliquots) => aliquots.length === 4)).toBe(true);
    expect(tagged.get('A2')!.map((a) => a.tag)).toEqual([65, 66, 67, 68]);

    const over = await seededPlate(1);
    const error = expectError(await refused('POST', '/api/v2/tag_layouts', layout(over.uuid, 16)), 422, 'too_large');
    expect(error.detail).toContain(`plates ${over.id}`);
  });

  it('a tag layout on a full 384-well plate is one write of the plate, costing the same calls as on a 96-well plate', async () => {
    const plate = await seededPlate(1);
    // The seeded wells carry tags already: replace_tags retags them all.
    const i7 = await uuidOf('tag_groups', 'name', 'Test Tags i7');
    await warmKeyCache();
    const big = await direct(
      'POST',
      '/api/v2/tag_layouts',
      doc('tag_layouts', { plate_uuid: plate.uuid, tag_group_uuid: i7, direction: 'column', walking_by: 'quadrants', replace_tags: true, user_uuid: user }),
    );
    expect(big.response.status, big.response.body).toBe(201);
    const tagged = await contentsOf('plates', plate.id);
    expect(tagged.size).toBe(384);
    // Quadrants: the 96 tags stamped over the 384 wells, each tag in four wells (one per quadrant).
    const uses = new Map<number, number>();
    for (const [, [aliquot]] of tagged) uses.set(aliquot!.tag!, (uses.get(aliquot!.tag!) ?? 0) + 1);
    expect([...uses.values()].every((n) => n === 4)).toBe(true);
    expect(uses.size).toBe(96);
    expect(position384(17)).toBe('A2');

    const { plate: small } = await filledPlate(2);
    const little = await direct(
      'POST',
      '/api/v2/tag_layouts',
      doc('tag_layouts', { plate_uuid: small.attributes.uuid, tag_group_uuid: i7, direction: 'column', walking_by: 'quadrants', user_uuid: user }),
    );
    expect(little.response.status, little.response.body).toBe(201);
    // The plate, its tag group and the user, named by uuid, in one read (BatchGetItem); the layout's id (UpdateItem); the commit.
    expect(big.counts).toEqual({ BatchGetItem: 1, UpdateItem: 1, TransactWriteItems: 1 });
    expect(little.counts).toEqual(big.counts);
  });
});
