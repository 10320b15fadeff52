import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { capacityOf, countCalls, dynamo } from '#lib/store/client.ts';
import { call, warmKeyCache } from '../support/api.ts';
import { createSample } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * X-DynamoDB-Capacity reports the capacity units a request's DynamoDB calls consumed, as DynamoDB (here
 * DynamoDB Local) reported them: reads and writes apart, indexes included. The bench reads it on every
 * side (test/bench/). Asking for ConsumedCapacity must not change what any caller gets back.
 */

let tableName: string;
let sampleId: string;

/** The header's two numbers. */
const capacity = (headers: Record<string, string | undefined>) => {
  const match = /^read=([\d.]+), write=([\d.]+)$/.exec(headers['X-DynamoDB-Capacity'] ?? '');
  expect(match, `X-DynamoDB-Capacity: ${headers['X-DynamoDB-Capacity']}`).not.toBeNull();
  return { read: Number(match![1]), write: Number(match![2]) };
};

beforeAll(async () => {
  ({ tableName } = await freshStore());
  sampleId = (await createSample({}, {})).id;
});

describe('X-DynamoDB-Capacity', () => {
  it('GET /samples/{id}: one strongly consistent GetItem of an item under 4 KB is one read unit, and no write', async () => {
    await warmKeyCache();
    const res = await call('GET', `/api/v2/samples/${sampleId}`);
    expect(res.status).toBe(200);
    expect(res.calls).toBe(1);
    expect(capacity(res.headers)).toEqual({ read: 1, write: 0 });
    // Browser clients (the docs page, traction-ui) may read it across origins, as X-DynamoDB-Calls.
    expect(res.headers['Access-Control-Expose-Headers']?.split(', ')).toContain('X-DynamoDB-Capacity');
  });

  it('a page of samples: its reads, more than one unit; a missing record answers 404 with what it read', async () => {
    await warmKeyCache();
    const page = await call('GET', '/api/v2/samples?page%5Bsize%5D=10');
    expect(page.status).toBe(200);
    expect(capacity(page.headers).read).toBeGreaterThan(1);
    expect(capacity(page.headers).write).toBe(0);
    const missing = await call('GET', '/api/v2/samples/999999999');
    expect(missing.status).toBe(404);
    expect(capacity(missing.headers).write).toBe(0);
  });

  it('POST /samples: write units for its transaction (transactional, so twice an item) and its id reservations', async () => {
    await warmKeyCache();
    const res = await call('POST', '/api/v2/samples', { body: { data: { type: 'samples', attributes: { name: 'capacity-sample' } } } });
    expect(res.status).toBe(201);
    const { write } = capacity(res.headers);
    // At least the sample, its metadata record, its name guard, a count shard and the request item, 2 units each.
    expect(write).toBeGreaterThanOrEqual(10);
  });

  it('a call asks for its capacity, counts it, and hands back the output without it', async () => {
    const key = { pk: `$lts#family_samples#id_${sampleId.padStart(12, '0')}`, sk: '$record_1' };
    const plain = await dynamo().send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    const { counts, result } = countCalls(() =>
      Promise.all([
        dynamo().send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true })),
        dynamo().send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': key.pk } })),
      ]),
    );
    const [counted, queried] = await result;
    expect(counted.Item).toEqual(plain.Item);
    expect(counted).not.toHaveProperty('ConsumedCapacity');
    expect(queried).not.toHaveProperty('ConsumedCapacity');
    // The GetItem's 1 (strongly consistent), the Query's 0.5 (eventually consistent, one small item).
    expect(capacityOf(counts)).toEqual({ read: 1.5, write: 0 });
  });
});
