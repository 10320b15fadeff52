import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fittingPrefix } from '#lib/jsonapi/include.ts';
import { pageOfSorted, type Page, type Sort } from '#lib/jsonapi/paging.ts';
import type { ListPosition } from '#lib/store/records.ts';

/**
 * The rule that shortens a page (contract §7.2): the longest prefix of its primary records whose costs —
 * what each adds to the reads or the bytes, its includes first needed by it counted with it — fit the
 * bound; and the walk that a shortened page's cursor continues, which must never skip or repeat a record.
 */

describe('fittingPrefix: how many of the first records fit', () => {
  it.each([
    [[], 10, 0],
    [[3, 3, 3], 9, 3],
    [[3, 3, 3], 8, 2],
    [[3, 3, 3], 6, 2],
    [[11, 1, 1], 10, 0],
    [[0, 0, 5], 4, 2],
    [[4, 0, 0, 7], 4, 3],
  ])('costs %j within %i: %i', (costs, budget, kept) => {
    expect(fittingPrefix(costs, budget)).toBe(kept);
  });

  it('is the largest k whose first k costs add up to at most the budget, for any costs', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1_000), { maxLength: 50 }), fc.nat(20_000), (costs, budget) => {
        const kept = fittingPrefix(costs, budget);
        const sum = (k: number) => costs.slice(0, k).reduce((a, b) => a + b, 0);
        expect(sum(kept)).toBeLessThanOrEqual(budget);
        if (kept < costs.length) expect(sum(kept + 1)).toBeGreaterThan(budget);
      }),
    );
  });
});

describe('pageOfSorted: a walk through pages shortened anywhere reaches every record once', () => {
  const sorts: Sort[] = [
    { field: 'id', descending: false },
    { field: 'id', descending: true },
    { field: 'updated_at', descending: false },
    { field: 'updated_at', descending: true },
  ];
  /** Records in the sort's order, several sharing an update time. */
  const sortedRecords = (count: number, sort: Sort): ListPosition[] => {
    const records = Array.from({ length: count }, (_, i) => ({ id: i + 1, updatedAt: `2026-12-0${1 + (i % 3)}T00:00:00.000Z` }));
    const key = (r: ListPosition) => (sort.field === 'updated_at' ? `${r.updatedAt}#${String(r.id).padStart(12, '0')}` : String(r.id).padStart(12, '0'));
    return records.sort((a, b) => (key(a) < key(b) ? -1 : 1) * (sort.descending ? -1 : 1));
  };

  it('pages of any size, each cut after any of its records, continued by the cursor after the last one kept', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom(...sorts),
        fc.array(fc.nat(8), { minLength: 1 }),
        (count, size, sort, cuts) => {
          const sorted = sortedRecords(count, sort);
          const seen: number[] = [];
          let page: Page = { number: 1, size };
          for (let i = 0; ; i++) {
            const { items } = pageOfSorted(sorted, sort, page);
            if (items.length === 0) break;
            // The page keeps its first records (at least one), as a shortened page does, and sends the walk on after the last.
            const kept = items.slice(0, Math.max(1, Math.min(items.length, cuts[i % cuts.length]!)));
            seen.push(...kept.map((r) => r.id));
            const last = kept.at(-1)!;
            page = { number: page.number + 1, size, cursor: { after: { id: last.id, ...(sort.field === 'updated_at' ? { updatedAt: last.updatedAt } : {}) } } };
          }
          expect(seen).toEqual(sorted.map((r) => r.id));
        },
      ),
    );
  });

  it('by page number, as before; after a cursor, the next cursor only when records follow, carrying the walk count', () => {
    const sort = sorts[0]!;
    const sorted = sortedRecords(10, sort);
    expect(pageOfSorted(sorted, sort, { number: 2, size: 4 })).toEqual({ items: sorted.slice(4, 8) });
    expect(pageOfSorted(sorted, sort, { number: 2, size: 4, cursor: { after: { id: 2 }, count: 10 } })).toEqual({
      items: sorted.slice(2, 6),
      next: { after: { id: 6 }, count: 10 },
    });
    expect(pageOfSorted(sorted, sort, { number: 3, size: 4, cursor: { after: { id: 6 } } })).toEqual({ items: sorted.slice(6, 10) });
  });
});
