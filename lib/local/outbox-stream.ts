import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { publishRecords, type CheckpointedSink } from '#lib/events/outbox.ts';
import { localClient } from '#lib/local/dynamodb.ts';
import { log } from '#lib/log.ts';

/**
 * The local publisher: follows DynamoDB Local's stream of the table (DescribeStream, GetShardIterator,
 * GetRecords, every ~200 ms) and hands its records to the publisher core, as the stream's Lambda does on
 * AWS. Each sink follows the stream on its own, with its own checkpoint, so a sink that is down holds
 * back no other.
 */

/** The last delivered sequence number of each shard, and the sink's own state at that point. */
interface Checkpoint {
  shards: Record<string, string>;
  sink?: unknown;
}

export interface FollowOptions {
  endpoint: string;
  tableName: string;
  sink: CheckpointedSink;
  /** Names the sink in logs. */
  name: string;
  /** Where the checkpoint is kept; without one it is kept in memory (an in-memory table has nothing to resume). */
  checkpointFile?: string;
  pollMs?: number;
}

export interface Follower {
  /** Resolves once a pass over every shard has found nothing left to deliver. */
  caughtUp(): Promise<void>;
  /** Stops after the pass under way. */
  stop(): Promise<void>;
}

const POLL_MS = 200;
/** After a failed delivery the pause grows to this, so a receiver that is down is not hammered. */
const MAX_PAUSE_MS = 5_000;

function readCheckpoint(file: string | undefined): Checkpoint {
  if (!file || !existsSync(file)) return { shards: {} };
  return JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
}

/** Written whole to a temporary file and renamed over the old one, so a crash never leaves half a checkpoint. */
function writeCheckpoint(file: string | undefined, checkpoint: Checkpoint): void {
  if (!file) return;
  writeFileSync(`${file}.tmp`, JSON.stringify(checkpoint));
  renameSync(`${file}.tmp`, file);
}

/** A DynamoDB Streams client for DynamoDB Local. */
export const localStreamsClient = (endpoint: string): DynamoDBStreamsClient =>
  new DynamoDBStreamsClient({ endpoint, region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

/** The ARN of the table's stream. */
export async function streamArnOf(endpoint: string, tableName: string): Promise<string> {
  const table = localClient(endpoint);
  try {
    const { Table } = await table.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.LatestStreamArn) throw new Error(`table ${tableName} has no stream`);
    return Table.LatestStreamArn;
  } finally {
    table.destroy();
  }
}

/** The stream's shards, from DescribeStream's pages (in the order it lists them). */
export async function listShards(client: DynamoDBStreamsClient, streamArn: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let start: string | undefined;
  do {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
    shards.push(...(StreamDescription?.Shards ?? []));
    start = StreamDescription?.LastEvaluatedShardId;
  } while (start);
  return shards;
}

/** Follows the table's stream into one sink until stopped. */
export async function followOutbox(options: FollowOptions): Promise<Follower> {
  const { endpoint, tableName, sink, name, checkpointFile, pollMs = POLL_MS } = options;
  const streamArn = await streamArnOf(endpoint, tableName);
  const client = localStreamsClient(endpoint);

  const checkpoint = readCheckpoint(checkpointFile);
  // Without a checkpoint file (an in-memory table) nothing was delivered before this run.
  if (checkpointFile) sink.resume?.(checkpoint.sink);
  const iterators = new Map<string, string>();
  /** Closed shards read to their end in this run. */
  const finished = new Set<string>();

  const iteratorOf = async (shardId: string): Promise<string | undefined> => {
    const cached = iterators.get(shardId);
    if (cached) return cached;
    const after = checkpoint.shards[shardId];
    const position = after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' as const };
    const { ShardIterator } = await client.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ...position }));
    return ShardIterator;
  };

  const delivered = (shardId: string) => (record: _Record) => {
    const sequence = record.dynamodb?.SequenceNumber;
    if (sequence) checkpoint.shards[shardId] = sequence;
  };
  /** Saved after each batch (and before a failure is retried): its records' events are delivered. */
  const save = () => {
    checkpoint.sink = sink.settle?.();
    writeCheckpoint(checkpointFile, checkpoint);
  };

  /** One pass over every shard: true when it delivered nothing and nothing failed (caught up). */
  const pass = async (): Promise<boolean> => {
    let quiet = true;
    const shards = await listShards(client, streamArn);
    const listed = new Set(shards.map((shard) => shard.ShardId));
    for (const shard of shards) {
      const shardId = shard.ShardId!;
      const parent = shard.ParentShardId;
      // A child's records follow its parent's: wait until the parent (if still in the stream) is read to its end.
      if (finished.has(shardId) || (parent && listed.has(parent) && !finished.has(parent))) continue;
      const iterator = await iteratorOf(shardId);
      if (!iterator) {
        finished.add(shardId);
        continue;
      }
      const { Records = [], NextShardIterator } = await client.send(new GetRecordsCommand({ ShardIterator: iterator }));
      const { failed } = await publishRecords(Records, sink, delivered(shardId));
      if (Records.length > 0) save();
      if (failed) {
        // Read again from the checkpoint (the failed record) next time.
        iterators.delete(shardId);
        throw failed.error;
      }
      if (Records.length > 0) quiet = false;
      if (NextShardIterator) iterators.set(shardId, NextShardIterator);
      else {
        iterators.delete(shardId);
        finished.add(shardId);
      }
    }
    return quiet;
  };

  let stopping = false;
  let wake: (() => void) | undefined;
  let passes = 0;
  /** Who waits for a quiet pass, with the number of the first pass that counts (one begun after they asked). */
  const waiters: { from: number; resolve: () => void }[] = [];
  const settleWaiters = (pass: number) => {
    for (const waiter of waiters.filter((w) => w.from <= pass)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const loop = (async () => {
    let pause = pollMs;
    while (!stopping) {
      const number = ++passes;
      try {
        if (await pass()) settleWaiters(number);
        pause = pollMs;
      } catch (error) {
        iterators.clear();
        log('warn', 'event delivery failed; trying again from the checkpoint', { sink: name, error: String(error), retryInMs: pause });
        pause = Math.min(MAX_PAUSE_MS, pause * 2);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    client.destroy();
  })();

  return {
    caughtUp: () => new Promise<void>((resolve) => waiters.push({ from: passes + 1, resolve })),
    async stop() {
      stopping = true;
      wake?.();
      await loop;
      settleWaiters(Number.POSITIVE_INFINITY);
    },
  };
}
