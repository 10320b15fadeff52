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
import { deadLetterOf } from '#lib/events/dead-letters.ts';
import { publishRecords, type CheckpointedSink, type SetAside } from '#lib/events/outbox.ts';
import type { DeadLetterFile } from '#lib/local/dead-letter-file.ts';
import { localClient } from '#lib/local/dynamodb.ts';
import { shownFailure } from '#lib/local/shown-paths.ts';
import { log } from '#lib/log.ts';

/**
 * The local publisher: follows DynamoDB Local's stream of the table (DescribeStream, GetShardIterator,
 * GetRecords, every ~200 ms) and hands its records to the publisher core, as the stream's Lambda does on
 * AWS. Each sink follows the stream on its own, with its own checkpoint, so a sink that is down holds
 * back no other. What the core sets aside goes to the dead-letter file; any other failure is tried again
 * from the checkpoint, in order, after a pause that grows, with a warning each time (docs/events.md).
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
  /** Where records and events set aside are kept. */
  deadLetters: DeadLetterFile;
  pollMs?: number;
}

/** How a follower is doing, for `GET /health`. */
export interface FollowerHealth {
  /** Dead letters of this sink in the dead-letter file. */
  dead_letters: number;
  /** While deliveries fail (and are tried again): since when, how many times, the last error. */
  retrying?: { since: string; failures: number; error: string };
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

/** Follows the table's stream into one sink until stopped: `OutboxFollower.start`. */
export class OutboxFollower {
  private readonly iterators = new Map<string, string>();
  /** Closed shards read to their end in this run. */
  private readonly finished = new Set<string>();
  private readonly checkpoint: Checkpoint;
  /** Who waits for a quiet pass, with the number of the first pass that counts (one begun after they asked). */
  private readonly waiters: { from: number; resolve: () => void }[] = [];
  private passes = 0;
  private stopping = false;
  private wake: (() => void) | undefined;
  private retrying: FollowerHealth['retrying'];
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly options: FollowOptions,
    private readonly streamArn: string,
    private readonly client: DynamoDBStreamsClient,
  ) {
    this.checkpoint = readCheckpoint(options.checkpointFile);
    // Without a checkpoint file (an in-memory table) nothing was delivered before this run.
    if (options.checkpointFile) options.sink.resume?.(this.checkpoint.sink);
  }

  /** Starts following the stream from the checkpoint (the stream's start when there is none). */
  static async start(options: FollowOptions): Promise<OutboxFollower> {
    const streamArn = await streamArnOf(options.endpoint, options.tableName);
    const follower = new OutboxFollower(options, streamArn, localStreamsClient(options.endpoint));
    follower.loop = follower.run();
    return follower;
  }

  /** Resolves once a pass over every shard has found nothing left to deliver. */
  caughtUp(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push({ from: this.passes + 1, resolve }));
  }

  /** Stops after the pass under way. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.settleWaiters(Number.POSITIVE_INFINITY);
  }

  health(): FollowerHealth {
    return { dead_letters: this.options.deadLetters.count(this.options.name), ...(this.retrying ? { retrying: this.retrying } : {}) };
  }

  /** Passes until stopped: every `pollMs`, and after a failure a pause that doubles up to MAX_PAUSE_MS. */
  private async run(): Promise<void> {
    const { pollMs = POLL_MS, name } = this.options;
    let pause = pollMs;
    while (!this.stopping) {
      const number = ++this.passes;
      try {
        if (await this.pass()) this.settleWaiters(number);
        if (this.retrying) log('info', 'event delivery works again', { sink: name, failingSince: this.retrying.since, failures: this.retrying.failures });
        this.retrying = undefined;
        pause = pollMs;
      } catch (error) {
        this.iterators.clear();
        this.retrying = { since: this.retrying?.since ?? new Date().toISOString(), failures: (this.retrying?.failures ?? 0) + 1, error: shownFailure(error) };
        // The log keeps the error whole (it stays on the machine); /health shows it without absolute paths.
        log('warn', 'event delivery failed; trying again from the checkpoint', { sink: name, retryInMs: pause, ...this.retrying, error: String(error) });
        pause = Math.min(MAX_PAUSE_MS, pause * 2);
      }
      await this.sleep(pause);
    }
    this.client.destroy();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One pass over every shard: true when it delivered nothing and nothing failed (caught up). */
  private async pass(): Promise<boolean> {
    let quiet = true;
    const shards = await listShards(this.client, this.streamArn);
    const listed = new Set(shards.map((shard) => shard.ShardId));
    for (const shard of shards) {
      const parent = shard.ParentShardId;
      // A child's records follow its parent's: wait until the parent (if still in the stream) is read to its end.
      if (this.finished.has(shard.ShardId!) || (parent && listed.has(parent) && !this.finished.has(parent))) continue;
      if (await this.readShard(shard.ShardId!)) quiet = false;
    }
    return quiet;
  }

  /** One page of a shard's records to the sink, checkpointed: true when there were records; throws when one failed. */
  private async readShard(shardId: string): Promise<boolean> {
    const iterator = await this.iteratorOf(shardId);
    if (!iterator) {
      this.finished.add(shardId);
      return false;
    }
    const { Records = [], NextShardIterator } = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator }));
    const { failed } = await publishRecords(Records, this.options.sink, {
      setAside: (letter: SetAside<_Record>) => this.options.deadLetters.append(deadLetterOf(this.options.name, letter)),
      delivered: (record) => this.delivered(shardId, record),
    });
    if (Records.length > 0) this.save();
    if (failed) {
      // Read again from the checkpoint (the failed record) next time.
      this.iterators.delete(shardId);
      throw failed.error;
    }
    if (NextShardIterator) this.iterators.set(shardId, NextShardIterator);
    else {
      this.iterators.delete(shardId);
      this.finished.add(shardId);
    }
    return Records.length > 0;
  }

  private async iteratorOf(shardId: string): Promise<string | undefined> {
    const cached = this.iterators.get(shardId);
    if (cached) return cached;
    const after = this.checkpoint.shards[shardId];
    const position = after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' as const };
    const { ShardIterator } = await this.client.send(new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ...position }));
    return ShardIterator;
  }

  private delivered(shardId: string, record: _Record): void {
    const sequence = record.dynamodb?.SequenceNumber;
    if (sequence) this.checkpoint.shards[shardId] = sequence;
  }

  /** Saved after each page (and before a failure is tried again): its records' events are delivered or set aside. */
  private save(): void {
    this.checkpoint.sink = this.options.sink.settle?.();
    writeCheckpoint(this.options.checkpointFile, this.checkpoint);
  }

  private settleWaiters(pass: number): void {
    for (const waiter of this.waiters.filter((w) => w.from <= pass)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}
