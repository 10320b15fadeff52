import { PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { plainImage, plainValue, type StreamAttribute } from '#lib/events/stream-image.ts';
import { localClient } from '#lib/local/dynamodb.ts';
import { freshStreamedStore } from '../support/store.ts';
import { asLambdaRecord, streamRecords } from '../support/stream.ts';

/**
 * The stream-image reader fed real records: an item with every attribute form DynamoDB stores, written to
 * a table of DynamoDB Local and read back from its stream as the local publisher reads it (the Streams
 * API through the SDK: binary as bytes, an empty map as `{}`) and as Lambda hands it over (binary as base64).
 */

const bytes = (...values: number[]) => new Uint8Array(values);
/** The item as written, one attribute per form (and the forms nested in maps and lists). */
const ITEM: Record<string, AttributeValue> = {
  pk: { S: 'stream-image' },
  sk: { S: 'every-form' },
  string: { S: 'text' },
  emptyString: { S: '' },
  number: { N: '-12.5' },
  binary: { B: bytes(0, 1, 255) },
  emptyBinary: { B: bytes() },
  yes: { BOOL: true },
  no: { BOOL: false },
  nothing: { NULL: true },
  emptyMap: { M: {} },
  emptyList: { L: [] },
  strings: { SS: ['a', 'b'] },
  numbers: { NS: ['1', '2.5'] },
  binaries: { BS: [bytes(1, 2), bytes(3)] },
  nested: {
    M: {
      map: { M: { empty: { M: {} }, list: { L: [{ M: {} }, { L: [] }] } } },
      list: { L: [{ M: {} }, { NULL: true }, { BOOL: false }, { B: bytes(9) }, { S: '' }, { N: '0' }, { SS: ['z'] }] },
    },
  },
};
/** The same item as plain values: numbers as numbers, binary as bytes, sets as sets. */
const PLAIN = {
  pk: 'stream-image',
  sk: 'every-form',
  string: 'text',
  emptyString: '',
  number: -12.5,
  binary: bytes(0, 1, 255),
  emptyBinary: bytes(),
  yes: true,
  no: false,
  nothing: null,
  emptyMap: {},
  emptyList: [],
  strings: new Set(['a', 'b']),
  numbers: new Set([1, 2.5]),
  binaries: new Set([bytes(1, 2), bytes(3)]),
  nested: { map: { empty: {}, list: [{}, []] }, list: [{}, null, false, bytes(9), '', 0, new Set(['z'])] },
};

/** Buffers and Uint8Arrays of the same bytes compare equal. */
const normalise = (value: unknown): unknown =>
  value instanceof Uint8Array
    ? [...value]
    : value instanceof Set
      ? [...value].map(normalise)
      : Array.isArray(value)
        ? value.map(normalise)
        : value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]))
          : value;

let record: Awaited<ReturnType<typeof streamRecords>>[number];
beforeAll(async () => {
  const { endpoint, tableName } = await freshStreamedStore();
  const client = localClient(endpoint);
  await client.send(new PutItemCommand({ TableName: tableName, Item: ITEM }));
  client.destroy();
  record = (await streamRecords(endpoint, tableName)).find((r) => r.dynamodb?.Keys?.sk?.S === 'every-form')!;
  expect(record).toBeDefined();
});

describe('a stream image', () => {
  it('arrives from DynamoDB Local’s Streams API with an empty map as {} (no M), at any depth', () => {
    const image = record.dynamodb!.NewImage!;
    expect(image.emptyMap).toEqual({});
    expect(image.nested!.M!.map!.M!.empty).toEqual({});
    expect(image.nested!.M!.list!.L![0]).toEqual({});
    expect(image.emptyList).toEqual({ L: [] });
  });

  it('reads every attribute form as the Streams API delivers it', () => {
    expect(normalise(plainImage(record.dynamodb!.NewImage as never))).toEqual(normalise(PLAIN));
  });

  it('reads every attribute form as Lambda delivers it (binary as base64)', () => {
    const image = asLambdaRecord(record).dynamodb!.NewImage!;
    expect(image.binary).toEqual({ B: 'AAH/' });
    expect(normalise(plainImage(image as never))).toEqual(normalise(PLAIN));
  });

  it('reads an empty map as AWS writes it too ({"M": {}})', () => {
    expect(plainValue({ M: {} })).toEqual({});
  });

  it('refuses an attribute of a form DynamoDB does not have, naming it', () => {
    expect(() => plainValue({ X: '1' } as StreamAttribute)).toThrow('unknown attribute value: X');
  });
});
