import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '#lib/store/client.ts';
import { call, doc } from '../support/api.ts';
import { createPlate, createSample, createTube, purposeId, recordCount, rel, tubeOf } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * On AWS a global secondary index lags the table. A uuid named in a write must therefore resolve through a
 * strongly consistent read. DynamoDB Local's indexes never lag, so this test stands in for the lag: a test
 * double that hides every result of a Query on an index (it changes nothing else; reads of the table and
 * every write are real).
 */
const HIDE = 'testHideIndexResults';

beforeAll(async () => {
  await freshStore();
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { IndexName?: string };
      if (context.commandName === 'QueryCommand' && input.IndexName)
        return { output: { Items: [], Count: 0, ScannedCount: 0, $metadata: {} }, response: {} } as never;
      return next(args);
    },
    { step: 'initialize', name: HIDE },
  );
});

afterAll(() => {
  dynamo().middlewareStack.remove(HIDE);
});

describe('references inside writes with every index result hidden', () => {
  it('the double really hides index results (a listing sees nothing)', async () => {
    await createSample();
    const listing = await call('GET', '/api/v2/samples');
    expect(listing.body.data).toEqual([]);
  });

  it('tubes created a moment ago can be racked at once by uuid (tube_locations)', async () => {
    const tubes = await Promise.all([createTube(), createTube(), createTube()]);
    const res = await call('POST', '/api/v2/tube_racks', {
      body: doc('tube_racks', {
        size: 96,
        tube_locations: {
          A1: { uuid: tubes[0].attributes.uuid },
          B1: { uuid: tubes[1].attributes.uuid.toUpperCase() },
          C1: { uuid: tubes[2].attributes.uuid },
        },
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    for (const tube of tubes) {
      const racked = await call('GET', `/api/v2/tubes/${tube.id}/tube_rack`);
      expect(racked.body.data.id).toBe(res.body.data.id);
    }
  });

  it('an unknown or forged uuid is still a 404 at the reference, nothing written', async () => {
    const tube = tubeOf(await createTube());
    const forged = `${tube.uuid.slice(0, 9)}${tube.uuid[9] === 'a' ? 'b' : 'a'}${tube.uuid.slice(10)}`;
    const racks = await recordCount('tube_racks');
    for (const uuid of [forged, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await call('POST', '/api/v2/tube_racks', { body: doc('tube_racks', { size: 48, tube_locations: { A1: { uuid } } }) });
      expect(res.status).toBe(404);
      expect(res.body.errors[0].source.pointer).toBe('/data/attributes/tube_locations/A1/uuid');
    }
    expect(await recordCount('tube_racks')).toBe(racks);
  });

  it('filter[uuid] finds a record written a moment ago, on its type and on the polymorphic labware', async () => {
    const plate = await createPlate();
    const byUuid = await call('GET', `/api/v2/plates?filter[uuid]=${plate.attributes.uuid}`);
    expect(byUuid.body.data.map((p: any) => p.id)).toEqual([plate.id]);
    const labware = await call('GET', `/api/v2/labware?filter[uuid]=${plate.attributes.uuid}`);
    expect(labware.body.data.map((p: any) => `${p.type}/${p.id}`)).toEqual([`plates/${plate.id}`]);
    const well = await call('GET', `/api/v2/wells?filter[uuid]=${plate.attributes.uuid.slice(0, 32)}0005`);
    expect(well.body.data.map((w: any) => w.id)).toEqual([String(Number(plate.id) * 1000 + 5)]);
    // A sample's uuid is not a plate's.
    const sample = await createSample();
    expect((await call('GET', `/api/v2/plates?filter[uuid]=${sample.attributes.uuid}`)).body.data).toEqual([]);
  });

  it('relationships by id resolve by key as ever (a purpose, a sample in a well)', async () => {
    const purpose = await purposeId('plate_purposes', 'Stock Plate');
    const plate = await call('POST', '/api/v2/plates', { body: doc('plates', {}, { purpose: rel('plate_purposes', purpose) }) });
    expect(plate.status).toBe(201);
    const sample = await createSample();
    const aliquot = await call('POST', '/api/v2/aliquots', {
      body: doc('aliquots', {}, { receptacle: rel('wells', Number(plate.body.data.id) * 1000 + 1), sample: rel('samples', sample.id) }),
    });
    expect(aliquot.status).toBe(201);
  });
});
