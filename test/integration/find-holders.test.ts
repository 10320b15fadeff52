import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, expect, it } from 'vitest';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { store } from '#lib/store/entities.ts';
import { findHolders, termValue } from '#lib/store/records.ts';
import { MARKER_ATTRIBUTES } from '#lib/store/visibility.ts';
import { termPut } from '#lib/store/write-items.ts';
import { freshStore } from '../support/store.ts';

// findHolders reads unique index entries by key with lib-dynamodb (lib/store/records.ts), not through
// ElectroDB: it must find exactly what ElectroDB's batch get of the `term` entity finds for the same values.

const SCOPE = 'find_holders.key';
/** A value past the keyed length is stored by its hash (termValue); one with characters JSON escapes. */
const held = ['plain', 'with "quotes" and \\ and é', 'x'.repeat(1_500), 'DN1234567K'];
const missing = ['nobody', 'y'.repeat(1_500)];

beforeAll(async () => {
  await freshStore();
  const items = held.map((value, i) => termPut({ scope: SCOPE, value: termValue(value), ref: '-', family: 'labware', type: 'tubes', id: i + 1 }, true).Item);
  // Another scope's entry under the same value, and a listed (non-unique) entry of the scope: neither holds it.
  items.push(termPut({ scope: 'other.key', value: 'plain', ref: '-', family: 'samples', type: 'samples', id: 99 }, true).Item);
  items.push(termPut({ scope: SCOPE, value: 'plain', ref: '000000000007#labware', family: 'labware', type: 'plates', id: 7 }, false).Item);
  await dynamo().send(new BatchWriteCommand({ RequestItems: { [config().LTS_TABLE_NAME]: items.map((Item) => ({ PutRequest: { Item } })) } }));
});

it('finds the holders ElectroDB finds, by the values asked, and nothing for values nobody holds', async () => {
  const asked = [...held, ...missing];
  const found = await findHolders(SCOPE, asked);
  const { data } = await store()
    .entities.term.get(asked.map((value) => ({ scope: SCOPE, value: termValue(value), ref: '-' })))
    .go({ consistent: true, attributes: ['value', 'ref', 'family', 'type', 'id', ...MARKER_ATTRIBUTES] });
  const byElectro = new Map(data.map(({ value, ...hit }) => [asked.find((a) => termValue(a) === value)!, hit]));
  expect(byElectro.size).toBe(held.length);
  expect(found).toEqual(byElectro);
  expect(found.get('x'.repeat(1_500))).toEqual({ ref: '-', family: 'labware', type: 'tubes', id: 3 });
});

it('reads past one BatchGetItem (100 keys) as ElectroDB does', async () => {
  const many = [...Array.from({ length: 150 }, (_, i) => `absent ${i}`), ...held];
  const found = await findHolders(SCOPE, many);
  expect([...found.keys()].sort()).toEqual([...held].sort());
});
