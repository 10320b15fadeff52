/**
 * The physical floor: the least DynamoDB work a read can do for its answer whatever the layout — one round
 * trip reading the items the answer is built from and nothing else.
 *
 * The design floor (./server.ts) reads today's layout as the service's design reads it: index Queries for
 * keys, then strongly consistent BatchGetItems of every record, level by level. The physical floor answers
 * the same requests from a layout of its own: for each request it serves, a **read partition** holding a copy
 * of every item the design floor read for that answer (records, count shards, index entries: what its
 * Queries returned), written beside the service's items when the bench seeds (`recordReads`), under keys of
 * its own (`$phys#…`) and with its copies nested in an attribute, so no index of the service sees them. A
 * request is then one Query of each of its partition's shards (≤ 1 MB each, all at once): one round trip,
 * the bytes of its items in 4 KB units counted once per Query rather than once per item, and eventually
 * consistent for listings (whose membership already is, on the service's indexes) while reads by id or
 * uuid stay strongly consistent (the service's guarantee: readable right after its 201).
 *
 * The answer is the design floor's own code run over those items in memory (`ReplayDb`): the same
 * document, rendered the same way. So the physical floor's CPU is the design floor's, less the DynamoDB
 * calls it no longer makes and plus reading one partition. What it ignores on purpose: what keeping such
 * partitions costs the writes (every write would fan out to the answers holding its records) and how many
 * answers there are; it is a bound to measure layouts against, not a layout to build
 * (docs/decisions.md, "The physical floor").
 */
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { HttpClient, Reply } from '../http-client.ts';
import type { Send, Side } from '../measure.ts';
import type { ServerProcess } from '../processes.ts';
import { Db, type Item } from './db.ts';
import type { Key } from './keys.ts';
import type { Answer } from './reads.ts';
import { floorServer, route, type FloorOptions, type FloorRequest } from './server.ts';

/** What one answer is built from: the items the design floor read, by key, and each Query's result, by the Query. */
interface Reads {
  items: Map<string, Item>;
  queries: Map<string, Item[]>;
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const itemKey = (item: Item) => `${(item as unknown as Key).pk}\n${(item as unknown as Key).sk}`;
/** A Query is known by its whole input: the design floor builds the same input for the same request. */
const queryKey = (input: QueryCommandInput) => sha1(JSON.stringify(input));

/** The design floor's reads, made on DynamoDB and kept. */
class RecordingDb extends Db {
  readonly reads: Reads = { items: new Map(), queries: new Map() };

  override async get(table: string, key: Key, consistent: boolean): Promise<Item | undefined> {
    const item = await super.get(table, key, consistent);
    if (item) this.reads.items.set(itemKey(item), item);
    return item;
  }

  override async batchGet(table: string, keys: Key[]): Promise<Item[]> {
    const items = await super.batchGet(table, keys);
    for (const item of items) this.reads.items.set(itemKey(item), item);
    return items;
  }

  override async query(input: QueryCommandInput): Promise<Item[]> {
    const items = await super.query(input);
    this.reads.queries.set(queryKey(input), items);
    return items;
  }
}

/** The design floor's reads answered from a read partition's items, in memory: no DynamoDB call. */
class ReplayDb extends Db {
  constructor(
    doc: DynamoDBDocumentClient,
    private readonly reads: Reads,
  ) {
    super(doc);
  }

  override async get(_table: string, key: Key): Promise<Item | undefined> {
    return this.reads.items.get(`${key.pk}\n${key.sk}`);
  }

  override async batchGet(_table: string, keys: Key[]): Promise<Item[]> {
    return keys.flatMap((key): Item[] => {
      const item = this.reads.items.get(`${key.pk}\n${key.sk}`);
      return item ? [item] : [];
    });
  }

  override async query(input: QueryCommandInput): Promise<Item[]> {
    const items = this.reads.queries.get(queryKey(input));
    if (!items) throw new Error(`the physical floor holds no result of the Query ${JSON.stringify(input)}: not a request it recorded`);
    return items;
  }
}

/** How one request's read partition is laid out: its shards, and whether it is read strongly consistent. */
interface ReadPartition {
  shards: number;
  consistent: boolean;
}

/** The partition of every request's layout: which requests the physical floor answers, read once per process. */
const MANIFEST_KEY: Key = { pk: '$phys#manifest', sk: '$phys#manifest' };

const shardPk = (request: string, shard: number) => `$phys#read_${sha1(request)}#shard_${shard}`;

/**
 * A shard's bytes, at most (as JSON text, which a DynamoDB item's size stays under): one Query returns at
 * most 1 MB, so a partition of up to this much is one call; a larger answer is several shards read at once.
 */
const SHARD_JSON_BYTES = 900_000;

/**
 * Reads by id or uuid are strongly consistent on the physical floor too (a record is readable right after
 * its 201); listings are eventually consistent, as their membership already is on the service's indexes.
 */
const consistentFor = (url: string) => /^\/api\/v2\/[a-z_]+\/\d+(\?|$)/.test(url) || url.includes('filter%5Buuid%5D') || url.includes('filter[uuid]');

/** The items a request's read partition holds: each read item, nested (no index of the service sees it), and each Query's result. */
function partitionItems(reads: Reads): Item[] {
  return [
    ...[...reads.items].map(([key, item]) => ({ sk: `i#${key}`, item })),
    ...[...reads.queries].map(([key, items]) => ({ sk: `q#${key}`, query: key, items })),
  ];
}

/** Shards of at most SHARD_JSON_BYTES, each item to the least filled (so the parallel Queries are of a size). */
function shard(items: Item[]): Item[][] {
  const sized = items.map((item) => ({ item, bytes: JSON.stringify(item).length })).sort((a, b) => b.bytes - a.bytes);
  const total = sized.reduce((sum, s) => sum + s.bytes, 0);
  const shards = Array.from({ length: Math.max(1, Math.ceil(total / SHARD_JSON_BYTES)) }, () => ({ items: [] as Item[], bytes: 0 }));
  for (const { item, bytes } of sized) {
    const least = shards.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    least.items.push(item);
    least.bytes += bytes;
  }
  return shards.map((s) => s.items);
}

/**
 * Records what the design floor reads for each request that `send` makes (a read scenario's, walks
 * included, through a side that answers in this process), writes each request's read partition, then the
 * manifest naming them all. Returns the requests recorded.
 */
export async function recordReads(doc: DynamoDBDocumentClient, table: string, sends: readonly Send[]): Promise<string[]> {
  const options: FloorOptions = { doc, table };
  const seeding = new Db(doc);
  const manifest: Record<string, ReadPartition> = {};
  const base = 'http://physical.floor';
  const client = {
    async send(method: string, path: string): Promise<Reply> {
      const url = `/api/v2${path}`;
      const recording = new RecordingDb(doc);
      const answer = await route(recording, options, { method, url, body: async () => undefined }, base);
      if (answer.status !== 200) throw new Error(`the design floor answered ${answer.status} to ${method} ${url}: nothing to record`);
      const shards = shard(partitionItems(recording.reads));
      await seeding.batchPut(
        table,
        shards.flatMap((items, n) => items.map((item) => ({ pk: shardPk(url, n), ...item }))),
      );
      manifest[url] = { shards: shards.length, consistent: consistentFor(url) };
      return { status: 200, ms: 0, calls: recording.calls, text: JSON.stringify(answer.body) };
    },
  };
  // The scenarios' sends need a side: this one answers in this process (its links under `base`).
  const side = { role: 'physical', server: { url: base } as ServerProcess, client: client as unknown as HttpClient } as Side;
  for (const send of sends) await send(side, 0);
  await seeding.batchPut(table, [{ ...MANIFEST_KEY, reads: manifest }]);
  return Object.keys(manifest);
}

/** The physical floor's answer: the request's read partition, every shard at once, and the design floor's code over it. */
async function physicalAnswer(db: Db, options: FloorOptions, manifest: Record<string, ReadPartition>, req: FloorRequest, base: string): Promise<Answer> {
  const url = req.url ?? '';
  const partition = req.method === 'GET' ? manifest[url] : undefined;
  if (!partition)
    return { status: 404, body: { errors: [{ status: '404', title: 'Not recorded', detail: `the physical floor has no read partition for ${url}` }] } };
  const shards = await Promise.all(
    Array.from({ length: partition.shards }, (_, n) =>
      db.queryAll({
        TableName: options.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': shardPk(url, n) },
        ConsistentRead: partition.consistent,
      }),
    ),
  );
  const reads: Reads = { items: new Map(), queries: new Map() };
  for (const held of shards.flat()) {
    if (held.item) reads.items.set(itemKey(held.item as Item), held.item as Item);
    else reads.queries.set(held.query as string, held.items as Item[]);
  }
  return route(new ReplayDb(options.doc, reads), options, req, base);
}

/**
 * The physical floor's server. The manifest (which requests it answers, their partitions' shards) is read
 * once, at its first request, as a deployed reader knows its layout: no request pays for it.
 */
export function createPhysicalFloorServer(options: FloorOptions): Server {
  let manifest: Promise<Record<string, ReadPartition>> | undefined;
  const layout = () =>
    (manifest ??= new Db(options.doc).get(options.table, MANIFEST_KEY, true).then((item) => (item?.reads ?? {}) as Record<string, ReadPartition>));
  return floorServer(options.doc, async (db, req, base) => physicalAnswer(db, options, await layout(), req, base));
}
