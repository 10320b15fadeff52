import { slotId, slotUuid } from '#lib/domain/labware-ids.ts';
import type { HttpClient } from './http-client.ts';
import type { CopyBook } from './seed-books.ts';
import type { Writer } from './processes.ts';

/**
 * The lab work the issue-20 scenarios read and write (issue 20, item 10), made through the service's API
 * (so it holds whatever the service stores requests as): a submission whose library requests come out of
 * stock plates' wells, plates filled from them by transfer request collections as Limber's stamping
 * creators send them, and fresh labware for each write measured. The state change plates' requests alone
 * are copies of one plate's book made through the API (./seed-books.ts): made one by one, they took ten
 * of the bench's nineteen minutes.
 */

export interface WorkSeeds {
  user: string;
  /** Limber's plate page: a full 384-well plate two generations below a stock plate whose wells each have a request. */
  pagePlate?: string;
  /** A 96-entry collection: the stock wells and their requests (uuids), and an empty 96-well plate per request each side sends. */
  collection?: { entries: { source_asset: string; outer_request: string }[]; destinations: Record<Writer, string[]> };
  /** A plate stamped from a stock plate whose wells have requests (pending transfer requests, pending requests), one per request each side sends. */
  stamped?: Record<Writer, string[]>;
  /** Limber's stamp (issue 21, item 6): a 96-well plate whose wells have requests, the child purpose, each entry's source well and outer request. */
  stampCreation?: { parent: string; childPurpose: string; entries: { source_asset: string; outer_request: string }[] };
  /** Limber's MX tubes (issue 21, item 6): a tagged 96-well plate (so 8 samples share a tube), the tubes' purpose, the submission they pool by. */
  tubeCreation?: { parent: string; tubePurpose: string; submission: string };
  /** The rack split (a lab size write): the filled 96-well plate, a rack purpose and a tube purpose, a submission to pool by. */
  rackSplit?: { parent: string; rackPurpose: string; tubePurpose: string; submission: string };
}

/** What to seed: the scenarios chosen, and how many writes each side sends. */
export interface WorkWanted {
  page: boolean;
  collection: boolean;
  stateChange: boolean;
  collectionRequests: number;
  stateChangeRequests: number;
  /** The wells of the plates a state change passes. */
  stateChangeWells: number;
  /** Limber's creators: a plate creation and its stamp, a specific tube creation and its pooling. */
  stampCreation: boolean;
  tubeCreation: boolean;
  rackSplit: boolean;
}

/** The filled plates of the main seed, by size: where stock plates get their samples. */
export type FilledPlates = Record<number, { id: number; uuid: string }>;

type Api = HttpClient;

/** Stamps (or any move) by one transfer request collection, as Limber's creators send it. */
async function collect(api: Api, user: string, entries: Record<string, unknown>[]): Promise<void> {
  await api.json('POST', '/transfer_request_collections', {
    data: { type: 'transfer_request_collections', attributes: { transfer_requests_attributes: entries, user_uuid: user } },
  });
}

interface Plate {
  id: number;
  uuid: string;
}

async function newPlate(api: Api, purpose: string): Promise<Plate> {
  const { data } = await api.json('POST', '/plates', {
    data: { type: 'plates', relationships: { purpose: { data: { type: 'plate_purposes', id: purpose } } } },
  });
  return { id: Number(data.id), uuid: data.attributes.uuid as string };
}

/** A plate of `size` wells stamped well for well from `source` (entries with `extra(slot)` added). */
async function stampedPlate(api: Api, user: string, purpose: string, source: Plate, size: number, extra = (_slot: number) => ({})): Promise<Plate> {
  const plate = await newPlate(api, purpose);
  const slots = Array.from({ length: size }, (_, i) => i + 1);
  await collect(
    api,
    user,
    slots.map((slot) => ({ source_asset: slotUuid(source.uuid, slot), target_asset: slotUuid(plate.uuid, slot), ...extra(slot) })),
  );
  return plate;
}

/** A new submission with one order of Study A for library creation (the work of one stock plate); the ids a request names. */
async function librarySubmission(api: Api): Promise<{ submission: string; order: string; requestType: string }> {
  const first = async (path: string) => (await api.json('GET', path)).data[0].id as string;
  const [study, requestType] = [await first('/studies?filter%5Bname%5D=Study%20A'), await first('/request_types?filter%5Bkey%5D=library_creation')];
  const submission = (await api.json('POST', '/submissions', { data: { type: 'submissions' } })).data.id as string;
  const rel = (type: string, id: string) => ({ data: { type, id } });
  const order = (
    await api.json('POST', '/orders', {
      data: {
        type: 'orders',
        relationships: {
          submission: rel('submissions', submission),
          study: rel('studies', study),
          request_types: { data: [{ type: 'request_types', id: requestType }] },
        },
      },
    })
  ).data.id as string;
  return { submission, order, requestType };
}

/** A library request out of each well of a plate, one after another (they may share a stored item); their uuids by slot. */
async function requestsOut(api: Api, work: Awaited<ReturnType<typeof librarySubmission>>, plate: Plate, size: number): Promise<string[]> {
  const made: string[] = [];
  for (let slot = 1; slot <= size; slot++) {
    const rel = (type: string, id: string) => ({ data: { type, id } });
    const request = await api.json('POST', '/requests', {
      data: {
        type: 'requests',
        relationships: {
          asset: rel('wells', String(slotId(plate.id, slot))),
          request_type: rel('request_types', work.requestType),
          submission: rel('submissions', work.submission),
          order: rel('orders', work.order),
        },
      },
    });
    made.push(request.data.attributes.uuid as string);
  }
  return made;
}

/** Runs `make` `count` times, `parallel` at once (each makes its own labware, so they never write the same item). */
async function many<T>(count: number, parallel: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      for (let i = next++; i < count; i = next++) out[i] = await make(i);
    }),
  );
  return out;
}

/**
 * Plate purposes of a size: an input (stock) one, and a standard one for the plates worked on — where a
 * read does not care (`standard` false), the stock purpose serves when there is no other of that size; where
 * it does and the reference data has none (384 wells), one is registered as Limber registers its purposes.
 */
async function purposesOfSize(api: Api, size: number, standard: boolean): Promise<{ stock: string; work: string }> {
  const all = (await api.json('GET', '/plate_purposes?page%5Bsize%5D=100')).data as { id: string; attributes: { size: number; input_plate?: boolean } }[];
  const sized = all.filter((p) => p.attributes.size === size);
  const stock = sized.find((p) => p.attributes.input_plate === true);
  if (!stock) throw new Error(`no input plate purpose of ${size} wells to seed the lab work with`);
  const work = sized.find((p) => p.attributes.input_plate !== true)?.id ?? (standard ? await registerPurpose(api, size) : stock.id);
  return { stock: stock.id, work };
}

/** A standard plate purpose of a size, registered (the bench's key is an admin key); its id. */
export async function registerPurpose(api: Api, size: number, name = `Bench Work ${size}`): Promise<string> {
  const attributes = { name, size, stock_plate: false, input_plate: false, asset_shape: 'Standard' };
  return (await api.json('POST', '/plate_purposes', { data: { type: 'plate_purposes', attributes } })).data.id as string;
}

export async function seedWork(api: Api, filled: FilledPlates, wanted: WorkWanted, copyBook: CopyBook, log: (line: string) => void): Promise<WorkSeeds> {
  const started = performance.now();
  const user = (await api.json('GET', '/users?filter%5Blogin%5D=admin')).data[0].attributes.uuid as string;
  const seeds: WorkSeeds = { user };
  if (!wanted.page && !wanted.collection && !wanted.stateChange && !wanted.stampCreation && !wanted.tubeCreation && !wanted.rackSplit) return seeds;

  if (wanted.page || wanted.collection) {
    const work = await librarySubmission(api);
    // A 384-well stock plate with a request out of every well, stamped twice as Limber's creators stamp (each entry with its outer request, then by submission).
    const purposes = await purposesOfSize(api, 384, false);
    const stock = await stampedPlate(api, user, purposes.stock, filled[384]!, 384);
    const requests = await requestsOut(api, work, stock, 384);
    if (wanted.page) {
      const child = await stampedPlate(api, user, purposes.work, stock, 384, (slot) => ({ outer_request: requests[slot - 1] }));
      seeds.pagePlate = (await stampedPlate(api, user, purposes.work, child, 384, () => ({ submission_id: Number(work.submission) }))).uuid;
    }
    if (wanted.collection) {
      const working = (await purposesOfSize(api, 96, true)).work;
      const plates = () =>
        many(wanted.collectionRequests, 4, async () => {
          return (await newPlate(api, working)).uuid;
        });
      seeds.collection = {
        entries: Array.from({ length: 96 }, (_, i) => ({ source_asset: slotUuid(stock.uuid, i + 1), outer_request: requests[i]! })),
        destinations: { service: await plates(), floor: await plates() },
      };
    }
  }

  if (wanted.stateChange) {
    const size = wanted.stateChangeWells;
    const purposes = await purposesOfSize(api, size, true);
    // Each its own stock plate, submission and requests: a first pass starts its requests, so no two plates may
    // share them. One plate's requests are made through the API; every other plate's are a copy of its book.
    const stockOfItsOwn = async () => ({ work: await librarySubmission(api), stock: await stampedPlate(api, user, purposes.stock, filled[size]!, size) });
    const template = await stockOfItsOwn();
    const [templateRequest] = await requestsOut(api, template.work, template.stock, size);
    const workPlates = () =>
      many(wanted.stateChangeRequests, 4, async () => {
        const { work, stock } = await stockOfItsOwn();
        const requests = await copyBook(templateRequest!, { plate: stock.id, submission: Number(work.submission), order: Number(work.order) });
        return (await stampedPlate(api, user, purposes.work, stock, size, (slot) => ({ outer_request: requests[slot - 1] }))).uuid;
      });
    seeds.stamped = { service: await workPlates(), floor: await workPlates() };
  }
  if (wanted.stampCreation || wanted.tubeCreation) await seedCreators(api, filled[96]!, user, wanted, seeds);
  if (wanted.rackSplit) {
    const firstUuid = async (path: string) => (await api.json('GET', path)).data[0].attributes.uuid as string;
    seeds.rackSplit = {
      parent: filled[96]!.uuid,
      rackPurpose: await firstUuid('/tube_rack_purposes?page%5Bsize%5D=1'),
      tubePurpose: await firstUuid('/tube_purposes?filter%5Bname%5D=MX%20Tube'),
      submission: (await api.json('GET', `/submissions/${(await librarySubmission(api)).submission}`)).data.attributes.uuid as string,
    };
  }
  log(`seeded the lab work (issue 20's and 21's scenarios) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return seeds;
}

/**
 * What Limber's creators start from (issue 21, item 6). Every request makes its own labware, so one parent
 * serves them all: the stamp's a 96-well stock plate with a request out of each well, the pooling's a
 * stamped copy of the filled plate tagged by a tag layout (8 wells of distinct samples and tags to a tube).
 */
async function seedCreators(api: Api, filled: Plate, user: string, wanted: WorkWanted, seeds: WorkSeeds): Promise<void> {
  const purposes = await purposesOfSize(api, 96, true);
  const uuidOf = async (path: string) => (await api.json('GET', path)).data.attributes.uuid as string;
  const childPurpose = await uuidOf(`/plate_purposes/${purposes.work}`);
  if (wanted.stampCreation) {
    const work = await librarySubmission(api);
    const stock = await stampedPlate(api, user, purposes.stock, filled, 96);
    const requests = await requestsOut(api, work, stock, 96);
    seeds.stampCreation = {
      parent: stock.uuid,
      childPurpose,
      entries: requests.map((request, i) => ({ source_asset: slotUuid(stock.uuid, i + 1), outer_request: request })),
    };
  }
  if (wanted.tubeCreation) {
    const tagGroup = (await api.json('GET', '/tag_groups?filter%5Bname%5D=Test%20Tags%20i7')).data[0].attributes.uuid as string;
    const tubePurpose = (await api.json('GET', '/tube_purposes?filter%5Bname%5D=MX%20Tube')).data[0].attributes.uuid as string;
    const plate = await stampedPlate(api, user, purposes.work, filled, 96);
    await api.json('POST', '/tag_layouts', {
      data: {
        type: 'tag_layouts',
        attributes: { plate_uuid: plate.uuid, tag_group_uuid: tagGroup, direction: 'column', walking_by: 'wells of plate', initial_tag: 0, user_uuid: user },
      },
    });
    const submission = await uuidOf(`/submissions/${(await librarySubmission(api)).submission}`);
    seeds.tubeCreation = { parent: plate.uuid, tubePurpose, submission };
  }
}
