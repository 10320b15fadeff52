import { describe, expect, it } from 'vitest';
import {
  carriesAfterImage,
  INLINE_AFTER_IMAGE_BYTES,
  ITEM_SIZE_LIMIT,
  LARGE_WRITE_ITEM_LIMIT,
  MAX_ALIQUOTS_PER_RECEPTACLE,
  poolingItems,
  TRANSACTION_ITEM_LIMIT,
  TRANSACTION_SIZE_LIMIT,
  transactionItems,
  transferRequestCollectionItems,
  withinRequest,
  writtenItems,
} from '#lib/domain/budgets.ts';
import { emptyReceptacles, type Aliquot, type Contents, type Receptacle } from '#lib/domain/labware.ts';
import { maxSubmissionRequests, submissionBudgetProblem, submissionItems } from '#lib/domain/submissions.ts';
import { receiveTransfer } from '#lib/domain/receptacles.ts';

/**
 * The budgets of stamps and pooling, worked out with the domain's own rules over the aggregate, as those
 * writes will: items per write (one transaction, or the bound of one request), and bytes per item as the
 * unit of work measures them (a stored record's JSON); and the one check of the bound, `withinRequest`.
 */

const BASES = 'ACGT';
/** A 10-base oligo (the longest real index tags), distinct per index. */
const oligo = (index: number, salt: number) => Array.from({ length: 10 }, (_, i) => BASES[(Math.floor(index / 4 ** (i % 5)) + salt * i) % 4]).join('');

/** A dual-tagged aliquot as real libraries carry them: an 8-digit sample id, a study, i7/i5 tags of 10 bases, a library type. */
const aliquot = (n: number, i: number): Aliquot => ({
  n,
  sample: 10_000_000 + i,
  study: 12,
  tag: { oligo: oligo(i % 384, 1), index: (i % 384) + 1 },
  tag2: { oligo: oligo(Math.floor(i / 384), 3), index: Math.floor(i / 384) + 1 },
  library_type: 'Standard',
});

/** A plate of `size` wells, `perWell` tagged aliquots in each (sample numbers from `first`). */
function filledPlate(size: number, perWell: number, first = 0): Contents {
  const receptacles = emptyReceptacles(size).map(
    (r, w): Receptacle => ({ ...r, aliquots: Array.from({ length: perWell }, (_, k) => aliquot(w * perWell + k + 1, first + w * perWell + k)) }),
  );
  return { receptacles, aliquotCount: size * perWell };
}

/** JSON bytes of a labware record holding these contents, as the unit of work measures it (12-digit ids, the longest). */
const recordBytes = (contents: Contents): number =>
  Buffer.byteLength(
    JSON.stringify({
      family: 'labware',
      id: 999_999_999_999,
      type: 'plates',
      uuid: '0b1f6c2e-1d4a-4b8e-9f3a-5c7d8e9f0000',
      createdAt: '2026-11-24T05:00:00.000Z',
      updatedAt: '2026-11-24T05:00:00.000Z',
      version: 1,
      attrs: {
        name: 'DN1234567U A1:P24',
        barcode: { human_barcode: 'DN1234567U', machine_barcode: '1221234567854', ean13_barcode: '1221234567854', external: false },
        state: 'pending',
        size: contents.receptacles.length,
        ...contents,
      },
      rels: { purpose: { type: 'plate_purposes', id: 999_999 }, parents: [{ type: 'plates', id: 999_999_999_998 }], custom_metadatum_collection: null },
    }),
  );

/** Every well of `source` transferred into `targetSlot(well)` of `target`, as a transfer does. */
function transfer(source: Contents, sourceId: number, target: Contents, targetSlot: (slot: number) => number): Contents {
  let result = target;
  for (const [i, receptacle] of source.receptacles.entries()) {
    const outcome = receiveTransfer({ id: sourceId * 1000 + i + 1, receptacle }, result, { slot: targetSlot(i + 1), name: `slot ${targetSlot(i + 1)}` });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.problems));
    result = outcome.value;
  }
  return result;
}

const emptyTube = (): Contents => ({ receptacles: emptyReceptacles(1), aliquotCount: 0 });

describe('after-images of a write past one transaction', () => {
  it('a changed record carries its after-image in its own item up to 8 KB, while the record as it is and the image fit one record together', () => {
    expect(carriesAfterImage(1_600, () => 1_500)).toBe(true);
    expect(carriesAfterImage(INLINE_AFTER_IMAGE_BYTES, () => 1_500)).toBe(true);
    expect(carriesAfterImage(INLINE_AFTER_IMAGE_BYTES + 1, () => 1_500)).toBe(false);
    expect(carriesAfterImage(1_000, () => ITEM_SIZE_LIMIT - 1_000)).toBe(true);
    // A record near its budget shrunk in one write: together they would pass the item's 400 KB.
    expect(carriesAfterImage(1_001, () => ITEM_SIZE_LIMIT - 1_000)).toBe(false);
  });
});

describe('items per write', () => {
  it('a stamp into a new plate with its transfer requests is 6 items whatever its wells: transfer requests live in the destination wells', () => {
    expect(transactionItems(transferRequestCollectionItems(1, 1))).toBe(6);
  });

  it('a plate pooled into tubes it creates: 4 items a tube; 24 tubes are one transaction, a 384-well plate into 384 tubes one write within the bound', () => {
    expect(transactionItems(poolingItems(24))).toBeLessThanOrEqual(TRANSACTION_ITEM_LIMIT);
    expect(transactionItems(poolingItems(25))).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    expect(writtenItems(poolingItems(384))).toBe(1_537);
    expect(writtenItems(poolingItems(384))).toBeLessThanOrEqual(LARGE_WRITE_ITEM_LIMIT);
  });

  it('the bound of one request counts records and index entries (count shards and the request item are the store’s own)', () => {
    const write = { records: 10, indexItems: 5, countedFamilies: 3 };
    expect([writtenItems(write), transactionItems(write)]).toEqual([15, 19]);
  });
});

describe('withinRequest, the one check of the bound', () => {
  const shape = (items: number) => ({ records: items, indexItems: 0, countedFamilies: 2 });

  it('finds nothing up to the bound', () => {
    expect(withinRequest(shape(LARGE_WRITE_ITEM_LIMIT), '4000 things')).toEqual([]);
  });

  it('past it, one over_budget problem at the input named, naming what is written, its count and the bound', () => {
    expect(withinRequest({ records: 2_001, indexItems: 2_000, countedFamilies: 2 }, '2000 tubes from 1 parent(s)', ['child_purposes'])).toEqual([
      {
        code: 'over_budget',
        input: ['child_purposes'],
        detail: `2000 tubes from 1 parent(s) would write 4001 records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}`,
      },
    ]);
    expect(withinRequest(shape(LARGE_WRITE_ITEM_LIMIT + 1), 'x')[0]!.input).toEqual([]);
  });
});

describe('bytes per item', () => {
  it('an empty 384-well plate is ~14 KB: one pending receptacle per well', () => {
    const bytes = recordBytes({ receptacles: emptyReceptacles(384), aliquotCount: 0 });
    expect(bytes).toBeGreaterThan(12_000);
    expect(bytes).toBeLessThan(15_000);
  });

  it('a 96-well stamp: the destination, each well with its aliquot and a transfer request, is ~22 KB', () => {
    const destination = transfer(filledPlate(96, 1), 5, { receptacles: emptyReceptacles(96), aliquotCount: 0 }, (slot) => slot);
    expect(destination.receptacles.every((r) => r.aliquots.length === 1 && r.transfers?.length === 1)).toBe(true);
    const bytes = recordBytes(destination);
    expect(bytes).toBeGreaterThan(18_000);
    expect(bytes).toBeLessThan(24_000);
  });

  it('a 384-well stamp of 4-sample pools (1,536 aliquots with their transfer requests) fits one item: ~256 KB', () => {
    const destination = transfer(filledPlate(384, 4), 5, { receptacles: emptyReceptacles(384), aliquotCount: 0 }, (slot) => slot);
    expect(recordBytes(destination)).toBeLessThan(ITEM_SIZE_LIMIT);
  });

  it('a 384-well plate pooled into one tube: 384 aliquots and 384 transfer requests, ~70 KB', () => {
    const tube = transfer(filledPlate(384, 1), 5, emptyTube(), () => 1);
    expect(tube.receptacles[0]!.aliquots).toHaveLength(384);
    expect(tube.receptacles[0]!.transfers).toHaveLength(384);
    const bytes = recordBytes(tube);
    expect(bytes).toBeGreaterThan(60_000);
    expect(bytes).toBeLessThan(80_000);
  });

  it(`four 384-well plates pooled into one tube is the largest pool (${MAX_ALIQUOTS_PER_RECEPTACLE}): ~280 KB, within the item; a fifth plate is refused`, () => {
    let tube = emptyTube();
    for (let plate = 0; plate < 4; plate++) tube = transfer(filledPlate(384, 1, plate * 384), plate + 1, tube, () => 1);
    expect(tube.receptacles[0]!.aliquots).toHaveLength(MAX_ALIQUOTS_PER_RECEPTACLE);
    const bytes = recordBytes(tube);
    expect(bytes).toBeGreaterThan(260_000);
    expect(bytes).toBeLessThan(295_000);
    expect(bytes).toBeLessThan(ITEM_SIZE_LIMIT);
    expect(() => transfer(filledPlate(1, 1, 4 * 384), 9, tube, () => 1)).toThrow(/over_budget/);
  });

  it('a 384-well plate pooled into 384 tubes (a well each) is far inside one transaction’s bytes', () => {
    const plate = filledPlate(384, 1);
    const tubes = plate.receptacles.map((receptacle) => transfer({ receptacles: [receptacle], aliquotCount: 1 }, 5, emptyTube(), () => 1));
    const bytes = tubes.reduce((total, tube) => total + recordBytes(tube), 0);
    expect(bytes).toBeLessThan(TRANSACTION_SIZE_LIMIT / 4);
  });

  it(`a rack of 96 tubes fits the transaction's bytes while its tubes average under ~280 tagged aliquots (~41 KB)`, () => {
    const tube = (count: number) =>
      recordBytes({ receptacles: [{ state: 'pending', aliquots: filledPlate(1, count).receptacles[0]!.aliquots }], aliquotCount: count });
    expect(96 * tube(270)).toBeLessThan(TRANSACTION_SIZE_LIMIT);
    expect(96 * tube(290)).toBeGreaterThan(TRANSACTION_SIZE_LIMIT);
  });
});

describe('a submission’s write', () => {
  it('one order opening 999 request books is within the bound of one request; 1,000 are past it, a problem naming the count and the bound', () => {
    expect(writtenItems(submissionItems(1, 999))).toBe(3_999);
    expect(submissionBudgetProblem(1, 999, 999_000)).toEqual([]);
    expect(submissionBudgetProblem(1, 1_000, 1_000_000)).toEqual([
      {
        code: 'over_budget',
        input: [],
        detail: `submitting 1 orders (1000000 requests in 1000 request books, one for each labware and page of 1,000) would write 4003 records and index entries; one request may write at most ${LARGE_WRITE_ITEM_LIMIT}`,
      },
    ]);
  });

  it('requests are counted before they are made against the most the bound could hold: its bytes of the smallest requests', () => {
    expect(maxSubmissionRequests(1)).toBe(192_771);
    expect(maxSubmissionRequests(1)).toBeLessThan(999 * 1_000);
  });
});
