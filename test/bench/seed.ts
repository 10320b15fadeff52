import type { HttpClient } from './http-client.ts';
import type { Role } from './processes.ts';

export interface Seeded {
  study: string;
  /** A sample for the item GET. */
  sampleId: string;
  /** A 384-well plate with a sample (each with its metadata record) in every well. */
  plateId: string;
  /** What the lab scenarios name by uuid: the filled plate (stamp source, tag layout target), a stamp template, a tag group, a user. */
  lab: { plate: string; stampTemplate: string; tagGroup: string; user: string; destinations: Record<Role, string[]> };
}

/** Empty 96-well plates each side stamps into, one per request: a plate takes material from one source once. */
export const stampDestinations = (requests: number) => requests + 8;

const PLATE_WELLS = 384;

/** Retries a write the service refused with 409 (a lost race on a counter); seeding must not fail for that. */
async function retrying<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= 10 || !String((error as Error).message).includes('→ 409')) throw error;
      await new Promise((r) => setTimeout(r, 10 * 2 ** Math.min(attempt, 5)));
    }
  }
}

/**
 * Seeds the service's table through its own API: a 384-well plate, 384 samples and one aliquot per well.
 * Aliquots rewrite the one plate item, so they go one at a time; samples too (concurrent creates only
 * conflict on the service's counters today).
 */
export async function seed(api: HttpClient, runId: string, log: (line: string) => void, destinations: number): Promise<Seeded> {
  const first = async (path: string) => (await api.json('GET', path)).data[0].id as string;
  const study = await first('/studies?filter[name]=Study%20A');
  const purpose384 = await first('/plate_purposes?filter[name]=Stock%20Plate%20384');

  const started = performance.now();
  const plate = (
    await api.json('POST', '/plates', { data: { type: 'plates', relationships: { purpose: { data: { type: 'plate_purposes', id: purpose384 } } } } })
  ).data;
  const wells = (await api.json('GET', `/plates/${plate.id}/wells?page%5Bsize%5D=${PLATE_WELLS}`)).data as { id: string }[];
  if (wells.length !== PLATE_WELLS) throw new Error(`the plate has ${wells.length} wells, expected ${PLATE_WELLS}`);
  // Two sequential streams at once: samples, and aliquots putting each sample in its well as soon as it exists.
  const samples: Promise<string>[] = [];
  let created = Promise.resolve('');
  for (let i = 0; i < PLATE_WELLS; i++) {
    const body = {
      data: { type: 'samples', attributes: { name: `seed-${runId}-${i}` }, relationships: { studies: { data: [{ type: 'studies', id: study }] } } },
    };
    created = created.then(async () => (await retrying(() => api.json('POST', '/samples', body))).data.id as string);
    samples.push(created);
    created.catch(() => undefined); // a failure surfaces where the aliquot loop awaits it
  }
  for (const [i, well] of wells.entries()) {
    const sample = await samples[i]!;
    const body = {
      data: { type: 'aliquots', relationships: { receptacle: { data: { type: 'wells', id: well.id } }, sample: { data: { type: 'samples', id: sample } } } },
    };
    await retrying(() => api.json('POST', '/aliquots', body));
  }
  log(
    `seeded ${PLATE_WELLS} samples and a ${PLATE_WELLS}-well plate (${plate.id}) filled through the API in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { study, sampleId: await samples[0]!, plateId: plate.id as string, lab: await seedLab(api, plate.attributes.uuid as string, destinations) };
}

/** The lab scenarios' records: reference uuids, and empty destination plates for each side's stamps. */
async function seedLab(api: HttpClient, plate: string, destinations: number): Promise<Seeded['lab']> {
  const uuid = async (path: string) => (await api.json('GET', path)).data[0].attributes.uuid as string;
  const dilution = (await api.json('GET', '/plate_purposes?filter[name]=Working%20Dilution')).data[0].id as string;
  const body = { data: { type: 'plates', relationships: { purpose: { data: { type: 'plate_purposes', id: dilution } } } } };
  const make = async () => {
    const made: string[] = [];
    for (let i = 0; i < destinations; i++) made.push((await retrying(() => api.json('POST', '/plates', body))).data.attributes.uuid as string);
    return made;
  };
  return {
    plate,
    stampTemplate: await uuid('/transfer_templates?filter[name]=Transfer%20columns%201-12'),
    tagGroup: await uuid('/tag_groups?filter[name]=Test%20Tags%20i7'),
    user: await uuid('/users?filter[login]=admin'),
    destinations: { service: await make(), floor: await make() },
  };
}
