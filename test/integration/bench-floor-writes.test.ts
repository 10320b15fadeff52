import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/store/client.ts';
import { call, doc, warmKeyCache } from '../support/api.ts';
import { addAliquot, createPlate, createSample, rel, submissionWithOrder } from '../support/fixtures.ts';
import { startFloor, type RunningFloor } from '../support/floor-server.ts';
import { freshStore } from '../support/store.ts';

/**
 * The bench's floor (test/bench/floor/) is a floor only if it writes what the service writes for the same
 * request. The bench checks the kinds of items each side's transaction holds (test/bench/write-shapes.ts);
 * this checks what a stamp writes into the destination, out of a plate whose first well has a request out
 * of it: each copy carries its pool and outer request along, which the service finds by looking the
 * requests up (lib/operations/material-moves.ts). A floor that skipped the lookup wrote copies without them, and
 * was cheaper by a Query for it.
 */

let table: string;
let floorUrl: string;
let floor: RunningFloor;
beforeAll(async () => {
  const store = await freshStore();
  table = store.tableName;
  floor = await startFloor(store);
  floorUrl = floor.url;
});
afterAll(() => floor.close());

const uuidOf = async (path: string): Promise<string> => (await call('GET', path)).body.data[0].attributes.uuid;

/** A plate's stored attributes, as a stamp leaves them. */
async function contents(plateId: string) {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table, Key: { pk: `$lts#family_labware#id_${plateId.padStart(12, '0')}`, sk: '$record_1' }, ConsistentRead: true }),
  );
  return Item!.attrs;
}

/** A 96-well plate with a sample in A1 and B1, and a request of a submission out of A1. */
async function sourceWithRequest() {
  const plate = await createPlate();
  const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=2`)).body.data;
  for (const well of wells) await addAliquot({ type: 'wells', id: well.id }, (await createSample()).id);
  const { submission, order, requestType } = await submissionWithOrder();
  const request = await call('POST', '/api/v2/requests', {
    body: doc(
      'requests',
      {},
      {
        asset: rel('wells', wells[0].id),
        request_type: rel('request_types', requestType),
        submission: rel('submissions', submission.id),
        order: rel('orders', order.id),
      },
    ),
  });
  expect(request.status, JSON.stringify(request.body)).toBe(201);
  return { plate, submission: Number(submission.id), request: Number(request.body.data.id) };
}

describe("the bench floor's stamp", () => {
  it('writes the destination the service writes, each copy with its pool and outer request, in as many DynamoDB calls', async () => {
    const source = await sourceWithRequest();
    const [intoService, intoFloor] = [await createPlate(), await createPlate()];
    const attributes = {
      transfer_template_uuid: await uuidOf('/api/v2/transfer_templates?filter[name]=Transfer%20columns%201-12'),
      source_uuid: source.plate.attributes.uuid,
      user_uuid: await uuidOf('/api/v2/users?page[size]=1'),
    };
    await warmKeyCache();
    const service = await call('POST', '/api/v2/transfers', {
      body: doc('transfers', { ...attributes, destination_uuid: intoService.attributes.uuid }),
    });
    expect(service.status, JSON.stringify(service.body)).toBe(201);
    const floor = await fetch(`${floorUrl}/api/v2/transfers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.api+json' },
      body: JSON.stringify(doc('transfers', { ...attributes, destination_uuid: intoFloor.attributes.uuid })),
    });
    expect(floor.status, await floor.clone().text()).toBe(201);

    const [written, floorWritten] = [await contents(intoService.id), await contents(intoFloor.id)];
    // The two destinations differ by their own names and barcodes, and by the transfer's id.
    const own = ({ name, barcode, transfersAsDestination, ...rest }: Record<string, unknown>) => ({
      ...rest,
      transfers: (transfersAsDestination as unknown[]).length,
    });
    // The lookup mattered: A1's copy is bound for the request's submission, on the request out of A1.
    expect(written.receptacles[0].transfers).toEqual([expect.objectContaining({ submission: source.submission, outerRequest: source.request })]);
    expect(written.receptacles[1].transfers[0]).not.toHaveProperty('outerRequest');
    expect(own(floorWritten)).toEqual(own(written));
    expect(Number(floor.headers.get('X-DynamoDB-Calls'))).toBe(service.calls);
  });
});
