import { beforeAll, describe, expect, it } from 'vitest';
import { call, doc } from '../support/api.ts';
import { adminUuid, contentsOf, filledPlate, poolPlate, postTransfer, templateUuid, uuidOf } from '../support/lab.ts';
import { createQcable, moveQcable } from '../support/qc.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * The lab's daily work end to end through the API, as limber drives it (client-usage.md W2, W4, W6),
 * asserting where every sample and tag ended up: (a) stamp a stock plate into a tag plate, lay out the
 * lot's dual tags, convert it into a library plate; (b) pool a library plate into MX tubes by submission;
 * (c) a tube from a plate, filled from the plate, then tube to tube.
 */

beforeAll(freshStore);

let user: string;
beforeAll(async () => {
  user = await adminUuid();
});

const post = async (type: string, attributes: Record<string, unknown>) => {
  const res = await call('POST', `/api/v2/${type}`, { body: doc(type, { user_uuid: user, ...attributes }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
};

const transfer = async (template: string, attributes: { source: string; destination?: string; transfers?: unknown }) => {
  const res = await postTransfer({ template: await templateUuid(template), user, ...attributes });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
};

/** A library plate as workflow (a) makes it: samples stamped from `stock` into a tag plate of LOT-0002, dual-tagged, converted. */
async function libraryPlate(stock: any): Promise<any> {
  // W2: the tag plate is a qcable of a lot of tag plates; its lot names the tag layout template.
  const { plate: tagPlate } = await createQcable('LOT-0002');
  await moveQcable(tagPlate.id, 'pending');
  await moveQcable(tagPlate.id, 'available');
  const lot = await call('GET', `/api/v2/qcables?filter[barcode]=${tagPlate.attributes.labware_barcode.human_barcode}&include=lot.template`);
  const template = lot.body.included.find((r: any) => r.type === 'tag_layout_templates');
  const stamp = Object.fromEntries([...(await contentsOf('plates', stock.id)).keys()].map((well) => [well, well]));
  await transfer('Custom pooling', { source: stock.attributes.uuid, destination: tagPlate.attributes.uuid, transfers: stamp });
  await post('tag_layouts', { plate_uuid: tagPlate.attributes.uuid, tag_layout_template_uuid: template.attributes.uuid, enforce_uniqueness: true });
  await moveQcable(tagPlate.id, 'exhausted');
  const conversion = await post('plate_conversions', {
    parent_uuid: stock.attributes.uuid,
    purpose_uuid: await uuidOf('plate_purposes', 'name', 'Library Plate'),
    target_uuid: tagPlate.attributes.uuid,
  });
  return (await call('GET', `/api/v2/plate_conversions/${conversion.id}/target`)).body.data;
}

describe('lab workflows', () => {
  it('(a) stamp a stock plate into a tag plate, lay out dual tags, convert it to a library plate', async () => {
    const { plate: stock, samples } = await filledPlate(12);
    const library = await libraryPlate(stock);
    expect((await call('GET', `/api/v2/plates/${library.id}/purpose`)).body.data.attributes.name).toBe('Library Plate');
    expect((await call('GET', `/api/v2/plates/${library.id}/parents`)).body.data.map((p: any) => p.id)).toEqual([stock.id]);
    const tagged = await contentsOf('plates', library.id);
    expect(tagged.size).toBe(12);
    // Column order: the n-th well (A1 = 1st, H1 = 8th, A2 = 9th …) holds its own sample with i7 and i5 tag n.
    const wells = [...samples.keys()];
    for (const [n, well] of wells.entries()) expect(tagged.get(well)).toEqual([{ sample: samples.get(well), tag: n + 1, tag2: n + 1 }]);
    // The stock plate is unchanged: untagged.
    expect([...(await contentsOf('plates', stock.id)).values()].flat().every((a) => a.tag === null)).toBe(true);
  });

  it('(b) pool a library plate into MX tubes by submission, named after the wells; a second plate of a submission joins its tube', async () => {
    const { plate: stock, samples } = await filledPlate(6);
    const [first, second] = await poolPlate(stock.id, [
      ['A1', 'B1', 'C1'],
      ['D1', 'E1', 'F1'],
    ]);
    const library = await libraryPlate(stock);
    const pooled = await transfer('Transfer wells to MX library tubes by submission', { source: library.attributes.uuid, transfers: null });
    expect(pooled.attributes.transfer_type).toBe('Transfer::FromPlateToTubeBySubmission');
    const summaries = pooled.attributes.transfers;
    expect(Object.keys(summaries).sort()).toEqual(['A1', 'B1', 'C1', 'D1', 'E1', 'F1']);
    const tubeUuids = [...new Set(Object.values(summaries).map((s: any) => s.uuid))];
    expect(tubeUuids).toHaveLength(2);
    const barcode = library.attributes.labware_barcode.human_barcode;
    expect(summaries.A1).toMatchObject({ name: `${barcode} A1:C1`, state: 'pending', label: { text: 'MX Tube' }, barcode: { prefix: 'NT' } });
    expect(summaries.D1.name).toBe(`${barcode} D1:F1`);

    // Events: the transfer, and each tube it made (contract §4).
    const events = (await outboxEvents()).filter(
      (e) => (e.resource.type === 'transfers' && e.resource.id === pooled.id) || tubeUuids.includes(e.resource.uuid ?? ''),
    );
    expect(events.map((e) => e.type).sort()).toEqual(['transfers.created', 'tubes.created', 'tubes.created']);

    const tubeOf = async (uuid: string) => (await call('GET', `/api/v2/tubes?filter[uuid]=${uuid}`)).body.data[0];
    const [tube1, tube2] = await Promise.all([summaries.A1.uuid, summaries.D1.uuid].map(tubeOf));
    const tagOf = (well: string) => [...samples.keys()].indexOf(well) + 1;
    const pool = (wells: string[]) => wells.map((well) => ({ sample: samples.get(well), tag: tagOf(well), tag2: tagOf(well) }));
    expect((await contentsOf('tubes', tube1.id)).get('tube')).toEqual(pool(['A1', 'B1', 'C1']));
    expect((await contentsOf('tubes', tube2.id)).get('tube')).toEqual(pool(['D1', 'E1', 'F1']));
    expect((await call('GET', `/api/v2/tubes/${tube1.id}/parents`)).body.data.map((p: any) => p.id)).toEqual([library.id]);
    // Each tube holds its submission's requests' material.
    expect(first).not.toBe(second);

    // Pooled again, the plate goes into the same tubes (one per submission), where the same samples with
    // the same tags merge into the aliquots already there.
    const again = await transfer('Transfer wells to MX library tubes by submission', { source: library.attributes.uuid });
    expect(new Set(Object.values(again.attributes.transfers).map((s: any) => s.uuid))).toEqual(new Set(tubeUuids));
    expect((await contentsOf('tubes', tube1.id)).get('tube')).toEqual(pool(['A1', 'B1', 'C1']));
  });

  it('(c) a tube from a plate, filled from the plate, then moved tube to tube', async () => {
    const { plate: stock, samples } = await filledPlate(1);
    const creation = await post('tube_from_plate_creations', {
      child_purpose_uuid: await uuidOf('tube_purposes', 'name', 'Stock Tube'),
      parent_uuid: stock.attributes.uuid,
    });
    const tube = (await call('GET', `/api/v2/tube_from_plate_creations/${creation.id}/child`)).body.data;
    const filled = await transfer('Whole plate to tube', { source: stock.attributes.uuid, destination: tube.attributes.uuid });
    expect(filled.attributes.transfers).toEqual(['A1']);
    const named = (await call('GET', `/api/v2/tubes/${tube.id}`)).body.data.attributes.name;
    expect(named).toBe(`${stock.attributes.labware_barcode.human_barcode} A1:A1`);
    expect((await contentsOf('tubes', tube.id)).get('tube')).toEqual([{ sample: samples.get('A1'), tag: null, tag2: null }]);

    // W6: tube to tube; the destination takes the source's name.
    const next = (
      await call(
        'GET',
        `/api/v2/tube_from_plate_creations/${(await post('tube_from_plate_creations', { child_purpose_uuid: await uuidOf('tube_purposes', 'name', 'Library Tube'), parent_uuid: stock.attributes.uuid })).id}/child`,
      )
    ).body.data;
    const moved = await transfer('Transfer between specific tubes', { source: tube.attributes.uuid, destination: next.attributes.uuid });
    expect(moved.attributes.transfers).toBeNull();
    expect((await call('GET', `/api/v2/tubes/${next.id}`)).body.data.attributes.name).toBe(named);
    expect((await contentsOf('tubes', next.id)).get('tube')).toEqual([{ sample: samples.get('A1'), tag: null, tag2: null }]);
    expect((await call('GET', `/api/v2/tubes/${next.id}/parents`)).body.data.map((p: any) => p.id).sort()).toEqual([stock.id, tube.id].sort());
  });

  it('(c) tube to tube by submission: into the pool tube of the source tube’s submission, made once and then reused', async () => {
    const { plate: stock, samples } = await filledPlate(2);
    await poolPlate(stock.id, [['A1', 'B1']]);
    const library = await libraryPlate(stock);
    // Two tubes each filled with the whole library plate: their material carries its submission along.
    const tubes = [];
    for (let i = 0; i < 2; i++) {
      const creation = await post('tube_from_plate_creations', {
        child_purpose_uuid: await uuidOf('tube_purposes', 'name', 'Library Tube'),
        parent_uuid: library.attributes.uuid,
      });
      const tube = (await call('GET', `/api/v2/tube_from_plate_creations/${creation.id}/child`)).body.data;
      await transfer('Whole plate to tube', { source: library.attributes.uuid, destination: tube.attributes.uuid });
      tubes.push(tube);
    }
    const destinations: string[] = [];
    for (const tube of tubes) {
      const moved = await transfer('Transfer from tube to tube by submission', { source: tube.attributes.uuid });
      expect(moved.attributes.transfers).toBeNull();
      destinations.push((await call('GET', `/api/v2/transfers/${moved.id}/destination`)).body.data.id);
    }
    expect(destinations[1]).toBe(destinations[0]);
    expect(destinations[0]).not.toBe(tubes[0].id);
    const poolTube = (await call('GET', `/api/v2/tubes/${destinations[0]}?include=purpose`)).body;
    expect(poolTube.included[0].attributes.name).toBe('MX Tube');
    expect(poolTube.data.attributes.name).toBe(`${library.attributes.labware_barcode.human_barcode} A1:B1`);
    // The same samples with the same tags from the second tube merge into the aliquots already there.
    expect((await contentsOf('tubes', destinations[0]!)).get('tube')).toEqual([
      { sample: samples.get('A1'), tag: 1, tag2: 1 },
      { sample: samples.get('B1'), tag: 2, tag2: 2 },
    ]);
  });
});
