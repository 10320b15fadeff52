import { afterEach, describe, expect, it, vi } from 'vitest';
import { slotId } from '#lib/domain/labware-ids.ts';
import { addMissingIndexes, localClient } from '#lib/local/dynamodb.ts';
import { useDynamo } from '#lib/local/service.ts';
import { dynamo } from '#lib/store/client.ts';
import { RECORD_INDEX_RETRY_MS } from '#lib/store/records.ts';
import { tableDefinition } from '#lib/store/table.ts';
import { call } from '../support/api.ts';
import { consumedBy, type Consumed } from '../support/consumed-capacity.ts';
import { addAliquot, createPlate, createSample, createTube } from '../support/fixtures.ts';
import { seedSamples } from '../support/seed.ts';
import { freshStore, freshStoreWithIndexes } from '../support/store.ts';

/**
 * Pages by id read whole records from the projected index (`byTypeRecord`, lib/store/table.ts): docs/decisions.md,
 * "Listing pages read from a projected index".
 *
 * - A table made before the index (today's layout) answers every listing by keys and records, as before; once
 *   DynamoDB has added the index (UpdateTable, as CloudFormation does on a deployed table) the same listings
 *   answer the same from it. While AWS backfills a new index it refuses Queries on it; DynamoDB Local answers
 *   them at once (its IndexStatus is CREATING, then ACTIVE, and every Query answers), so that refusal is the
 *   one thing injected here, shaped as AWS sends it.
 * - The capacity DynamoDB Local reports (`ReturnConsumedCapacity`) for a page, a walk and the lab writes, on a
 *   table of each layout with the same records: printed for docs/measurements.md, and held to the decision's
 *   bounds (a page's read units a fraction of today's, no write above 1.5× today's).
 */

const TODAY = tableDefinition.indexes.filter((index) => index.projected !== 'all');
const RECORD_INDEX = tableDefinition.indexes.find((index) => index.projected === 'all')!.name;

/** Every page of a listing, walked by links.next: what a client sees of it. */
async function walk(path: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  let next: string | undefined = `/api/v2${path}`;
  while (next) {
    const res = await call('GET', next);
    expect(res.status, `${next}: ${JSON.stringify(res.body?.errors)}`).toBe(200);
    pages.push({ data: res.body.data, meta: res.body.meta, links: res.body.links });
    next = res.body.links.next?.replace('https://lts.test', '');
  }
  return pages;
}

const LISTINGS = [
  '/samples?page[size]=100',
  '/samples?sort=-id&page[size]=70',
  '/samples?page[number]=3&page[size]=40',
  '/samples?sort=-created_at&page[number]=2&page[size]=100',
  '/labware?page[size]=2', // a polymorphic type: its records by key, page by page
  '/plates?page[size]=1',
  '/wells?page[size]=50',
];

/** Every listing walked, one after another (so that the first refusal of the index is the only one while it pauses). */
async function answers(): Promise<Record<string, unknown[]>> {
  const walked: Record<string, unknown[]> = {};
  for (const path of LISTINGS) walked[path] = await walk(path);
  return walked;
}

/** Whether a call reads records by key: a BatchGetItem of record items (API keys are read so too). */
const readsRecordsByKey = (input: { RequestItems?: Record<string, { Keys: { sk?: string }[] }> }) =>
  Object.values(input.RequestItems ?? {}).some(({ Keys }) => Keys.some((key) => key.sk === '$record_1'));

/** The Queries sent to the projected index while `fn` runs, whether each was answered, and the reads of records by key. */
async function recordIndexQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: ('answered' | 'refused')[]; recordReads: number }> {
  const queries: ('answered' | 'refused')[] = [];
  let recordReads = 0;
  const name = `record-index-queries-${Math.random()}`;
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { IndexName?: string; RequestItems?: Record<string, { Keys: { sk?: string }[] }> };
      if (readsRecordsByKey(input)) recordReads++;
      if (input.IndexName !== RECORD_INDEX) return next(args);
      try {
        const answer = await next(args);
        queries.push('answered');
        return answer;
      } catch (error) {
        queries.push('refused');
        throw error;
      }
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), queries, recordReads };
  } finally {
    dynamo().middlewareStack.remove(name);
  }
}

/** A refusal as AWS answers a Query on an index it is backfilling (DynamoDB Local answers instead). */
function refuseWhileBackfilling(): () => void {
  const name = 'backfilling';
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      if ((args.input as { IndexName?: string }).IndexName !== RECORD_INDEX) return next(args);
      throw Object.assign(new Error(`Cannot read from backfilling global secondary index: ${RECORD_INDEX}`), {
        name: 'ValidationException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400, requestId: 'INJECTED', attempts: 1, totalRetryDelay: 0 },
      });
    },
    // After the initialize step, where the other observers of this file are, so that they see the refusal.
    { step: 'build', name },
  );
  return () => dynamo().middlewareStack.remove(name);
}

/** Moves this process's clock reading (Date.now only: the SDK signs with the real time) past the refusal's pause. */
const realNow = Date.now.bind(Date);
let clockAhead = 0;
function passRefusalPause(): void {
  clockAhead += RECORD_INDEX_RETRY_MS + 1;
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + clockAhead);
}

afterEach(() => vi.restoreAllMocks());

async function fill(): Promise<void> {
  await seedSamples(230, 'layout');
  for (let i = 0; i < 3; i++) await createPlate();
  await createTube();
  await createTube();
}

describe('a table made before the projected index', () => {
  it('answers every listing the same before the index, while DynamoDB backfills it, and once it answers', async () => {
    const { endpoint, tableName } = await freshStoreWithIndexes(TODAY);
    await fill();

    // Before: the index does not exist; its Query is refused once, then pages read keys and records for a while.
    const before = await recordIndexQueries(answers);
    expect(before.queries).toEqual(['refused']);
    expect(before.recordReads).toBeGreaterThan(LISTINGS.length);

    const client = localClient(endpoint);
    expect(await addMissingIndexes(client, tableName, tableDefinition.indexes)).toEqual([RECORD_INDEX]);
    client.destroy();
    useDynamo(endpoint, tableName);

    // While AWS backfills: refused once more (the pause has passed), and the listings answer the same by keys.
    passRefusalPause();
    const unrefuse = refuseWhileBackfilling();
    const during = await recordIndexQueries(answers).finally(unrefuse);
    expect(during.queries).toEqual(['refused']);
    expect(during.result).toEqual(before.result);

    // Once the index answers: every page by id from it, no record read by key; the same answers.
    passRefusalPause();
    const after = await recordIndexQueries(answers);
    expect(after.result).toEqual(before.result);
    expect(after.queries.length).toBeGreaterThan(LISTINGS.length);
    expect(after.queries.every((q) => q === 'answered')).toBe(true);
    // Created-at order is id order, and the wells are listed by walking their plates: all from the index.
    // A polymorphic type's members merge their keys (lib/jsonapi/listing.ts, pageRead): `/labware` reads each page's records by key.
    expect(after.recordReads).toBe(after.result['/labware?page[size]=2']!.length);
  });
});

/** The units one measured request consumes, and how they split. */
const units = (c: Consumed) => ({ read: c.read, write: c.write, by: c.by });

describe('capacity of reads and lab writes, today’s layout and the projected index', () => {
  const measured: Record<string, Record<string, ReturnType<typeof units>>> = {};

  for (const [layout, make] of [
    ['today', () => freshStoreWithIndexes(TODAY)],
    ['projected', () => freshStore()],
  ] as const) {
    it(`${layout}: a page of 100 samples, a walk of 1,000, a sample create, a plate update, a 96-well plate create`, async () => {
      await make();
      await seedSamples(1_000, `capacity-${layout}`);
      const plate = await createPlate();
      const sample = await createSample();
      const page = await consumedBy(() => call('GET', '/api/v2/samples?page[size]=100'));
      expect(page.result.body.data).toHaveLength(100);
      const walked = await consumedBy(() => walk('/samples?page[size]=100'));
      expect(walked.result).toHaveLength(11);
      const create = await consumedBy(() => createSample());
      const update = await consumedBy(() => addAliquot({ type: 'wells', id: String(slotId(Number(plate.id), 1)) }, sample.id));
      const plateCreate = await consumedBy(() => createPlate());
      measured[layout] = {
        page: units(page.consumed),
        walk: units(walked.consumed),
        'sample create': units(create.consumed),
        'plate update (an aliquot into a well)': units(update.consumed),
        '96-well plate create': units(plateCreate.consumed),
      };
    });
  }

  it('the projected index: a page and a walk at a fraction of today’s read units; no lab write above 1.5× today’s', () => {
    const { today, projected } = measured;
    console.log(JSON.stringify(measured, null, 1));
    expect(projected!.page!.read).toBeLessThan(today!.page!.read / 3);
    expect(projected!.walk!.read).toBeLessThan(today!.walk!.read / 3);
    for (const write of ['sample create', 'plate update (an aliquot into a well)', '96-well plate create']) {
      expect(projected![write]!.write, write).toBeLessThanOrEqual(today![write]!.write * 1.5);
      expect(projected![write]!.write, `${write}: the projected copy costs something`).toBeGreaterThan(today![write]!.write);
    }
  });
});
