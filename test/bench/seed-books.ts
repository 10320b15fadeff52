import { parseHeldUuid, slotId, slotOf, slotUuid } from '#lib/domain/labware-ids.ts';
import type { RequestBook } from '#lib/domain/request-books.ts';
import { registry } from '#lib/resources/index.ts';
import { requestBooks } from '#lib/resources/request-books.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { termValue } from '#lib/store/records.ts';
import { decodeUuid } from '#lib/store/uuids.ts';
import { nextId } from './floor/create.ts';
import { countsPut, newStored } from './floor/creations.ts';
import { Db, documentClient, type Item } from './floor/db.ts';
import { entityMarkers, recordKey, termKey } from './floor/keys.ts';

/**
 * Copies of a request book (the requests one submission made out of one plate, stored together:
 * lib/domain/request-books.ts), straight into the service's table. Through the API each `POST /requests`
 * rewrites its whole book, so a 384-well plate's requests cost ~18 s, and the state change scenario needs
 * a plate of them per request each side sends: ten of the bench's nineteen minutes. So the bench makes one
 * plate's requests through the API — the book then holds whatever the service stores a request as — and
 * copies that book for every other plate. The copy is the service's record with its ids changed: the same
 * requests, each out of the same slot of its plate, of the copy's submission and order; its index entries
 * and counts are what the service's registry gives the record (`termsOf`, `countsOf`).
 */

export interface BookCopy {
  plate: number;
  submission: number;
  order: number;
}

const asRecord = (item: Item): StoredRecord => item as unknown as StoredRecord;

/** A record's index entries as the service's unit of work writes them (lib/store/write-plan.ts, `termOps`). */
export function termItems(record: StoredRecord): Item[] {
  return registry.termsOf(record).map((term) => {
    const value = termValue(term.value);
    const ref = term.ref ?? '-';
    return {
      ...termKey(term.scope, value, ref),
      ...entityMarkers('term'),
      scope: term.scope,
      value,
      ref,
      family: record.family,
      type: record.type,
      id: record.id,
    };
  });
}

/**
 * Copies the book that holds `requestUuid` for another plate, submission and order; answers the copy's
 * requests' uuids by slot (index 0 is slot 1), as `POST /requests` in slot order would have made them.
 */
export type CopyBook = (requestUuid: string, to: BookCopy) => Promise<string[]>;

/** A CopyBook of one table, its reads and writes through one client. */
export function requestBookCopier(endpoint: string, table: string): CopyBook {
  const db = new Db(documentClient(endpoint));
  return (requestUuid, to) => copyBook(db, table, requestUuid, to);
}

async function copyBook(db: Db, table: string, requestUuid: string, to: BookCopy): Promise<string[]> {
  const bookUuid = parseHeldUuid(requestUuid)?.holderUuid;
  const decoded = bookUuid ? decodeUuid(bookUuid) : undefined;
  const family = registry.familyOf(requestBooks.type);
  if (!decoded || registry.familyOfCode(decoded.code) !== family) throw new Error(`${requestUuid} is not the uuid of a booked request`);
  const template = await db.get(table, recordKey(family, decoded.id), true);
  if (!template) throw new Error(`request book ${decoded.id} is missing`);
  const book = template.attrs as RequestBook;
  const requests = book.requests.map((request) => ({
    ...request,
    order: to.order,
    ...(request.asset ? { asset: [request.asset[0], slotId(to.plate, slotOf(request.asset[1]))] as const } : {}),
  }));
  const now = new Date().toISOString();
  const copy = newStored(
    now,
    requestBooks.type,
    await nextId(db, table, family),
    { ...book, submission: to.submission, labware: to.plate, requests },
    template.rels as Item,
  );
  await db.batchPut(table, [copy, ...termItems(asRecord(copy))]);
  await db.update(countsPut(table, registry.counterOf(family), [copy]).Update);
  const uuids: string[] = [];
  requests.forEach((request, n) => {
    if (request.asset) uuids[slotOf(request.asset[1]) - 1] = slotUuid(copy.uuid as string, n + 1);
  });
  return uuids;
}
