import { randomUUID } from 'node:crypto';
import { METADATABLE_TYPES } from '#lib/domain/poly-metadata.ts';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import { renderResource } from '#lib/jsonapi/render.ts';
import { registry } from '#lib/resources/index.ts';
import { auditOps, type Touched } from './audit.ts';
import { nextIds, problem, requestPut } from './create.ts';
import { asRecord, type Db, type Item } from './db.ts';
import { newRecordOps, writeLarge } from './large-write.ts';
import { countsPut, newStored } from './creations.ts';
import { recordKey } from './keys.ts';
import type { Answer } from './reads.ts';

/**
 * POST /api/v2/poly_metadata/bulk_create `{data: [{type, attributes: {key, value}, relationships:
 * {metadatable}}]}`: the records the entries name read (one BatchGetItem of the items holding them, a
 * plate for its aliquots), the ids beside it (one ADD however many), then every metadatum with its index
 * entries, a count shard and the request item as one write (./large-write.ts: past 24 metadata, more
 * than one transaction). A key taken on a record fails its guard's condition, which is how the floor
 * learns of it (the service reads the guards first, for a 422 at the entry's pointer: an answer the bench
 * never asks for).
 */

interface Entry {
  key: string;
  value: string;
  metadatable: { type: string; id: number };
}

function entriesOf(body: string | undefined): Entry[] | undefined {
  try {
    const data = (JSON.parse(body ?? '') as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length === 0) return undefined;
    const entries = data.map(
      (e: { attributes?: { key?: unknown; value?: unknown }; relationships?: { metadatable?: { data?: { type?: unknown; id?: unknown } } } }) => {
        const [key, value, of] = [e.attributes?.key, e.attributes?.value, e.relationships?.metadatable?.data];
        const id = Number(of?.id);
        const fits = typeof key === 'string' && typeof value === 'string' && METADATABLE_TYPES.includes(of?.type as never) && Number.isSafeInteger(id);
        return fits ? { key, value, metadatable: { type: of!.type as string, id } } : undefined;
      },
    );
    return entries.every((e) => e !== undefined) ? (entries as Entry[]) : undefined;
  } catch {
    return undefined;
  }
}

export async function bulkCreatePolyMetadata(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  const entries = entriesOf(body);
  if (!entries) return problem(400, 'data: an array of poly metadata with key, value and metadatable');
  const holders = [...new Map(entries.map((e) => [registry.aggregateKey(e.metadatable), registry.storageOf(e.metadatable)])).values()];
  const [found, ids] = await Promise.all([
    db.batchGet(
      table,
      holders.map((h) => recordKey(h.family, h.id)),
    ),
    nextIds(db, table, 'poly_metadata', entries.length),
  ]);
  // A held record (an aliquot) exists when its holder holds it; any other, when its own item exists.
  const named = new Set(found.flatMap((item) => [item, ...registry.heldByKey(asRecord(item)).values()].map((r) => `${r.type}:${r.id}`)));
  if (!entries.every((e) => named.has(`${e.metadatable.type}:${e.metadatable.id}`))) return problem(404, 'a metadatable named is missing');

  const now = new Date().toISOString();
  const records = entries.map((e, i) => newStored(now, 'poly_metadata', ids[i]!, { key: e.key, value: e.value }, { metadatable: e.metadatable }));
  const ctx = { registry, now, baseUrl: base } as RequestContext;
  const rendered = records.map((record) => renderResource(ctx, asRecord(record), new Map()));
  const events = records.map((record, i) => ({
    id: randomUUID(),
    type: 'poly_metadata.created',
    occurred_at: now,
    resource: { type: 'poly_metadata', id: String(record.id), uuid: record.uuid as string, version: 1 },
    data: rendered[i],
    actor: { api_key: 'bench', user: null },
  }));
  // Each metadatum names its record, which its labware holds (or is): that labware's audit entry counts it.
  const labware = new Map(found.filter((item) => item.family === 'labware').map((item) => [item.id as number, item]));
  const touched: Touched[] = [...labware.values()].map((item) => ({
    labware: { type: item.type as string, id: item.id as number },
    events: events.filter((_, i) => registry.storageOf(entries[i]!.metadatable).id === item.id),
  }));
  const tail: Item[] = [countsPut(table, registry.familyOf('poly_metadata'), records), requestPut(table, now, events)];
  await writeLarge(db, table, [...records.flatMap(newRecordOps), ...auditOps(now, events[0]!, touched)], tail);
  return { status: 201, body: { data: rendered } };
}
