import { beforeAll, describe, expect, it } from 'vitest';
import { slotUuid } from '#lib/domain/labware-ids.ts';
import { TRANSFER_TYPES } from '#lib/domain/transfers.ts';
import { call } from '../support/api.ts';
import { create, createPlate, createTube, purposeId, rel } from '../support/fixtures.ts';
import { adminUuid, filledPlate, poolPlate, postTransfer, templateUuid, uuidOf } from '../support/lab.ts';
import { freshStore } from '../support/store.ts';

/**
 * Transfer requests live inside their target labware and are listed by walking the labware
 * (lib/jsonapi/listing.ts, listEmbedded); their ids derive from the labware's and a number the labware
 * counts (lib/domain/labware-ids.ts). After every kind of material move — every transfer type the reference
 * data has a template for, several of them into labware that already holds transfer requests, transfer
 * request collections, bulk transfers, pooling into tubes, racked tubes — the listing, walked page by page,
 * holds each transfer request once and skips none.
 */

beforeAll(freshStore);

/** Every id of a listing, walked through `links.next`; and the count the first page gave. */
async function walk(query: string): Promise<{ ids: string[]; count: number }> {
  const ids: string[] = [];
  let next: string | undefined = `/api/v2/transfer_requests?${query}`;
  let count: number | undefined;
  while (next) {
    const res = await call('GET', next);
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    count ??= res.body.meta.record_count as number;
    ids.push(...res.body.data.map((r: { id: string }) => r.id));
    next = res.body.links.next && new URL(res.body.links.next).pathname + new URL(res.body.links.next).search;
  }
  return { ids, count: count! };
}

const repeated = (ids: readonly string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

describe('GET /api/v2/transfer_requests after every kind of material move', () => {
  it('lists every transfer request once, whatever the page size, by cursor or by page number', async () => {
    const user = await adminUuid();
    // Four samples, tagged apart (so they may share a tube), in two submissions: A1 and B1, C1 and D1.
    const { plate: stock } = await filledPlate(4);
    const tagged = await call('POST', '/api/v2/tag_layouts', {
      body: {
        data: {
          type: 'tag_layouts',
          attributes: {
            plate_uuid: stock.attributes.uuid,
            tag_layout_template_uuid: await uuidOf('tag_layout_templates', 'name', 'Test dual column'),
            user_uuid: user,
          },
        },
      },
    });
    expect(tagged.status, JSON.stringify(tagged.body)).toBe(201);
    await poolPlate(stock.id, [
      ['A1', 'B1'],
      ['C1', 'D1'],
    ]);
    const well = (plate: { attributes: { uuid: string } }, slot: number) => slotUuid(plate.attributes.uuid, slot);
    let made = 0;
    /** A write that moves material, and how many transfer requests it records. */
    const moved = async (what: string, res: { status: number; body: unknown }, transferRequests: number) => {
      expect(res.status, `${what}: ${JSON.stringify(res.body).slice(0, 600)}`).toBe(201);
      made += transferRequests;
    };
    const transfer = async (template: string, source: { attributes: { uuid: string } }, destination?: { attributes: { uuid: string } }) =>
      postTransfer({
        template: await templateUuid(template),
        source: source.attributes.uuid,
        user,
        ...(destination ? { destination: destination.attributes.uuid } : {}),
      });

    // Every transfer type with a template (the others need targets the interface does not expose: contract §2).
    const types = new Set<string>();
    const templates = (await call('GET', '/api/v2/transfer_templates?page[size]=100')).body.data;
    const typeOf = (name: string) => templates.find((t: any) => t.attributes.name === name).attributes.transfer_type;
    const byTemplate = async (name: string, source: any, destination: any, transferRequests: number) => {
      types.add(typeOf(name));
      await moved(name, await transfer(name, source, destination), transferRequests);
    };
    await byTemplate('Transfer columns 1-12', stock, await createPlate(), 4);
    await byTemplate('Pool wells based on submission', stock, await createPlate(), 4);
    // Into new pool tubes, then again into the same two tubes (by submission, then by multiplex): they already hold transfer requests.
    await byTemplate('Transfer wells to MX library tubes by submission', stock, undefined, 4);
    await byTemplate('Transfer wells to MX library tubes by submission', stock, undefined, 4);
    await byTemplate('Transfer wells to MX library tubes by multiplex', stock, undefined, 4);
    const wholePlate = await createTube();
    await byTemplate('Whole plate to tube', stock, wholePlate, 4);
    // The tube's pool is the submission its last transfer request carried: into that submission's pool tube, which holds some already.
    await byTemplate('Transfer from tube to tube by submission', wholePlate, undefined, 1);
    await byTemplate('Transfer between specific tubes', wholePlate, await createTube(), 1);
    const served = TRANSFER_TYPES.filter(
      (type) => !['Transfer::BetweenPlateAndTubes', 'Transfer::FromPlateToSpecificTubes', 'Transfer::FromPlateToSpecificTubesByPool'].includes(type),
    );
    expect([...types].sort()).toEqual([...served].sort());

    // Transfer request collections: two into one plate, the second into a plate that holds transfer requests already.
    const collected = await createPlate();
    const collection = (entries: [string, string][]) =>
      call('POST', '/api/v2/transfer_request_collections', {
        body: {
          data: {
            type: 'transfer_request_collections',
            attributes: { transfer_requests_attributes: entries.map(([source_asset, target_asset]) => ({ source_asset, target_asset })), user_uuid: user },
          },
        },
      });
    for (const slots of [
      [1, 2],
      [3, 4],
    ])
      await moved('a transfer request collection', await collection(slots.map((slot) => [well(stock, slot), well(collected, slot)])), 2);

    // Bulk transfers, well by well.
    const bulk = await createPlate();
    const wellTransfers = ['A1', 'B1'].map((position) => ({
      source_uuid: stock.attributes.uuid,
      source_location: position,
      destination_uuid: bulk.attributes.uuid,
      destination_location: position,
    }));
    await moved(
      'bulk transfers',
      await call('POST', '/api/v2/bulk_transfers', {
        body: { data: { type: 'bulk_transfers', attributes: { user_uuid: user, well_transfers: wellTransfers } } },
      }),
      2,
    );

    // Pooling into a tube as Limber does (a specific tube creation, then a collection into it), twice into the same tube.
    const creation = await create('specific_tube_creations', {
      child_purpose_uuids: [await uuidOf('tube_purposes', 'name', 'MX Tube')],
      parent_uuids: [stock.attributes.uuid],
      user_uuid: user,
    });
    const [pool] = (await call('GET', `/api/v2/specific_tube_creations/${creation.id}/children`)).body.data;
    for (const slots of [[1, 2], [3]])
      await moved('pooling into a tube', await collection(slots.map((slot) => [well(stock, slot), pool.attributes.uuid])), slots.length);

    // Racked tubes: a rack of two tubes, each filled from a well.
    const racked = [await createTube(), await createTube()];
    const rack = await create(
      'tube_racks',
      { size: 96, tube_locations: { A1: { uuid: racked[0].attributes.uuid }, B1: { uuid: racked[1].attributes.uuid } } },
      { purpose: rel('tube_rack_purposes', await purposeId('tube_rack_purposes', 'Tube Rack 96')) },
    );
    expect(rack.type).toBe('tube_racks');
    await moved('into racked tubes', await collection(racked.map((tube, i) => [well(stock, i + 3), tube.attributes.uuid])), 2);

    // The walk: each transfer request once, none left out, whatever the page size; by cursor and by page number alike.
    for (const size of [1, 3, 7, 100]) {
      const { ids, count } = await walk(`page[size]=${size}`);
      expect(repeated(ids), `page[size]=${size}`).toEqual([]);
      expect(ids, `page[size]=${size}`).toHaveLength(made);
      expect(count).toBe(made);
      expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((a, b) => a - b));
      const byNumber: string[] = [];
      for (let page = 1; page <= Math.ceil(made / size); page++) {
        byNumber.push(...(await call('GET', `/api/v2/transfer_requests?page[size]=${size}&page[number]=${page}`)).body.data.map((r: { id: string }) => r.id));
      }
      expect(byNumber, `page[size]=${size} by page number`).toEqual(ids);
    }
    const descending = await walk('sort=-id&page[size]=5');
    expect(descending.ids).toEqual([...(await walk('page[size]=100')).ids].reverse());
    // Each is its own record: read by id, it is the one listed.
    const { ids } = await walk('page[size]=100');
    const read = await Promise.all(ids.map(async (id) => (await call('GET', `/api/v2/transfer_requests/${id}`)).body.data.id));
    expect(read).toEqual(ids);
  });
});
