import { randomInt, randomUUID } from 'node:crypto';
import { packPayload, type EventEnvelope } from '#lib/store/request-payload.ts';
import { GroupCommit } from '#lib/store/group-commit.ts';
import type { Db } from './db.ts';
import { COUNT_SHARDS, countShardKey, entityMarkers, recordIndexKeys, recordKey, requestKey, sequenceKey, termKey } from './keys.ts';
import type { Answer } from './reads.ts';
import { metadataResource, sampleResource } from './render.ts';

export const REQUEST_RETENTION_SECONDS = 7 * 24 * 3600;

interface Waiting {
  db: Db;
  table: string;
  family: string;
  count: number;
}

/**
 * One `ADD` per family at a time serves every reservation that waited for it, as the service's sequences
 * do (lib/store/sequences.ts), so under concurrency both sides send as few; each request counts the call
 * that served it.
 */
const reservations = new GroupCommit<Waiting, number>(async (batch) => {
  const { db, table, family } = batch[0]!;
  const total = batch.reduce((sum, r) => sum + r.count, 0);
  const out = await db.update(
    {
      TableName: table,
      Key: sequenceKey(family),
      UpdateExpression: 'ADD #v :n',
      ExpressionAttributeNames: { '#v': 'value' },
      ExpressionAttributeValues: { ':n': total },
      ReturnValues: 'UPDATED_NEW',
    },
    [...new Set(batch.slice(1).map((r) => r.db))],
  );
  let next = (out!.value as number) - total + 1;
  return batch.map((r) => {
    const first = next;
    next += r.count;
    return first;
  });
});

/** `count` consecutive ids of a family: one atomic `ADD` (never conflicts, never retried), shared as above. */
export async function nextIds(db: Db, table: string, family: string, count: number): Promise<number[]> {
  const first = await reservations.submit(`${table}/${family}`, { db, table, family, count });
  return Array.from({ length: count }, (_, i) => first + i);
}

/** The next id of a family. */
export const nextId = async (db: Db, table: string, family: string): Promise<number> => (await nextIds(db, table, family, 1))[0]!;

/** A new record item as the service stores it: keys, index keys, ElectroDB markers, a fresh uuid. */
export function newRecord(now: string, type: string, id: number, attrs: Record<string, unknown>, rels: Record<string, unknown>) {
  return {
    ...recordKey(type, id),
    ...recordIndexKeys(type, id, now),
    ...entityMarkers('record'),
    family: type,
    id,
    type,
    uuid: randomUUID(),
    createdAt: now,
    updatedAt: now,
    version: 1,
    attrs,
    rels,
  };
}

/** The request (outbox) item of a write, with its events, as a transaction's Put. */
export function requestPut(table: string, now: string, events: unknown[]) {
  const key = `auto:${randomUUID()}`;
  // Stored as the service stores it: inline, or gzipped past the inline budget (lib/store/request-payload.ts).
  const { attributes, chunks } = packPayload({ events: events as EventEnvelope[] });
  if (chunks.length > 0) throw new Error('the floor writes no payload chunks: its events are past the gzipped inline budget');
  return {
    Put: {
      TableName: table,
      Item: {
        ...requestKey(key),
        ...entityMarkers('request'),
        key,
        committedAt: now,
        ...attributes,
        ttl: Math.floor(Date.now() / 1000) + REQUEST_RETENTION_SECONDS,
      },
    },
  };
}

export const problem = (status: number, detail: string): Answer => ({
  status,
  body: { errors: [{ status: String(status), title: 'Invalid request', detail }] },
});

/**
 * POST /api/v2/samples, the minimum DynamoDB work of a conflict-free create: the two ids (sample,
 * metadata) from atomic counters in parallel, then one transaction of the sample record, its unique-name
 * guard, its metadata record, a count shard (plain ADD) and the request (outbox) item with the events.
 * The same items as the service's, with the same attributes and index keys, so DynamoDB does the same work
 * (the bench compares the two sides' transactions by shape: ../write-shapes.ts).
 */
export async function createSample(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  let input: { data?: { type?: string; attributes?: { name?: unknown }; relationships?: { studies?: { data?: { type: string; id: string }[] } } } };
  try {
    input = JSON.parse(body ?? '');
  } catch {
    return problem(400, 'the body is not JSON');
  }
  const name = input.data?.attributes?.name;
  if (input.data?.type !== 'samples' || typeof name !== 'string' || !/^[A-Za-z0-9_-]+$/.test(name)) return problem(422, 'a sample needs a name');
  const studies = (input.data.relationships?.studies?.data ?? []).map((s) => ({ type: 'studies', id: Number(s.id) }));

  const [id, metadataId] = await Promise.all([nextId(db, table, 'samples'), nextId(db, table, 'sample_metadata')]);
  const now = new Date().toISOString();
  const sample = newRecord(now, 'samples', id, { name }, { studies, sample_metadata: { type: 'sample_metadata', id: metadataId } });
  const metadata = newRecord(now, 'sample_metadata', metadataId, {}, { sample: { type: 'samples', id } });
  const event = (item: typeof sample, data: unknown) => ({
    id: randomUUID(),
    type: `${item.type}.created`,
    occurred_at: now,
    resource: { type: item.type, id: String(item.id), uuid: item.uuid },
    data,
    actor: null,
  });
  const rendered = sampleResource(base, sample);
  const scope = 'samples.name';
  const value = name.toLowerCase();

  try {
    await db.transact({
      TransactItems: [
        { Put: { TableName: table, Item: sample } },
        {
          Put: {
            TableName: table,
            Item: { ...termKey(scope, value), ...entityMarkers('term'), scope, value, ref: '-', family: 'samples', type: 'samples', id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Put: { TableName: table, Item: metadata } },
        {
          Update: {
            TableName: table,
            Key: countShardKey('samples', randomInt(COUNT_SHARDS)),
            UpdateExpression: 'ADD #s :one, #m :one',
            ExpressionAttributeNames: { '#s': 'n:samples', '#m': 'n:sample_metadata' },
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
        requestPut(table, now, [event(sample, rendered), event(metadata, metadataResource(base, metadata))]),
      ],
    });
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if (reasons?.[1]?.Code === 'ConditionalCheckFailed') return problem(422, `name ${name} is taken`);
    if (reasons) return problem(409, 'transaction cancelled');
    throw error;
  }
  const self = `${base}/api/v2/samples/${id}`;
  return { status: 201, headers: { Location: self }, body: { data: rendered, links: { self } } };
}
