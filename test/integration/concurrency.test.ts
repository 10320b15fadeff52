import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc } from '../support/api.ts';
import { createPlate, createSample, purposeId, recordCount, rel, uniqueName } from '../support/fixtures.ts';
import { freshStore } from '../support/store.ts';

/**
 * A Lambda fleet is many clients at once (contract §1.6): writes of different records never conflict or
 * wait on a shared item, and writes of one record never lose an update. All against DynamoDB Local.
 */
beforeAll(async () => {
  await freshStore();
});

const distinct = (values: unknown[]) => new Set(values).size;

describe('writes of different records never conflict', () => {
  it('50 clients creating samples at once: every request 201, ids unique, record_count exact', async () => {
    const before = await recordCount('samples');
    const results = await Promise.all(Array.from({ length: 50 }, () => call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('Par') }) })));
    expect(results.filter((r) => r.status !== 201).map((r) => r.body)).toEqual([]);
    expect(distinct(results.map((r) => r.body.data.id))).toBe(50);
    expect(distinct(results.map((r) => r.body.data.attributes.uuid))).toBe(50);
    expect(await recordCount('samples')).toBe(before + 50);
    expect(await recordCount('sample_metadata')).toBe(before + 50);
  });

  it('50 clients creating plates at once: every request 201, ids and barcodes unique, record_count exact', async () => {
    const purpose = await purposeId('plate_purposes', 'Stock Plate');
    const before = { plates: await recordCount('plates'), labware: await recordCount('labware'), wells: await recordCount('wells') };
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call('POST', '/api/v2/plates', { body: doc('plates', {}, { purpose: rel('plate_purposes', purpose) }) })),
    );
    expect(results.filter((r) => r.status !== 201).map((r) => r.body)).toEqual([]);
    expect(distinct(results.map((r) => r.body.data.id))).toBe(50);
    expect(distinct(results.map((r) => r.body.data.attributes.labware_barcode.human_barcode))).toBe(50);
    expect(await recordCount('plates')).toBe(before.plates + 50);
    expect(await recordCount('labware')).toBe(before.labware + 50);
    expect(await recordCount('wells')).toBe(before.wells + 50 * 96);
    const filtered = await call('GET', `/api/v2/plates?filter[purpose_id]=${purpose}&page[size]=1`);
    expect(filtered.body.meta.record_count).toBe(before.plates + 50);
  });

  it('20 clients putting aliquots into wells of 20 different plates at once: every request 201, counts exact', async () => {
    const plates = await Promise.all(Array.from({ length: 20 }, () => createPlate()));
    const samples = await Promise.all(Array.from({ length: 20 }, () => createSample()));
    const before = await recordCount('aliquots');
    const results = await Promise.all(
      plates.map((plate, i) =>
        call('POST', '/api/v2/aliquots', {
          body: doc('aliquots', {}, { receptacle: rel('wells', Number(plate.id) * 1000 + 1), sample: rel('samples', samples[i].id) }),
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(await recordCount('aliquots')).toBe(before + 20);
    for (const [i, plate] of plates.entries()) {
      const well = await call('GET', `/api/v2/wells/${Number(plate.id) * 1000 + 1}?include=aliquots.sample`);
      expect(well.body.included.filter((r: any) => r.type === 'samples').map((s: any) => s.id)).toEqual([samples[i].id]);
    }
  });
  // Writes into different wells of ONE plate (one record) all land too: test/integration/lab-concurrency.test.ts.
});

describe('writes of one record are serialised', () => {
  it('two writers of one sample: both changes are kept, or the loser is told (409) — never silently overwritten', async () => {
    for (let round = 0; round < 10; round++) {
      const sample = await createSample();
      const [a, b] = await Promise.all([
        call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { site_sample_id: `site-${round}` }, undefined, sample.id) }),
        call('PATCH', `/api/v2/samples/${sample.id}`, { body: doc('samples', { control: true }, undefined, sample.id) }),
      ]);
      const stored = (await call('GET', `/api/v2/samples/${sample.id}`)).body.data.attributes;
      if (a!.status === 200) expect(stored.site_sample_id).toBe(`site-${round}`);
      else expect(a!.status).toBe(409);
      if (b!.status === 200) expect(stored.control).toBe(true);
      else expect(b!.status).toBe(409);
    }
  });

  it('the same unique name from 20 clients: exactly one 201, the others 422 not_unique', async () => {
    const name = uniqueName('Same');
    const before = await recordCount('samples');
    const results = await Promise.all(Array.from({ length: 20 }, () => call('POST', '/api/v2/samples', { body: doc('samples', { name }) })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(422);
      expect(r.body.errors[0].code).toBe('not_unique');
    }
    expect(await recordCount('samples')).toBe(before + 1);
  });
});
