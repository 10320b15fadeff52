import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRequestContext } from '#lib/jsonapi/context.ts';
import { registry } from '#lib/resources/index.ts';
import { countCalls, dynamo } from '#lib/store/client.ts';
import { call, warmKeyCache } from '../support/api.ts';
import { startFloor, type RunningFloor } from '../support/floor-server.ts';
import { presentedPlate } from '../support/lab.ts';
import { PLATE_PRESENTER_INCLUDES, PRESENTER_FIELDS, limberInclude } from '../support/limber.ts';
import { freshStore } from '../support/store.ts';

/**
 * How the include walk reads (lib/jsonapi/include.ts, the loader of lib/jsonapi/context.ts): reads started
 * together share one BatchGetItem, a branch of the include tree goes on as soon as its own records are
 * read, and an index Query two relationships need is made once — so Limber's plate page makes no more
 * DynamoDB calls than the bench's design floor, which plans the same reads by hand (test/bench/floor/plate-page.ts).
 */

let floor: RunningFloor;
let page: string;
let samples: string[];

beforeAll(async () => {
  const store = await freshStore();
  floor = await startFloor(store);
  // A stock plate of 16 samples in two submissions' pools, stamped twice: the grandchild's page, as Limber opens it.
  const { grandchild, samples: held } = await presentedPlate(8);
  samples = [...held.values()];
  page = `/api/v2/plates?filter[uuid]=${grandchild.attributes.uuid}&include=${limberInclude(PLATE_PRESENTER_INCLUDES)}&${PRESENTER_FIELDS}`;
});
afterAll(async () => {
  await floor.close();
});

describe('the include walk reads in shared batches', () => {
  it("Limber's plate page makes no more calls than the design floor, and Queries the plate's children once", async () => {
    await warmKeyCache();
    // The partitions the service Queries, seen on the shared client's middleware stack.
    const queried: string[] = [];
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') queried.push(String(Object.values((args.input as any).ExpressionAttributeValues ?? {})[0]));
        return next(args);
      },
      { step: 'initialize', name: 'include-batching-queries' },
    );
    const res = await call('GET', page).finally(() => dynamo().middlewareStack.remove('include-batching-queries'));
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body.included.filter((r: any) => r.type === 'samples')).toHaveLength(16);
    const viaFloor = await fetch(`${floor.url}${page}`);
    expect(viaFloor.status).toBe(200);
    // `child_plates` and the wells' `downstream_tubes` both need the plate's children: one Query of the parent index.
    expect(queried.filter((pk) => pk.includes('scope_labware.parents#'))).toHaveLength(1);
    expect(res.calls).toBeLessThanOrEqual(Number(viaFloor.headers.get('X-DynamoDB-Calls')));
  });

  it('loads started together are one BatchGetItem; one started after the other has answered is a second', async () => {
    const ctx = newRequestContext(registry, { baseUrl: 'https://lts.test', requestId: 'batching', apiKey: null });
    const [a, b] = samples.map((id) => ({ type: 'samples', id: Number(id) }));
    const together = countCalls(() => Promise.all([ctx.loader.load([a!]), ctx.loader.load([b!])]));
    const [first, second] = await together.result;
    expect(first.get(`samples:${a!.id}`)?.id).toBe(a!.id);
    expect(second.get(`samples:${b!.id}`)?.id).toBe(b!.id);
    expect(together.counts).toEqual({ BatchGetItem: 1 });

    const fresh = newRequestContext(registry, { baseUrl: 'https://lts.test', requestId: 'batching', apiKey: null });
    const apart = countCalls(async () => {
      await fresh.loader.load([a!]);
      await fresh.loader.load([b!]);
    });
    await apart.result;
    expect(apart.counts).toEqual({ BatchGetItem: 2 });
  });
});
