import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { readPayload } from '#lib/store/payload-items.ts';
import { call, type CallResult } from './api.ts';

/** A domain event as the outbox stores it. */
export interface Envelope {
  id: string;
  type: string;
  occurred_at: string;
  resource: { type: string; id: string; uuid: string | null; version: number };
  data: any;
  actor: unknown;
}

/** The outbox item of one committed write: its key and the events it wrote. */
export interface RequestItem {
  key: string;
  events: Envelope[];
}

/** Every item of the test file's table (the one freshStore made), or only one ElectroDB entity's; a Scan is fine in a test. */
export async function scanTable(entity?: string): Promise<Record<string, any>[]> {
  return scanWhere(
    entity
      ? { FilterExpression: '#entity = :entity', ExpressionAttributeNames: { '#entity': '__edb_e__' }, ExpressionAttributeValues: { ':entity': entity } }
      : {},
  );
}

/** Every item of the test file's table that a Scan filter keeps. */
export async function scanWhere(filter: {
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({ TableName: config().LTS_TABLE_NAME, ConsistentRead: true, ...filter, ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** JSON with object keys sorted, so two scans of the same items compare equal whatever the attribute order. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The whole table as sorted, comparable strings: equal snapshots mean nothing was written in between. Id
 * sequences are left out: a refused write may have reserved an id, which is then skipped (contract §1.3).
 */
export const tableSnapshot = async (): Promise<string[]> =>
  (await scanTable())
    .filter((item) => !String(item.pk).startsWith('$lts#sequence_'))
    .map(stable)
    .sort();

/** Sends a write that must be refused (status ≥ 400) and checks it wrote nothing at all (no record, count, index entry or event). */
export async function refused(method: string, path: string, body: unknown, headers?: Record<string, string>): Promise<CallResult> {
  const before = await tableSnapshot();
  const res = await call(method, path, { body, ...(headers ? { headers } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
  expect(await tableSnapshot()).toEqual(before);
  return res;
}

/**
 * The outbox: one request item (`__edb_e__ = 'request'`) per committed write, stored in the write's own
 * transaction, its events decoded whichever way they are stored (lib/store/request-payload.ts).
 */
export const requestItems = async (): Promise<RequestItem[]> =>
  Promise.all((await scanTable('request')).map(async (item) => ({ key: item.key, events: (await readPayload(item as { key: string })).events as Envelope[] })));

/** Every event in the outbox. */
export const outboxEvents = async (): Promise<Envelope[]> => (await requestItems()).flatMap((item) => item.events);
