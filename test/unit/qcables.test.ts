import { describe, expect, it } from 'vitest';
import { QCABLE_STATES } from '#lib/domain/machines.ts';
import { LARGE_WRITE_ITEM_LIMIT, MAX_QCABLES_PER_CREATOR, qcableCreatorItems, writtenItems } from '#lib/domain/budgets.ts';
import { initialQcableState, lotTemplateType, printerTypeOf, qcablesToMake, qcableStateChange } from '#lib/domain/qcables.ts';

describe('initialQcableState', () => {
  it("is the lot type's state when it names one of the machine's states", () => {
    for (const state of QCABLE_STATES) expect(initialQcableState(state)).toBe(state);
  });

  it('is created when the lot type names none (or something that is no state)', () => {
    for (const configured of [undefined, null, '', 'ready', 'Pending', 3]) expect(initialQcableState(configured)).toBe('created');
  });
});

describe('qcableStateChange', () => {
  it('moves by the one event that leads from the current state to the target', () => {
    expect(qcableStateChange('created', 'pending')).toEqual({ ok: true, event: 'do_stamp', state: 'pending' });
    expect(qcableStateChange('pending', 'qc_in_progress')).toEqual({ ok: true, event: 'qc', state: 'qc_in_progress' });
    expect(qcableStateChange('qc_in_progress', 'passed')).toEqual({ ok: true, event: 'pass', state: 'passed' });
    expect(qcableStateChange('pending', 'available')).toEqual({ ok: true, event: 'release', state: 'available' });
    expect(qcableStateChange('available', 'exhausted')).toEqual({ ok: true, event: 'use', state: 'exhausted' });
  });

  it('refuses a move the machine does not allow, naming the current state, the target and the reachable states', () => {
    expect(qcableStateChange('created', 'passed')).toEqual({
      ok: false,
      detail: 'a qcable cannot move from created to passed; from created it can move to pending',
    });
    expect(qcableStateChange('pending', 'pending')).toEqual({
      ok: false,
      detail: 'a qcable cannot move from pending to pending; from pending it can move to failed, available, destroyed, qc_in_progress',
    });
    expect(qcableStateChange('exhausted', 'available')).toEqual({
      ok: false,
      detail: 'a qcable cannot move from exhausted to available; from exhausted it can move to none',
    });
  });

  it('refuses a target that is no state at all, still naming the reachable states', () => {
    expect(qcableStateChange('available', 'used')).toEqual({
      ok: false,
      detail: 'a qcable has no state used; from available it can move to destroyed, exhausted',
    });
  });

  it('treats a stored state outside the machine as a fault of the service (thrown), not a refusal', () => {
    expect(() => qcableStateChange('ready', 'pending')).toThrow(/unknown state ready/);
  });
});

describe('lot templates (Lot#valid_template?)', () => {
  const tagPlates = { name: 'Tag Plates', templateClass: 'TagLayoutTemplate' };
  it('a lot of the lot type’s served class names a tag layout template', () => {
    expect(lotTemplateType(tagPlates, 'TagLayoutTemplate')).toEqual({ ok: true, value: 'tag_layout_templates' });
  });
  it.each([
    [tagPlates, 'PlateTemplate', 'is not the template class of lot type "Tag Plates": expected TagLayoutTemplate'],
    [{ name: 'QC', templateClass: 'PlateTemplate' }, 'PlateTemplate', 'templates are not served here'],
    [{ name: 'Bare', templateClass: undefined }, 'TagLayoutTemplate', 'expected none'],
  ])('%j with %j is a problem at template_type', (lotType, templateType, detail) => {
    const result = lotTemplateType(lotType, templateType);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems).toEqual([{ code: 'wrong_template', input: ['template_type'], detail: expect.stringContaining(detail) }]);
  });
});

describe('what a qcable creator makes', () => {
  it('count qcables, or one per barcode of a comma-separated string (trimmed) or a list', () => {
    expect(qcablesToMake(3, undefined)).toEqual({ ok: true, value: { count: 3 } });
    expect(qcablesToMake(null, 'A1, B2')).toEqual({
      ok: true,
      value: {
        count: 2,
        barcodes: [
          { barcode: 'A1', input: ['barcodes'] },
          { barcode: 'B2', input: ['barcodes'] },
        ],
      },
    });
    expect(qcablesToMake(undefined, ['A1'])).toEqual({ ok: true, value: { count: 1, barcodes: [{ barcode: 'A1', input: ['barcodes', '0'] }] } });
  });
  it.each([
    [1, 'A', 'count_or_barcodes', ['barcodes']],
    [null, null, 'count_or_barcodes', ['count']],
    [null, 'A,,B', 'blank', ['barcodes']],
    [null, ['A', ' '], 'blank', ['barcodes', '1']],
    [MAX_QCABLES_PER_CREATOR + 1, null, 'over_budget', ['count']],
  ])('count %j with barcodes %j: %s at %j', (count, barcodes, code, input) => {
    const result = qcablesToMake(count, barcodes);
    expect(result.ok ? [] : result.problems.map((p) => [p.code, p.input])).toEqual([[code, input]]);
  });
  it('the bound of one request holds MAX_QCABLES_PER_CREATOR qcables and not one more', () => {
    expect(qcablesToMake(MAX_QCABLES_PER_CREATOR, null).ok).toBe(true);
    expect(writtenItems(qcableCreatorItems(MAX_QCABLES_PER_CREATOR))).toBeLessThanOrEqual(LARGE_WRITE_ITEM_LIMIT);
    expect(writtenItems(qcableCreatorItems(MAX_QCABLES_PER_CREATOR + 1))).toBeGreaterThan(LARGE_WRITE_ITEM_LIMIT);
  });
});

describe('printer types (gatekeeper picks the printer of a lot type’s labels)', () => {
  it.each([
    [{ type: 'plate_purposes', size: 96 }, '96 Well Plate'],
    [{ type: 'plate_purposes', size: 384 }, '384 Well Plate'],
    [{ type: 'tube_purposes' }, '1D Tube'],
  ])('%j prints on %j', (purpose, printer) => expect(printerTypeOf(purpose)).toBe(printer));
});
