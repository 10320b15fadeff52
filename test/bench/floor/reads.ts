import { layoutForSize, positionAt } from '#lib/domain/geometry.ts';
import { aliquotId, slotId, slotUuid } from '#lib/domain/labware-ids.ts';
import type { Labware } from '#lib/domain/labware.ts';
import { readCount } from './count.ts';
import type { Db, Item } from './db.ts';
import { recordIndexKeys, recordKey, typeListingPk } from './keys.ts';
import { linkage, metadataResource, resource, sampleResource, type Linkage } from './render.ts';

/** What a floor handler answers: a status and a JSON document (or nothing). */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const notFound = (type: string, id: string): Answer => ({
  status: 404,
  body: { errors: [{ status: '404', title: 'Not found', detail: `${type} ${id} not found` }] },
});

/** GET /api/v2/samples/{id}: one consistent GetItem of the record item. */
export async function getSample(db: Db, table: string, base: string, id: number): Promise<Answer> {
  const item = await db.get(table, recordKey('samples', id), true);
  if (!item) return notFound('samples', String(id));
  const self = `${base}/api/v2/samples/${id}`;
  return { status: 200, body: { data: sampleResource(base, item), links: { self } } };
}

/** Where a page of the samples listing starts: page 1, or after the id a `next` link's cursor names. */
export interface SamplesPage {
  number: number;
  size: number;
  afterId?: number;
}

/**
 * GET /api/v2/samples?page[size]=N, a page by id (the first, or one a `next` link names): one Query of the
 * byType index, one BatchGetItem, the count.
 */
export async function listSamples(db: Db, table: string, base: string, page: SamplesPage): Promise<Answer> {
  const { number, size, afterId } = page;
  const pk = typeListingPk('samples');
  const [hits, count] = await Promise.all([
    db.query({
      TableName: table,
      IndexName: 'byType',
      KeyConditionExpression: afterId === undefined ? 'gsi1pk = :pk' : 'gsi1pk = :pk AND gsi1sk > :after',
      ExpressionAttributeValues: { ':pk': pk, ...(afterId === undefined ? {} : { ':after': recordIndexKeys('samples', afterId, '').gsi1sk }) },
      ProjectionExpression: '#family, #id',
      ExpressionAttributeNames: { '#family': 'family', '#id': 'id' },
      Limit: size,
    }),
    readCount(db, table, 'samples', 'samples'),
  ]);
  const items =
    hits.length > 0
      ? await db.batchGet(
          table,
          hits.map((h) => recordKey(h.family as string, h.id as number)),
        )
      : [];
  items.sort((a, b) => (a.id as number) - (b.id as number));
  const link = (n: number, cursor = '') => `${base}/api/v2/samples?page%5Bnumber%5D=${n}&page%5Bsize%5D=${size}${cursor}`;
  const last = Math.max(1, Math.ceil(count / size));
  // The service's next link carries a cursor (the next page, sort by id, after the last id of this page).
  const after = items.at(-1)?.id;
  const cursor = `&page%5Bcursor%5D=${Buffer.from(JSON.stringify({ p: number + 1, s: 'id', a: { id: after } })).toString('base64url')}`;
  return {
    status: 200,
    body: {
      data: items.map((item) => sampleResource(base, item)),
      links: {
        first: link(1),
        ...(number > 1 ? { prev: link(Math.min(number - 1, last)) } : {}),
        ...(number < last ? { next: link(number + 1, cursor) } : {}),
        last: link(last),
      },
      meta: { record_count: count },
    },
  };
}

/**
 * GET /api/v2/plates/{id}?include=wells.aliquots.sample.sample_metadata: GetItem of the plate (its wells
 * and aliquots are inside it), BatchGetItem of the samples, then of their metadata records.
 */
export async function getPlate(db: Db, table: string, base: string, id: number, withSamples: boolean): Promise<Answer> {
  const plate = await db.get(table, recordKey('labware', id), true);
  if (plate?.type !== 'plates') return notFound('plates', String(id));
  const attrs = plate.attrs as unknown as Labware & { size: number };
  const layout = layoutForSize(attrs.size);
  const wellRefs: Linkage[] = attrs.receptacles.map((_, i) => ({ type: 'wells', id: String(slotId(id, i + 1)) }));
  const { human_barcode, machine_barcode, ean13_barcode } = attrs.barcode;
  const data = resource(
    base,
    'plates',
    id,
    {
      uuid: plate.uuid,
      name: attrs.name,
      labware_barcode: { ean13_barcode, machine_barcode, human_barcode },
      state: attrs.state,
      created_at: plate.createdAt,
      updated_at: plate.updatedAt,
      size: attrs.size,
      number_of_rows: layout?.rows ?? null,
      number_of_columns: layout?.columns ?? null,
      retention_instruction: null,
    },
    withSamples ? { wells: wellRefs } : {},
  );
  const self = `${base}/api/v2/plates/${id}`;
  if (!withSamples) return { status: 200, body: { data, links: { self } } };

  const included: unknown[] = [];
  const sampleIds = new Set<number>();
  attrs.receptacles.forEach(({ state, aliquots, volume }, i) => {
    const wellId = slotId(id, i + 1);
    included.push(
      resource(
        base,
        'wells',
        wellId,
        { uuid: slotUuid(plate.uuid as string, i + 1), position: layout ? { name: positionAt(layout, i) } : undefined, state, current_volume: volume ?? null },
        { aliquots: aliquots.map((a) => ({ type: 'aliquots', id: String(aliquotId(id, a.n)) })) },
      ),
    );
    for (const a of aliquots) {
      sampleIds.add(a.sample);
      included.push(
        resource(
          base,
          'aliquots',
          aliquotId(id, a.n),
          {
            tag_oligo: a.tag?.oligo ?? null,
            tag_index: a.tag?.index ?? null,
            tag2_oligo: a.tag2?.oligo ?? null,
            tag2_index: a.tag2?.index ?? null,
            library_type: a.library_type,
            insert_size_to: a.insert_size_to ?? null,
          },
          { sample: { type: 'samples', id: String(a.sample) } },
        ),
      );
    }
  });
  const samples = await db.batchGet(
    table,
    [...sampleIds].map((s) => recordKey('samples', s)),
  );
  const metadataIds = new Set<number>();
  for (const sample of samples) {
    const ref = (sample.rels as Record<string, { type: string; id: number } | null>).sample_metadata;
    if (ref) metadataIds.add(ref.id);
    included.push(sampleResource(base, sample, { sample_metadata: linkage(ref) }));
  }
  const metadata: Item[] =
    metadataIds.size > 0
      ? await db.batchGet(
          table,
          [...metadataIds].map((m) => recordKey('sample_metadata', m)),
        )
      : [];
  for (const item of metadata) included.push(metadataResource(base, item));
  return { status: 200, body: { data, included, links: { self } } };
}
