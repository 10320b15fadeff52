import { CapacityError, THROTTLED_RETRY_AFTER_SECONDS } from '#lib/store/errors.ts';
import { type ItemKey, readAfterImages, readTxRecords, type TxOp, type TxState } from '#lib/store/tx-items.ts';

/**
 * What readers see of the items a write larger than one transaction has staged (lib/store/large-write.ts).
 * Such an item carries the write's id (`tx`) and what the write does to it (`txOp`) until the write is
 * applied or undone; whether the write counts is its transaction record's state.
 */

/** An item as read, with the marker a large write may have left on it. */
export type Marked<T> = T & { tx?: string; txOp?: TxOp };
/** The marker's attributes: every read of records or index entries asks for them. */
export const MARKER_ATTRIBUTES = ['tx', 'txOp'] as const;

/**
 * The rule: an item as a reader sees it, given the state of the large write that marked it (undefined when
 * it carries no marker) and, for a changed item of a committed write, its after-image. Until the write
 * commits (pending, or aborted and not yet undone) an item it creates does not exist and an item it changes
 * or deletes is as it was; once committed, the created item exists, the changed one is its after-image and
 * the deleted one is gone. Null: the reader sees no item.
 */
export function visibleItem<T extends object>(item: Marked<T>, state: TxState | undefined, afterImage?: T): T | null {
  const { tx, txOp, ...content } = item;
  if (tx === undefined) return item;
  const committed = state === 'committed';
  if (txOp === 'put') return committed ? (content as T) : null;
  if (txOp === 'delete') return committed ? null : (content as T);
  if (!committed) return content as T;
  if (!afterImage) throw new Error(`the after-image of an item changed by large write ${tx} is missing`);
  return afterImage;
}

/**
 * Times a read is repeated while the writes it meets commit or finish under it. Each repetition follows a
 * write learnt to have committed or finished since the read began, so it ends as fast as writes commit.
 */
const MAX_READS = 8;

/**
 * Runs a read (one or more DynamoDB calls) and resolves the marked items it returns: the items visible,
 * markers removed, in the read's order. Items without a marker cost nothing more: no marker, no extra call.
 *
 * The read is consistent with each large write as one write, provided `read` reads its items after it is
 * called: every item a write stages is marked before the write commits, so an item read unmarked is not
 * the write's yet (the write is not committed) or is already applied (it is). The state read after the
 * items therefore decides them all — unless the write committed in between, which the state cannot tell
 * from before: a write found committed that was not known committed when the read began is read again,
 * and a write whose record is gone (applied or undone, all its marks removed) likewise.
 *
 * `afterImageKey` says where the after-image of a changed item is (records only: index entries are
 * created or deleted, never changed); `project` picks a reader's attributes out of it.
 */
export async function readResolved<T extends object>(
  read: () => Promise<Marked<T>[]>,
  options: { afterImageOf?: (item: T) => ItemKey; project?: (image: Record<string, unknown>) => T } = {},
): Promise<T[]> {
  // States known before the read under way began; only final ones carry over (a pending write may commit).
  const known = new Map<string, TxState>();
  for (let reads = 1; ; reads++) {
    for (const [tx, state] of known) if (state === 'pending') known.delete(tx);
    const items = await read();
    const marked = items.filter((item) => item.tx !== undefined);
    if (marked.length === 0) return items;
    const decided = await decide(marked, known, options);
    if (decided)
      return items.map((item) => visibleItem(item, item.tx === undefined ? undefined : known.get(item.tx), decided.get(item))).filter((item) => item !== null);
    if (reads === MAX_READS) throw new CapacityError(`a read met large writes committing under it ${MAX_READS} times`, THROTTLED_RETRY_AFTER_SECONDS);
  }
}

/**
 * Reads the states of the writes met that are not known yet (and the after-images a committed one's
 * changes need): their after-images by item, or undefined when the read must be repeated.
 */
async function decide<T extends object>(
  marked: Marked<T>[],
  known: Map<string, TxState>,
  options: { afterImageOf?: (item: T) => ItemKey; project?: (image: Record<string, unknown>) => T },
): Promise<Map<Marked<T>, T> | undefined> {
  const unknown = [...new Set(marked.map((item) => item.tx!))].filter((tx) => !known.has(tx));
  let again = false;
  if (unknown.length > 0) {
    const records = await readTxRecords(unknown);
    for (const tx of unknown) {
      const state = records.get(tx)?.state;
      // Gone: finished, every mark removed. Committed since the read began: its unmarked items may predate it.
      if (state === undefined || state === 'committed') again = true;
      if (state !== undefined) known.set(tx, state);
    }
  }
  if (again) return undefined;
  const images = new Map<Marked<T>, T>();
  const changed = marked.filter((item) => item.txOp === 'update' && known.get(item.tx!) === 'committed');
  for (const tx of new Set(changed.map((item) => item.tx!))) {
    const mine = changed.filter((item) => item.tx === tx);
    const found = await readAfterImages(
      tx,
      mine.map((item) => options.afterImageOf!(item)),
    );
    for (const item of mine) {
      const key = options.afterImageOf!(item);
      const image = found.get(`${key.pk} ${key.sk}`);
      // Gone: applied since the read (the after-image is deleted with the change), so read the item again.
      if (!image) return undefined;
      images.set(item, options.project ? options.project(image) : (image as T));
    }
  }
  return images;
}
