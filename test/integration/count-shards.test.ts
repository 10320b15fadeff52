import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { countUpdate, readCounts, SHARDS } from '#lib/store/counts.ts';
import { call, doc } from '../support/api.ts';
import { createSample, recordCount, uniqueName } from '../support/fixtures.ts';
import { consumedBy } from '../support/consumed-capacity.ts';
import { freshStore } from '../support/store.ts';

/**
 * On AWS, two transactions that ADD to the same count shard at the same moment cancel one of them with
 * `TransactionConflict`. DynamoDB Local serialises transactions and never does, so this is injected here —
 * the only thing mocked: a test double cancels chosen TransactWriteItems calls as DynamoDB would.
 */
const INJECT = 'testCancelTransactions';
let plan: ((items: { Update?: { Key: Record<string, string> } }[]) => string[] | undefined)[] = [];
const sent: number[] = [];

beforeAll(async () => {
  await freshStore();
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      const items = (args.input as { TransactItems: { Update?: { Key: Record<string, string> } }[] }).TransactItems;
      sent.push(items.length);
      const codes = plan.shift()?.(items);
      if (codes)
        throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });
      return next(args);
    },
    { step: 'initialize', name: INJECT },
  );
});

afterEach(() => {
  plan = [];
  sent.length = 0;
});

const isCountShard = (item: { Update?: { Key: Record<string, string> } }) => String(item.Update?.Key.pk ?? '').startsWith('$lts#counts_');

describe('count shards under contention', () => {
  it('a conflict on count shards only is re-sent on other shards, without reading again; the count stays exact', async () => {
    const before = await recordCount('samples');
    plan = [(items) => items.map((item) => (isCountShard(item) ? 'TransactionConflict' : 'None'))];
    const res = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('Shard') }) });
    expect(res.status).toBe(201);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe(sent[1]);
    expect(await recordCount('samples')).toBe(before + 1);
  });

  it('a conflict on a record is answered by running the request again from fresh reads (then 201, counted once)', async () => {
    const sample = await createSample();
    const before = await recordCount('samples');
    sent.length = 0;
    plan = [(items) => items.map((_, i) => (i === 0 ? 'TransactionConflict' : 'None'))];
    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { site_sample_id: 'after-conflict' }, undefined, sample.id) });
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(2);
    expect((await call('GET', `/api/v2/samples/${sample.id}`)).body.data.attributes.site_sample_id).toBe('after-conflict');
    expect(await recordCount('samples')).toBe(before);
  });

  it('a record that keeps conflicting is a 409 concurrent_update once its window has passed, nothing written', async () => {
    const sample = await createSample();
    // The engine retries a conflict for three quarters of the request's budget (not a count of attempts):
    // a budget of its own bounds the test, and every attempt within it conflicts.
    const runBudget = process.env.LTS_REQUEST_BUDGET_MS;
    process.env.LTS_REQUEST_BUDGET_MS = '8000';
    resetConfig();
    const conflict = (items: { Update?: { Key: Record<string, string> } }[]) => items.map((_, i) => (i === 0 ? 'TransactionConflict' : 'None'));
    plan = Array.from({ length: 10_000 }, () => conflict);
    const res = await call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { site_sample_id: 'never' }, undefined, sample.id) }).finally(() => {
      process.env.LTS_REQUEST_BUDGET_MS = runBudget;
      resetConfig();
    });
    expect(sent.length).toBeGreaterThan(2);
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('concurrent_update');
    expect((await call('GET', `/api/v2/samples/${sample.id}`)).body.data.attributes.site_sample_id).toBeNull();
  });
});

describe('reading a counter', () => {
  it('sums every shard with one strongly consistent Query of their partition: one read unit for up to 4 KB of shards, where a key apiece cost 16', async () => {
    const counter = `reading-${uniqueName('c')}`;
    // Every shard holds counts (a write picks its shard at random, so the test fills each one itself).
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: Array.from({ length: SHARDS }, (_, shard) =>
          countUpdate(
            counter,
            new Map([
              ['plates', shard + 1],
              ['plates|purpose#3', 2],
            ]),
            shard,
          ),
        ),
      }),
    );
    const calls: string[] = [];
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        calls.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countReadCalls' },
    );
    const { result, consumed } = await consumedBy(() => readCounts(counter)).finally(() => dynamo().middlewareStack.remove('countReadCalls'));
    expect(Object.fromEntries(result)).toEqual({ plates: (SHARDS * (SHARDS + 1)) / 2, 'plates|purpose#3': 2 * SHARDS });
    expect(calls).toEqual(['QueryCommand']);
    expect(consumed.read).toBe(1);
  });
});
