import { AsyncLocalStorage } from 'node:async_hooks';
import { CapacityError, THROTTLED_RETRY_AFTER_SECONDS } from '#lib/store/errors.ts';
import { AFTER_IMAGE_ATTRIBUTE, type ItemKey, readAfterImages, readTxRecords, type TxOp, type TxState } from '#lib/store/tx-items.ts';

/**
 * What readers see of the items a write larger than one transaction has staged (lib/store/large-write.ts).
 * Such an item carries the write's id (`tx`) and what the write does to it (`txOp`) until the write is
 * applied or undone; whether the write counts is its transaction record's state.
 */

/** An item as read, with the marker a large write may have left on it (and a changed record's after-image, if it carries it). */
export type Marked<T> = T & { tx?: string; txOp?: TxOp; [AFTER_IMAGE_ATTRIBUTE]?: Record<string, unknown> };
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
  const { tx, txOp, [AFTER_IMAGE_ATTRIBUTE]: _image, ...content } = item;
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

/** Reads that answer one request together (stableReads): the writes they learnt committed, and whether any was learnt during this pass. */
interface ReadScope {
  committed: Set<string>;
  learnt: boolean;
}

const readScope = new AsyncLocalStorage<ReadScope>();

/**
 * Runs the reads that make one answer (an index read and the records it names, their includes) so that
 * each large write is in it whole or not at all: if any read learnt of a write that committed or finished
 * while the reads were under way — an index read before it may have listed only part of it — they all run
 * again, knowing it committed. No write met, no second pass. `read` must read afresh each time (a new loader).
 */
export async function stableReads<T>(read: () => Promise<T>): Promise<T> {
  const scope: ReadScope = { committed: new Set(), learnt: false };
  for (let pass = 1; ; pass++) {
    scope.learnt = false;
    const result = await readScope.run(scope, read);
    if (!scope.learnt) return result;
    if (pass === MAX_READS) throw new CapacityError(`reads met large writes committing under them ${MAX_READS} times`, THROTTLED_RETRY_AFTER_SECONDS);
  }
}

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
 * A changed record's after-image is in its item (`txImage`: a reader of records asks for it) or, for a large
 * record, beside it: `afterImageOf` says where (records only: index entries are created or deleted, never
 * changed); `project` picks a reader's attributes out of it.
 */
export async function readResolved<T extends object>(
  read: () => Promise<Marked<T>[]>,
  options: { afterImageOf?: (item: T) => ItemKey; project?: (image: Record<string, unknown>) => T } = {},
): Promise<T[]> {
  const scope = readScope.getStore();
  const committed = new Set(scope?.committed);
  for (let reads = 1; ; reads++) {
    // What is known before this read begins: the writes known committed (final); aborted ones are final too.
    const known = new Map<string, TxState>([...committed].map((tx) => [tx, 'committed']));
    const items = await read();
    const marked = items.filter((item) => item.tx !== undefined);
    if (marked.length === 0) return items;
    const decided = await decide(marked, known, options);
    if (decided instanceof Map) {
      return items.map((item) => visibleItem(item, item.tx === undefined ? undefined : known.get(item.tx), decided.get(item))).filter((item) => item !== null);
    }
    if (decided === 'learnt') {
      // A write committed or finished under the read: every read of the same answer may hold part of it.
      for (const [tx, state] of known) if (state === 'committed') committed.add(tx);
      if (scope) {
        scope.learnt = true;
        for (const tx of committed) scope.committed.add(tx);
      }
    }
    if (reads === MAX_READS) throw new CapacityError(`a read met large writes committing under it ${MAX_READS} times`, THROTTLED_RETRY_AFTER_SECONDS);
  }
}

/**
 * Reads the states of the writes met that are not known yet (and the after-images a committed one's
 * changes need): their after-images by item; or why the read must be repeated — a write learnt to have
 * committed or finished under it, or an item applied under it (its after-image gone).
 */
async function decide<T extends object>(
  marked: Marked<T>[],
  known: Map<string, TxState>,
  options: { afterImageOf?: (item: T) => ItemKey; project?: (image: Record<string, unknown>) => T },
): Promise<Map<Marked<T>, T> | 'learnt' | 'applied'> {
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
  if (again) return 'learnt';
  const images = new Map<Marked<T>, T>();
  const project = (image: Record<string, unknown>) => (options.project ? options.project(image) : (image as T));
  const changed = marked.filter((item) => item.txOp === 'update' && known.get(item.tx!) === 'committed');
  // An after-image the item carries was read with it; the others are read from beside their items.
  for (const item of changed) if (item[AFTER_IMAGE_ATTRIBUTE]) images.set(item, project(item[AFTER_IMAGE_ATTRIBUTE]));
  const beside = changed.filter((item) => !item[AFTER_IMAGE_ATTRIBUTE]);
  for (const tx of new Set(beside.map((item) => item.tx!))) {
    const mine = beside.filter((item) => item.tx === tx);
    const found = await readAfterImages(
      tx,
      mine.map((item) => options.afterImageOf!(item)),
    );
    for (const item of mine) {
      const key = options.afterImageOf!(item);
      const image = found.get(`${key.pk} ${key.sk}`);
      // Gone: applied since the read (the after-image is deleted with the change), so read the item again.
      if (!image) return 'applied';
      images.set(item, project(image));
    }
  }
  return images;
}
