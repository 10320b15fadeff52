import { encodeUuid } from '#lib/store/uuids.ts';
import { readCount } from './floor/count.ts';
import { documentClient, Db, type Item } from './floor/db.ts';
import { nextIds } from './floor/create.ts';
import { countShardKey, entityMarkers, recordIndexKeys, recordKey, termKey } from './floor/keys.ts';
import type { HttpClient } from './http-client.ts';
import type { Writer } from './processes.ts';
import type { OngoingSeeds } from './seed-ongoing.ts';
import type { WorkSeeds } from './seed-work.ts';

export interface Seeded {
  study: string;
  /** A sample for the item GET. */
  sampleId: string;
  /** A 384-well plate with a sample (each with its metadata record) in every well. */
  plateId: string;
  /** A 96-well plate with the first 96 of those samples, one a well. */
  plate96Id: string;
  /** What the lab scenarios name by uuid: the filled plate (stamp source, tag layout target), a stamp template, a tag group, a user. */
  lab: { plate: string; stampTemplate: string; tagGroup: string; user: string; destinations: Record<Writer, string[]> };
  /** Issue 20's lab work (./seed-work.ts), for the scenarios chosen. */
  work?: WorkSeeds;
  /** Limber's ongoing plates (./seed-ongoing.ts), when its scenario is chosen. */
  ongoing?: OngoingSeeds;
}

/** Empty 96-well plates each side stamps into, one per request: a plate takes material from one source once. */
export const stampDestinations = (requests: number) => requests + 8;

const PLATE_WELLS = 384;
const PLATE96_WELLS = 96;
/** The records the `links.next` walk reads (the seeded samples and their metadata records, then the rest written in bulk). */
export const WALK_RECORDS = 9_216;

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
  const plate96 = await fillPlate(api, await first('/plate_purposes?filter[name]=Stock%20Plate'), PLATE96_WELLS, (i) => samples[i]!);
  log(
    `seeded ${PLATE_WELLS} samples and a ${PLATE_WELLS}-well plate (${plate.id}) and a ${PLATE96_WELLS}-well plate (${plate96}) filled through the API in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return {
    study,
    sampleId: await samples[0]!,
    plateId: plate.id as string,
    plate96Id: plate96,
    lab: await seedLab(api, plate.attributes.uuid as string, destinations),
  };
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

/** A new plate of the purpose with `sample(i)` put in its well i (column order), one aliquot at a time; returns its id. */
async function fillPlate(api: HttpClient, purpose: string, size: number, sample: (i: number) => Promise<string>): Promise<string> {
  const plate = (await api.json('POST', '/plates', { data: { type: 'plates', relationships: { purpose: { data: { type: 'plate_purposes', id: purpose } } } } }))
    .data;
  const wells = (await api.json('GET', `/plates/${plate.id}/wells?page%5Bsize%5D=${size}`)).data as { id: string }[];
  if (wells.length !== size) throw new Error(`the plate has ${wells.length} wells, expected ${size}`);
  for (const [i, well] of wells.entries()) {
    const body = {
      data: {
        type: 'aliquots',
        relationships: { receptacle: { data: { type: 'wells', id: well.id } }, sample: { data: { type: 'samples', id: await sample(i) } } },
      },
    };
    await retrying(() => api.json('POST', '/aliquots', body));
  }
  return plate.id as string;
}

/**
 * Tops the service's samples up to `total` in bulk, straight into its table: each new sample a copy of the
 * seeded sample `templateId` (and of its metadata record) with its own id, uuid, name and unique-name item,
 * the ids reserved from the service's sequences with one `ADD` each and the count shards raised by as
 * many, so the service sees records it could have written itself. Through the API this would take minutes.
 */
export async function seedSamplesInBulk(endpoint: string, table: string, templateId: string, total: number, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const db = new Db(documentClient(endpoint));
  const template = await db.get(table, recordKey('samples', Number(templateId)), true);
  const metadataRef = (template?.rels as Record<string, { id: number }> | undefined)?.sample_metadata;
  const metadataTemplate = metadataRef && (await db.get(table, recordKey('sample_metadata', metadataRef.id), true));
  if (!template || !metadataTemplate) throw new Error(`sample ${templateId} or its metadata record is missing`);
  const count = total - (await readCount(db, table, 'samples', 'samples'));
  if (count <= 0) return;
  const reserve = async (family: string) => (await nextIds(db, table, family, count))[0]!;
  const [firstSample, firstMetadata] = [await reserve('samples'), await reserve('sample_metadata')];
  const now = new Date().toISOString();
  const copy = (item: Item, family: string, id: number, attrs: Item, rels: Item): Item => ({
    ...item,
    ...recordKey(family, id),
    ...recordIndexKeys(family, id, now),
    id,
    uuid: encodeUuid(family, id),
    createdAt: now,
    updatedAt: now,
    version: 1,
    attrs,
    rels,
  });
  const items: Item[] = [];
  for (let i = 0; i < count; i++) {
    const [id, metadataId] = [firstSample + i, firstMetadata + i];
    const name = `walk-${id}`;
    const rels = { ...(template.rels as Item), sample_metadata: { type: 'sample_metadata', id: metadataId } };
    items.push(copy(template, 'samples', id, { ...(template.attrs as Item), name }, rels));
    items.push(
      copy(metadataTemplate, 'sample_metadata', metadataId, metadataTemplate.attrs as Item, {
        ...(metadataTemplate.rels as Item),
        sample: { type: 'samples', id },
      }),
    );
    items.push({
      ...termKey('samples.name', name),
      ...entityMarkers('term'),
      scope: 'samples.name',
      value: name,
      ref: '-',
      family: 'samples',
      type: 'samples',
      id,
    });
  }
  // A few writers at once: DynamoDB Local takes batches faster side by side than one after another.
  const writers = 4;
  const share = Math.ceil(items.length / writers / 25) * 25;
  await Promise.all(Array.from({ length: writers }, (_, w) => db.batchPut(table, items.slice(w * share, (w + 1) * share))));
  await db.update({
    TableName: table,
    Key: countShardKey('samples', 0),
    UpdateExpression: 'ADD #s :n, #m :n',
    ExpressionAttributeNames: { '#s': 'n:samples', '#m': 'n:sample_metadata' },
    ExpressionAttributeValues: { ':n': count },
  });
  log(`seeded ${count} more samples (and their metadata) in bulk in ${((performance.now() - started) / 1000).toFixed(1)} s: ${total} to walk`);
}
