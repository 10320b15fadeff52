import { beforeAll, expect, it } from 'vitest';
import { call, doc, idOf } from '../support/api.ts';
import { createTube, tubeOf } from '../support/fixtures.ts';
import { filledPlate } from '../support/lab.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents } from '../support/table.ts';

/**
 * An event's `data` is the resource object as the API renders it (contract §4) — attributes a GET loads
 * included: a rack's `state` (from its tubes), a pick list's `pick_attributes` and `links` (from its orders
 * and submission). They were once rendered as null in events, as only stored attributes were.
 */

beforeAll(freshStore);

/** The data of the last event of `type` about the resource, and the resource as a GET renders it now. */
async function lastEventAndRead(path: string, type: string, id: string) {
  const events = (await outboxEvents()).filter((e) => e.type === type && e.resource.id === id);
  expect(events.length, `${type} ${id}`).toBeGreaterThan(0);
  const read = await call('GET', `${path}/${id}`);
  expect(read.status).toBe(200);
  return { event: events.at(-1)!.data, read: read.body.data };
}

it("renders a tube rack's loaded state in its created event as a GET renders it", async () => {
  const rackPurpose = await idOf('tube_rack_purposes', 'name', 'Tube Rack 96');
  const tubes = await Promise.all([createTube(), createTube()].map(async (t) => tubeOf(await t)));
  const res = await call('POST', '/api/v2/tube_racks', {
    body: doc(
      'tube_racks',
      { size: 96, tube_locations: { A1: { uuid: tubes[0]!.uuid }, B1: { uuid: tubes[1]!.uuid } } },
      { purpose: { data: { type: 'tube_rack_purposes', id: rackPurpose } } },
    ),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { event, read } = await lastEventAndRead('/api/v2/tube_racks', 'tube_racks.created', res.body.data.id);
  expect(read.attributes.state).toEqual(expect.any(String));
  expect(event.attributes.state).toBe(read.attributes.state);
  expect(event.attributes).toEqual(read.attributes);
});

it("renders a pick list's loaded picks and links in its events as a GET renders them", async () => {
  const project = await idOf('projects', 'name', 'Project A');
  const { plate } = await filledPlate(2, 'Stock Plate', await idOf('studies', 'name', 'Study A'));
  const res = await call('POST', '/api/v2/pick_lists', {
    body: doc('pick_lists', { labware_pick_attributes: [{ source_labware_id: Number(plate.id), project_id: Number(project) }] }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { event, read } = await lastEventAndRead('/api/v2/pick_lists', 'pick_lists.state_changed', res.body.data.id);
  expect(read.attributes.pick_attributes).toHaveLength(2);
  expect(read.attributes.links).toHaveLength(2);
  expect(event.attributes).toEqual(read.attributes);
});
