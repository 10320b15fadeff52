import { expect } from 'vitest';
import { slotUuid } from '#lib/domain/labware-ids.ts';
import { call, doc, idOf } from './api.ts';
import { addAliquot, createPlate, createSample, inBatches, rel } from './fixtures.ts';
import { createOrder, createRequest, workIds } from './requests.ts';

/**
 * The lab's daily operations through the API, for tests of transfers, tag layouts and conversions: plates
 * filled with samples, transfers by template name, and the contents of labware read back as
 * position → aliquots.
 */

/** What a receptacle holds, as a test compares it: sample ids and tag indexes. */
export interface Held {
  sample: string;
  tag: number | null;
  tag2: number | null;
}

/** The uuid of a record found by a filter (a template by name, a user by login). */
export async function uuidOf(type: string, filter: string, value: string): Promise<string> {
  const res = await call('GET', `/api/v2/${type}?filter[${filter}]=${encodeURIComponent(value)}`);
  expect(res.body.data, `${type} ${filter}=${value}`).toHaveLength(1);
  return res.body.data[0].attributes.uuid;
}

export const templateUuid = (name: string) => uuidOf('transfer_templates', 'name', name);
export const adminUuid = () => uuidOf('users', 'login', 'admin');

/** A plate whose first `count` wells (column order) each hold one new sample (of `study`, when given); returns the plate and the sample ids by well. */
export async function filledPlate(count: number, purpose = 'Stock Plate', study?: string): Promise<{ plate: any; samples: Map<string, string> }> {
  const plate = await createPlate(purpose);
  const wells = (await call('GET', `/api/v2/plates/${plate.id}/wells?page[size]=100`)).body.data.slice(0, count);
  const ids = await inBatches(wells.length, 8, async (i) => {
    const sample = await createSample();
    await addAliquot({ type: 'wells', id: wells[i].id }, sample.id, study ? { study } : {});
    return sample.id as string;
  });
  // In column order, as the wells are.
  const samples = new Map<string, string>(wells.map((w: any, i: number) => [w.attributes.position.name, ids[i]!]));
  return { plate, samples };
}

/**
 * The plate Limber's plate page is tested on: a stock plate of `perPool` × 2 samples in two submissions'
 * pools, stamped twice (Working Dilution, then Library Plate); the grandchild and the stock's samples by well.
 */
export async function presentedPlate(perPool: number): Promise<{ grandchild: any; samples: Map<string, string> }> {
  const user = await adminUuid();
  const template = await templateUuid('Transfer columns 1-12');
  const stamp = async (source: any, purpose: string) => {
    const destination = await createPlate(purpose);
    const res = await postTransfer({ template, source: source.attributes.uuid, destination: destination.attributes.uuid, user });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return destination;
  };
  const { plate, samples } = await filledPlate(perPool * 2);
  const positions = [...samples.keys()];
  await poolPlate(plate.id, [positions.slice(0, perPool), positions.slice(perPool)]);
  return { grandchild: await stamp(await stamp(plate, 'Working Dilution'), 'Library Plate'), samples };
}

/** Open requests out of wells of a plate, one submission per group: `pools[i]` lists the positions of pool i. Returns the submission ids. */
export async function poolPlate(plateId: string, pools: string[][]): Promise<string[]> {
  const { study, libraryCreation } = await workIds();
  const wells = (await call('GET', `/api/v2/plates/${plateId}/wells?page[size]=100`)).body.data;
  const wellAt = new Map<string, string>(wells.map((w: any) => [w.attributes.position.name, w.id]));
  const submissions: string[] = [];
  for (const positions of pools) {
    const { submission, order } = await createOrder(study, [libraryCreation]);
    submissions.push(submission);
    // One after another: a submission's requests out of one plate are one request book, so concurrent creates would only conflict and retry.
    await inBatches(positions.length, 1, (i) =>
      createRequest({ submission, order, requestType: libraryCreation, asset: { type: 'wells', id: wellAt.get(positions[i]!)! } }),
    );
  }
  return submissions;
}

/** POST /transfers with the deprecated `*_uuid` attributes, as limber sends it. */
export function postTransfer(attributes: { template: string; source: string; destination?: string; user?: string; transfers?: unknown }) {
  const { template, source, destination, user, transfers } = attributes;
  return call('POST', '/api/v2/transfers', {
    body: doc('transfers', {
      transfer_template_uuid: template,
      source_uuid: source,
      ...(destination ? { destination_uuid: destination } : {}),
      ...(user ? { user_uuid: user } : {}),
      ...(transfers !== undefined ? { transfers } : {}),
    }),
  });
}

/** What each receptacle of a labware holds, by position (wells) or `tube` (a tube's receptacle). */
export async function contentsOf(type: 'plates' | 'tubes', id: string): Promise<Map<string, Held[]>> {
  const include = type === 'plates' ? 'wells.aliquots.sample' : 'receptacles.aliquots.sample';
  const res = await call('GET', `/api/v2/${type}/${id}?include=${include}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const included = new Map<string, any>((res.body.included ?? []).map((r: any) => [`${r.type}:${r.id}`, r]));
  const held = new Map<string, Held[]>();
  for (const link of res.body.data.relationships[type === 'plates' ? 'wells' : 'receptacles'].data) {
    const receptacle = included.get(`${link.type}:${link.id}`);
    const aliquots = receptacle.relationships.aliquots.data.map((a: any) => included.get(`aliquots:${a.id}`));
    if (aliquots.length === 0) continue;
    held.set(
      receptacle.attributes.position?.name ?? 'tube',
      aliquots.map((a: any) => ({ sample: a.relationships.sample.data.id, tag: a.attributes.tag_index, tag2: a.attributes.tag2_index })),
    );
  }
  return held;
}

/** The id of a record of a reference type by name. */
export const referenceId = (type: string, name: string) => idOf(type, 'name', name);

/** A relationship linkage for a write document. */
export { rel };

/**
 * Each plate's wells ordered from a submission template and submitted with `and_submit`, four plates at a
 * time, as Limber's SequencescapeSubmission makes them: what makes a stock plate one of Limber's ongoing plates.
 */
export async function submitWholePlates(
  plates: readonly { uuid: string }[],
  wells: number,
  template: string,
  requestOptions: Record<string, unknown>,
): Promise<void> {
  const user = await adminUuid();
  const templateUuid = await uuidOf('submission_templates', 'name', template);
  await inBatches(plates.length, 4, async (i) => {
    const assets = Array.from({ length: wells }, (_, slot) => slotUuid(plates[i]!.uuid, slot + 1));
    const order = await call('POST', '/api/v2/orders', {
      body: doc('orders', {
        submission_template_uuid: templateUuid,
        submission_template_attributes: { request_options: requestOptions, user_uuid: user, asset_uuids: assets },
      }),
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const submission = await call('POST', '/api/v2/submissions', {
      body: doc('submissions', { and_submit: true, order_uuids: [order.body.data.attributes.uuid], user_uuid: user }),
    });
    expect(submission.status, JSON.stringify(submission.body)).toBe(201);
  });
}
