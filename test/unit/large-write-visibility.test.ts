import { describe, expect, it } from 'vitest';
import type { TxOp, TxState } from '#lib/store/tx-items.ts';
import { visibleItem } from '#lib/store/visibility.ts';

/**
 * The read-resolution rule of writes past one transaction (lib/store/visibility.ts): what a reader sees of
 * an item, given the mark a large write left on it and that write's state.
 */

const before = { id: 7, name: 'before' };
const after = { id: 7, name: 'after' };
const marked = (op: TxOp) => ({ ...before, tx: 'tx-1', txOp: op });

describe('visibleItem', () => {
  it('shows an unmarked item as it is, whatever state is passed', () => {
    for (const state of [undefined, 'pending', 'committed', 'aborted'] as const) expect(visibleItem(before, state)).toBe(before);
  });

  it.each([
    // [what the write does, its state, what the reader sees]
    ['put', 'pending', null],
    ['put', 'aborted', null],
    ['put', 'committed', before],
    ['update', 'pending', before],
    ['update', 'aborted', before],
    ['update', 'committed', after],
    ['delete', 'pending', before],
    ['delete', 'aborted', before],
    ['delete', 'committed', null],
  ] as [TxOp, TxState, object | null][])('an item a write %s-s, the write %s: %j', (op, state, seen) => {
    expect(visibleItem(marked(op), state, after)).toEqual(seen);
  });

  it('never shows the mark itself', () => {
    for (const op of ['put', 'update', 'delete'] as const) {
      for (const state of ['pending', 'committed', 'aborted'] as const) {
        const seen = visibleItem(marked(op), state, after);
        if (seen) expect(Object.keys(seen).sort()).toEqual(['id', 'name']);
      }
    }
  });

  it('refuses to guess a committed change whose after-image is missing', () => {
    expect(() => visibleItem(marked('update'), 'committed')).toThrow(/after-image/);
  });
});
