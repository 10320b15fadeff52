import fc from 'fast-check';
import { expect, test } from 'vitest';
import { sameJson } from '#lib/store/unit-of-work.ts';

// A unit of work skips a change that changes nothing by comparing the states with sameJson: it must agree
// with comparing their serialisations, or a real change would be dropped (or a non-change written).
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, undefined, 0, -0, 1, NaN, '', 'a', true, false),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

test('sameJson(a, b) is JSON.stringify(a) === JSON.stringify(b)', () => {
  fc.assert(
    fc.property(values, values, (a, b) => {
      expect(sameJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      // A value and a copy of it (the same members, the same order) are the same; so are members left undefined and left out.
      expect(sameJson(a, structuredClone(a))).toBe(true);
    }),
    { numRuns: 2000 },
  );
});

test('key order and undefined members count as JSON.stringify counts them', () => {
  expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
  expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  expect(sameJson([undefined], [null])).toBe(true);
  expect(sameJson({ wells: [{ aliquots: [1] }, { aliquots: [] }] }, { wells: [{ aliquots: [1] }, { aliquots: [2] }] })).toBe(false);
  expect(sameJson(new Date(0), new Date(1))).toBe(false);
});
