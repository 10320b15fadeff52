import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { parseHeldUuid } from '#lib/domain/labware-ids.ts';
import { dynamo } from '#lib/store/client.ts';
import { decodeUuid } from '#lib/store/uuids.ts';
import { requestBookCopier } from '../bench/seed-books.ts';
import { call, doc, idOf } from '../support/api.ts';
import { createPlate, recordCount, rel, submissionWithOrder } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * The bench's request books (test/bench/seed-books.ts): a book copied for another plate, submission and
 * order holds what `POST /requests` would have stored there, and every read finds its requests as it
 * finds those made through the API. The bench seeds its state change plates this way, so a copy that
 * differed would measure something the service never stores.
 */

const WELLS = 3;
let store: { tableName: string; endpoint: string };
let requestType: string;
beforeAll(async () => {
  store = await freshStore();
  requestType = await idOf('request_types', 'key', 'library_creation');
});

/** A plate, and a submission with one order of Study A for it, as the bench makes them. */
async function plateWithSubmission() {
  const plate = await createPlate();
  return { plate, ...(await submissionWithOrder()) };
}

/** A request out of each of the first wells, through the API, in slot order; their uuids. */
async function requestsThroughApi(made: Awaited<ReturnType<typeof plateWithSubmission>>): Promise<string[]> {
  const wells = (await call('GET', `/api/v2/plates/${made.plate.id}/wells?page[size]=${WELLS}`)).body.data;
  const uuids: string[] = [];
  for (const well of wells) {
    const res = await call('POST', '/api/v2/requests', {
      body: doc(
        'requests',
        {},
        {
          asset: rel('wells', well.id),
          request_type: rel('request_types', requestType),
          submission: rel('submissions', made.submission.id),
          order: rel('orders', made.order.id),
        },
      ),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    uuids.push(res.body.data.attributes.uuid);
  }
  return uuids;
}

/** The stored book item holding a request, its ids, times and version taken out, and its requests' ids. */
async function bookWithoutIds(requestUuid: string) {
  const { id } = decodeUuid(parseHeldUuid(requestUuid)!.holderUuid)!;
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: store.tableName,
      Key: { pk: `$lts#family_request_books#id_${String(id).padStart(12, '0')}`, sk: '$record_1' },
      ConsistentRead: true,
    }),
  );
  const { pk, gsi1sk, gsi2sk, id: _id, uuid, createdAt, updatedAt, version, attrs, ...rest } = Item!;
  const requests = attrs.requests.map(({ asset, order, created, updated, ...request }: any) => ({ ...request, asset: [asset[0], asset[1] % 1000] }));
  return { ...rest, attrs: { ...attrs, submission: undefined, labware: undefined, requests } };
}

/** What the API renders of a request, as a reader sees it, and the ids its relationships name. */
async function readBack(uuid: string) {
  const res = await call('GET', `/api/v2/requests?filter[uuid]=${uuid}&include=asset,submission,order,request_type`);
  expect(res.body.data, uuid).toHaveLength(1);
  const [request] = res.body.data;
  const related = Object.fromEntries((res.body.included as any[]).map((r) => [r.type === 'wells' ? 'asset' : r.type.replace(/s$/, ''), r.id]));
  return { attributes: request.attributes, related };
}

describe('a copied request book', () => {
  it('holds what POST /requests stores, and reads back by uuid, by well, by submission and in the counts', async () => {
    const [template, reference, target] = [await plateWithSubmission(), await plateWithSubmission(), await plateWithSubmission()];
    const templateUuids = await requestsThroughApi(template);
    const referenceUuids = await requestsThroughApi(reference);
    const before = await recordCount('requests');

    const copied = await requestBookCopier(store.endpoint, store.tableName)(templateUuids[0]!, {
      plate: Number(target.plate.id),
      submission: Number(target.submission.id),
      order: Number(target.order.id),
    });

    expect(copied).toHaveLength(WELLS);
    expect(await recordCount('requests')).toBe(before + WELLS);
    // The stored book: the API-made one's, but for ids, times and its version (one write, not three).
    expect(await bookWithoutIds(copied[0]!)).toEqual(await bookWithoutIds(referenceUuids[0]!));
    const wells = (await call('GET', `/api/v2/plates/${target.plate.id}/wells?page[size]=${WELLS}`)).body.data;
    for (const [slot, uuid] of copied.entries()) {
      const copy = await readBack(uuid);
      const made = await readBack(referenceUuids[slot]!);
      expect({ ...copy.attributes, uuid: undefined, created_at: undefined, updated_at: undefined }).toEqual({
        ...made.attributes,
        uuid: undefined,
        created_at: undefined,
        updated_at: undefined,
      });
      expect(copy.related).toEqual({ asset: wells[slot].id, submission: target.submission.id, order: target.order.id, request_type: requestType });
      // The well finds it (the index entry under its plate), as it finds those made through the API.
      const out = (await call('GET', `/api/v2/wells/${wells[slot].id}/requests_as_source`)).body.data;
      expect(out.map((r: any) => r.attributes.uuid)).toEqual([uuid]);
    }
    const bySubmission = (await call('GET', `/api/v2/submissions/${target.submission.id}/requests`)).body.data;
    expect(bySubmission.map((r: any) => r.attributes.uuid).sort()).toEqual([...copied].sort());
  });
});
