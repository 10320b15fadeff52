import { GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { jsonForm } from '#lib/events/stream-image.ts';
import { listShards, localStreamsClient, streamArnOf } from '#lib/local/outbox-stream.ts';

/**
 * Every record of the table's stream in DynamoDB Local so far, shard by shard, as the DynamoDB Streams
 * API gives them (the local publisher's input).
 */
export async function streamRecords(endpoint: string, tableName: string): Promise<_Record[]> {
  const client = localStreamsClient(endpoint);
  try {
    const streamArn = await streamArnOf(endpoint, tableName);
    const records: _Record[] = [];
    for (const shard of await listShards(client, streamArn)) {
      let { ShardIterator: iterator } = await client.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      // An open shard always answers a next iterator: stop at the first empty page.
      while (iterator) {
        const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator }));
        records.push(...(page.Records ?? []));
        iterator = page.Records?.length ? page.NextShardIterator : undefined;
      }
    }
    return records;
  } finally {
    client.destroy();
  }
}

/** A record of the Streams API as it arrives in the Lambda's DynamoDBStreamEvent. */
export const asLambdaRecord = (record: _Record): DynamoDBRecord => jsonForm(record) as DynamoDBRecord;
