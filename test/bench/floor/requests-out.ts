import type { OpenRequest } from '#lib/domain/material-moves.ts';
import { registry } from '#lib/resources/index.ts';
import { openRequestOf } from '#lib/domain/material-moves.ts';
import type { Ref } from '#lib/store/records.ts';
import { asRecord, termsUnder, type Db } from './db.ts';
import { recordKey } from './keys.ts';

/**
 * The open requests with a submission out of a plate's wells, by well id, in id order: the books its
 * `requests.asset` entries name (one Query) and, when there are any, the books (one BatchGetItem), as the
 * service finds them for a copy's pool and outer request (lib/operations/material-moves.ts). A stamp and a transfer
 * request collection look them up; the floor's answer, like the service's, depends on what they find.
 */
export async function openRequestsOut(db: Db, table: string, plate: number): Promise<Map<number, OpenRequest[]>> {
  const out = new Map<number, OpenRequest[]>();
  const books = await termsUnder(db, table, 'requests.asset', registry.aggregateKey({ type: 'plates', id: plate }));
  if (books.length === 0) return out;
  for (const book of await db.batchGet(
    table,
    books.map((ref) => recordKey(registry.familyOf(ref.type), ref.id)),
  ))
    for (const request of registry.recordsOfType(asRecord(book), 'requests')) {
      const submission = (request.rels.submission as Ref | null)?.id ?? null;
      const [asset, open] = [request.rels.asset as Ref | null, openRequestOf({ id: request.id, state: request.attrs.state, submission })];
      if (asset && open) out.set(asset.id, [...(out.get(asset.id) ?? []), open]);
    }
  for (const requests of out.values()) requests.sort((a, b) => a.id - b.id);
  return out;
}
