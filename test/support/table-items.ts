import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** A table item as DynamoDB's API has it (attribute values typed: `{ S: … }`, `{ M: … }`, `{ B: … }`). */
export type TableItem = Record<string, AttributeValue>;

/** What vitest hands its workers must be JSON, so binary values (a compressed outbox payload) travel in base64. */
const BINARY = '$binary';

export const itemsToJson = (items: TableItem[]): string =>
  JSON.stringify(items, (_key, value: unknown) => (value instanceof Uint8Array ? { [BINARY]: Buffer.from(value).toString('base64') } : value));

export const itemsFromJson = (json: string): TableItem[] =>
  JSON.parse(json, (_key, value: unknown) =>
    value && typeof value === 'object' && BINARY in value && Object.keys(value).length === 1
      ? new Uint8Array(Buffer.from(String((value as Record<string, unknown>)[BINARY]), 'base64'))
      : value,
  );
