import { describe, expect, it } from 'vitest';
import {
  ITEM_SIZE_LIMIT,
  LARGE_WRITE_ITEM_LIMIT,
  MAX_QC_RESULTS_PER_ASSAY,
  qcAssayItems,
  TRANSACTION_ITEM_LIMIT,
  transactionItems,
  writtenItems,
} from '#lib/domain/budgets.ts';
import { emptyReceptacles } from '#lib/domain/labware.ts';
import { addQcResults, qcSlot, type QcContents, type QcResultContent } from '#lib/domain/qc-results.ts';

/** The QC result rules (lib/domain/qc-results.ts) and the budgets behind a QC assay. */

const plate = (size: number): QcContents => ({ size, receptacles: emptyReceptacles(size) });
const tube = (): QcContents => ({ receptacles: emptyReceptacles(1) });

/** A result as plate readers send it (quanthub): short key, value, units, cv and assay names. */
const reading = (value: string): QcResultContent => ({
  assay: 123_456,
  key: 'concentration',
  value,
  units: 'ng/ul',
  cv: '4.1',
  assay_type: 'ISC',
  assay_version: 'v1.0',
  created_at: '2026-06-01T12:00:00.000Z',
});

describe('qcSlot', () => {
  it('puts a well location into its well (column order), a tube result into its receptacle, a plate result on the plate', () => {
    expect(qcSlot('plate', plate(96), 'plates 1', 'A1')).toEqual({ ok: true, value: 1 });
    expect(qcSlot('plate', plate(96), 'plates 1', 'b3')).toEqual({ ok: true, value: 18 });
    expect(qcSlot('plate', plate(384), 'plates 1', 'P24')).toEqual({ ok: true, value: 384 });
    expect(qcSlot('tube', tube(), 'tubes 2', undefined)).toEqual({ ok: true, value: 1 });
    expect(qcSlot('plate', plate(96), 'plates 1', undefined)).toEqual({ ok: true, value: null });
  });

  it('refuses a well not on the plate, a well of a tube and a rack, naming the input', () => {
    expect(qcSlot('plate', plate(96), 'plates 1', 'I1')).toEqual({
      ok: false,
      problems: [{ code: 'not_a_coordinate', input: ['well_location'], detail: 'plates 1 has no well "I1" (a 96-well plate: A1 to H12)' }],
    });
    expect(qcSlot('tube', tube(), 'tubes 2', 'A1')).toMatchObject({ ok: false, problems: [{ code: 'not_a_plate', input: ['well_location'] }] });
    expect(qcSlot('rack', { receptacles: [] }, 'tube_racks 3', undefined)).toMatchObject({
      ok: false,
      problems: [{ code: 'holds_no_qc_results', input: ['labware'] }],
    });
  });
});

describe('addQcResults', () => {
  it('numbers results after every result the labware held, on their slots, leaving its input alone', () => {
    const before = plate(96);
    const once = addQcResults(before, 'plates 1', [
      { slot: 2, result: reading('1') },
      { slot: null, result: reading('2') },
    ]);
    if (!once.ok) throw new Error('refused');
    const twice = addQcResults(once.value, 'plates 1', [{ slot: 2, result: reading('3') }]);
    if (!twice.ok) throw new Error('refused');
    expect(twice.value.receptacles[1]!.qc_results!.map((r) => [r.n, r.value])).toEqual([
      [1, '1'],
      [3, '3'],
    ]);
    expect(twice.value.qc_results!.map((r) => r.n)).toEqual([2]);
    expect(twice.value.qcResultCount).toBe(3);
    expect(before).toEqual(plate(96));
  });

  it(`${MAX_QC_RESULTS_PER_ASSAY} readings (four in each well of a 384-well plate) fit one plate's record, with room to spare`, () => {
    const added = Array.from({ length: MAX_QC_RESULTS_PER_ASSAY }, (_, i) => ({ slot: (i % 384) + 1, result: reading(`${i}.123`) }));
    const after = addQcResults(plate(384), 'plates 1', added);
    if (!after.ok) throw new Error('refused');
    const bytes = Buffer.byteLength(JSON.stringify(after.value));
    expect(bytes).toBeLessThan(0.85 * ITEM_SIZE_LIMIT);
  });

  it('refuses results that would take the record past ITEM_SIZE_LIMIT, naming the labware, the bytes and the budget', () => {
    const long = 'x'.repeat(255);
    const heavy: QcResultContent = { ...reading(long), key: long, units: long, cv: long, assay_type: long, assay_version: long };
    const after = addQcResults(
      plate(96),
      'plates 1',
      Array.from({ length: 300 }, (_, i) => ({ slot: (i % 96) + 1, result: heavy })),
    );
    expect(after).toMatchObject({ ok: false, problems: [{ code: 'over_budget', input: ['labware'] }] });
    if (after.ok) return;
    expect(after.problems[0]!.detail).toMatch(
      /^plates 1 would be \d+ bytes with 300 more QC results \(300 in all\); a labware record may be at most 380000 bytes$/,
    );
  });
});

describe('QC assay items', () => {
  it('a 96-well upload is 5 items; results in 96 tubes fill one transaction; the most results an assay takes, each in its own labware, are within the bound of one request', () => {
    expect(transactionItems(qcAssayItems(1))).toBe(5);
    expect(transactionItems(qcAssayItems(96))).toBe(TRANSACTION_ITEM_LIMIT);
    expect(writtenItems(qcAssayItems(MAX_QC_RESULTS_PER_ASSAY))).toBeLessThanOrEqual(LARGE_WRITE_ITEM_LIMIT);
  });
});
