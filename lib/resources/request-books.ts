import { bookKey } from '#lib/domain/request-books.ts';
import { defineResource } from '#lib/jsonapi/resource.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { bookAttrs, requestView } from '#lib/operations/request-books.ts';

/**
 * Request books as records (lib/domain/request-books.ts): an internal type, never served, that holds the
 * `requests` (embedded in it, as wells are in their plate). Its index entries are its requests' (the
 * labware their assets are in, their submission: one entry per book and value), and its writes are
 * events of its requests (lib/jsonapi/write.ts). Requests are added to books and changed in them by
 * lib/operations/request-books.ts.
 */

export const requestViews = (book: StoredRecord): StoredRecord[] => bookAttrs(book).requests.map((request, n) => requestView(book, n, request));
/** The request at a slot of a book (its uuid's last digits: slot n + 1 is the book's nth request), if the book has one there. */
export function requestAtSlot(book: StoredRecord, slot: number): StoredRecord | undefined {
  const request = bookAttrs(book).requests[slot - 1];
  return request && requestView(book, slot - 1, request);
}
export const requestCount = (book: StoredRecord): number => bookAttrs(book).requests.length;

export const requestBooks = defineResource({
  type: 'request_books',
  internal: true,
  methods: [],
  attributes: {},
  relationships: {},
  // One book per (submission, labware, page), also under concurrency: two writers opening one page conflict, and the loser starts again and finds it.
  indexes: { page: { values: (r) => [bookKey(bookAttrs(r))], unique: 'retry' } },
  filters: {},
});
