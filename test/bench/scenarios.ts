import { aliquotId, slotUuid } from '#lib/domain/labware-ids.ts';
import { sumCapacity, type Reply } from './http-client.ts';
import type { Capacity } from '#lib/store/client.ts';
import type { Send, Plan, Side } from './measure.ts';
import type { Writer } from './processes.ts';
import { PRESENTER_INCLUDE } from './floor/plate-page.ts';
import { WALK_RECORDS, type Seeded } from './seed.ts';
import type { ChildrenOf } from './children.ts';
import type { WorkSeeds } from './seed-work.ts';
import { ONGOING_PLATE_COUNT, type OngoingSeeds } from './seed-ongoing.ts';
import { LIMBER_ACCEPT_ENCODING, ongoingPlatesQuery, SEARCH_PER_PAGE } from '../support/limber.ts';

/** A write scenario's side, whose seeded labware is its own: the service or the design floor (the physical floor only reads). */
function writer(side: Side): Writer {
  if (side.role === 'physical') throw new Error('the physical floor answers reads only');
  return side.role;
}

/** The targets: read ratios at most `max` (p50 and CPU), create throughput at least `min` of the floor's. */
export type Target = { kind: 'latency'; max: number } | { kind: 'throughput'; min: number };

export interface Scenario {
  name: string;
  plan: Plan;
  target: Target;
  send: Send;
  /** Whether the floor's answer is compared with the service's (reads: the same document; writes differ in ids and times). */
  compare: boolean;
  /** Writes: the transactions of one request (or unit of requests) whose items the floor's must match, by shape (./write-shapes.ts). */
  transactions?: number;
}

export const PLATE_INCLUDE = 'wells.aliquots.sample.sample_metadata';
export const CREATE_CONCURRENCY = [1, 10, 50] as const;
const READ_MIN_WINDOW_MS = 750;
const READ_WARMUP_MS = 1_500;
/** A create batch sends for BENCH_ITERATIONS × this (3.8 s by default). */
const CREATE_WINDOW_MS_PER_ITERATION = 80;

const WALK_PAGE_SIZE = 100;

/**
 * Follows `links.next` from `path` to the last page, as a client reading a whole listing does, sending
 * `headers` with each page. The reply is the walk's: the first failure's status or 200, the whole walk's time
 * and DynamoDB calls (the client's own inflating and parsing between pages not counted), and every page's data
 * and included resources, links, meta and encoding (so the answers of both sides are compared whole), and the
 * capacity units of all its pages.
 */
export async function walk(side: Side, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const [data, included, pages]: [unknown[], unknown[], unknown[]] = [[], [], []];
  let [ms, calls] = [0, 0];
  let capacity: Capacity | undefined = { read: 0, write: 0 };
  for (let next: string | undefined = path; next !== undefined; ) {
    const reply = await side.client.send('GET', next, undefined, headers);
    [ms, calls, capacity] = [ms + reply.ms, calls + reply.calls, sumCapacity(capacity, reply.capacity)];
    if (reply.status !== 200) return { ...reply, ms, calls };
    const page = JSON.parse(reply.text) as { data: unknown[]; included?: unknown[]; links?: { next?: string }; meta?: unknown };
    data.push(...page.data);
    included.push(...(page.included ?? []));
    pages.push({ links: page.links, meta: page.meta, encoding: reply.encoding ?? 'identity' });
    next = page.links?.next?.slice(`${side.server.url}/api/v2`.length);
  }
  return { status: 200, ms, calls, text: JSON.stringify({ data, included, pages }), ...(capacity ? { capacity } : {}) };
}

/** The requests the bench compares, the same request to both sides. */
export function scenarios(seeded: Seeded, iterations: number, runId: string, childrenOf: ChildrenOf): Scenario[] {
  // Reads: sequential, in 4 rounds per side (ABBA twice). A batch is at least BENCH_ITERATIONS/4 requests
  // and at least READ_MIN_WINDOW_MS long: a cheap GET then gets hundreds of samples, enough for a CPU
  // figure that one garbage collection does not swing. The warm-up is long because V8 keeps optimising the
  // request path for a few hundred requests.
  const rounds = 4;
  const readPlan: Plan = {
    concurrency: 1,
    batch: Math.max(1, Math.ceil(iterations / rounds)),
    minWindowMs: READ_MIN_WINDOW_MS,
    rounds,
    warmup: 1_000,
    warmupWindowMs: READ_WARMUP_MS,
  };
  const reads: Scenario[] = [
    {
      name: 'GET /samples/{id}',
      plan: readPlan,
      target: { kind: 'latency', max: 1.5 },
      compare: true,
      send: (side) => side.client.send('GET', `/samples/${seeded.sampleId}`),
    },
    {
      name: 'GET /samples?page[size]=100',
      plan: readPlan,
      target: { kind: 'latency', max: 2 },
      compare: true,
      send: (side) => side.client.send('GET', '/samples?page%5Bsize%5D=100'),
    },
    {
      name: `GET /plates/{id}?include=… (96 filled)`,
      plan: readPlan,
      target: { kind: 'latency', max: 2 },
      compare: true,
      send: (side) => side.client.send('GET', `/plates/${seeded.plate96Id}?include=${PLATE_INCLUDE}`),
    },
    {
      name: `GET /plates/{id}?include=… (384 filled)`,
      plan: readPlan,
      target: { kind: 'latency', max: 2 },
      compare: true,
      send: (side) => side.client.send('GET', `/plates/${seeded.plateId}?include=${PLATE_INCLUDE}`),
    },
    {
      name: `GET /samples, links.next walk (${WALK_RECORDS.toLocaleString('en')} records)`,
      // One walk is one measured "request" (its latency the whole walk's): a few walks a side, ABBA.
      plan: { concurrency: 1, batch: 1, rounds: 4, warmup: 1 },
      target: { kind: 'latency', max: 2 },
      compare: true,
      send: (side) => walk(side, `/samples?page%5Bsize%5D=${WALK_PAGE_SIZE}`),
    },
  ];
  // Creates: every client sends back to back until the batch's window closes, then the batch waits for the
  // replies in flight; creates/s is 2xx replies ÷ that whole time, ramp-up and tail included on both sides.
  // Two rounds (service-floor, floor-service): a slow service under 50 clients has a tail of seconds.
  // Each is warmed up (its servers are fresh: ./run.ts) by at most 30 creates in at most a second.
  const creates: Scenario[] = CREATE_CONCURRENCY.map((concurrency) => ({
    name: `POST /samples × ${concurrency} client${concurrency > 1 ? 's' : ''}`,
    plan: {
      concurrency,
      batch: Infinity,
      windowMs: iterations * CREATE_WINDOW_MS_PER_ITERATION,
      rounds: 2,
      warmup: 30,
      warmupWindowMs: 1_000,
    },
    target: { kind: 'throughput', min: 0.5 },
    compare: false,
    transactions: 1,
    // Names differ between the sides by a number only, which the write parity check reads past (./write-shapes.ts).
    send: (side, i) =>
      side.client.send('POST', '/samples', {
        data: {
          type: 'samples',
          attributes: { name: `bench-${runId}-${side.role === 'service' ? 1 : 2}-${concurrency}-${i}` },
          relationships: { studies: { data: [{ type: 'studies', id: seeded.study }] } },
        },
      }),
  }));
  return [
    ...reads,
    ...ongoingPlates(seeded.ongoing),
    ...creates,
    ...labWrites(seeded, iterations),
    ...labWork(seeded.work, iterations),
    ...limberCreators(seeded.work, iterations, childrenOf),
    ...labSize(seeded, iterations, runId, childrenOf),
  ];
}

/** Limber's ongoing-plates page (contract §7.2), by name: BENCH_ONLY=`ongoing plates` picks it. */
export const ONGOING_PLATES = `GET Limber's ongoing plates (Plate::DEFAULT_INCLUDES, ${ONGOING_PLATE_COUNT} submitted 96-well plates, ${SEARCH_PER_PAGE} a page, gzip), links.next walk`;

/**
 * Limber's ongoing-plates search as its client sends it (search_controller.rb `ongoing_plates`: the purpose
 * picked, the six states, `include_used` false, Plate::DEFAULT_INCLUDES, 30 a page, Faraday's encoding and
 * Accept-Encoding), walked by `links.next` to its end, the walk measured as one unit: its first page of 30
 * plates is ~25 MB of JSON, ~1.6 MB gzip, so a walk is a few walks' worth of the other reads' work.
 */
function ongoingPlates(ongoing: OngoingSeeds | undefined): Scenario[] {
  if (!ongoing) return [];
  return [
    {
      name: ONGOING_PLATES,
      plan: { concurrency: 1, batch: 1, rounds: 4, warmup: 1 },
      target: { kind: 'latency', max: 1.5 },
      compare: true,
      send: (side) => walk(side, `/plates?${ongoingPlatesQuery([ongoing.purpose], 1)}`, { 'Accept-Encoding': LIMBER_ACCEPT_ENCODING }),
    },
  ];
}

/**
 * Warm-up writes each side sends before a lab write's measured ones: enough for V8 to have optimized both
 * sides' code for that write. With 4, a scenario run alone measured mostly the JIT's state: the MX tubes'
 * CPU was 1.14× the floor's with 4 warm-ups, 1.03× with 16, 0.98× with 48 (docs/decisions.md, "Measuring speed"). Each scenario's servers are fresh (./run.ts), so these warm them from cold.
 */
const LAB_WARMUP = 32;

/** The lab writes' plan: sequential, like the reads, but a fixed number of requests (each stamp needs a fresh destination). */
const labPlan = (iterations: number): Plan => ({ concurrency: 1, batch: Math.max(1, Math.ceil(iterations / 4)), rounds: 4, warmup: LAB_WARMUP });

/** Requests each side sends in one lab write scenario (the seed makes a destination plate for each). */
export const labRequests = (iterations: number): number => {
  const plan = labPlan(iterations);
  return plan.batch * plan.rounds + plan.warmup;
};

/**
 * Lab writes, each the same request to both sides: a full 96-well stamp out of the filled plate (its first
 * 96 wells, A1…H12) into an empty plate, and a dual-free tag layout of all 384 wells, its initial tag moving
 * on each time so that every layout rewrites the plate.
 */
function labWrites(seeded: Seeded, iterations: number): Scenario[] {
  const { lab } = seeded;
  const plan = labPlan(iterations);
  return [
    {
      name: 'POST /transfers (a full 96-well stamp)',
      plan,
      target: { kind: 'latency', max: 2 },
      compare: false,
      transactions: 1,
      send: (side, i) =>
        side.client.send('POST', '/transfers', {
          data: {
            type: 'transfers',
            attributes: {
              transfer_template_uuid: lab.stampTemplate,
              source_uuid: lab.plate,
              destination_uuid: lab.destinations[writer(side)][i],
              user_uuid: lab.user,
            },
          },
        }),
    },
    {
      name: 'POST /tag_layouts (384 wells)',
      plan,
      target: { kind: 'latency', max: 2 },
      compare: false,
      transactions: 1,
      send: (side, i) =>
        side.client.send('POST', '/tag_layouts', {
          data: {
            type: 'tag_layouts',
            attributes: {
              plate_uuid: lab.plate,
              tag_group_uuid: lab.tagGroup,
              direction: 'column',
              walking_by: 'wells of plate',
              initial_tag: i % 96,
              replace_tags: true,
              user_uuid: lab.user,
            },
          },
        }),
    },
  ];
}

/** Issue 20's scenarios (item 10), by name: BENCH_ONLY picks them by any part of these (`Limber`: all three). */
export const LAB_WORK = {
  page: "GET Limber's plate page (PLATE_PRESENTER_INCLUDES, 384 wells, 2 generations of parents)",
  collection: 'POST /transfer_request_collections (96 entries, as Limber stamps)',
  stateChange: (wells: number) => `POST /state_changes (a ${wells}-well plate's first pass, as Limber passes it)`,
};

/** The wells of the plate each state change passes: the largest plate, whose requests move in one transaction (request books). */
export const STATE_CHANGE_WELLS = 384;

/** Requests each side sends in the lab work write scenarios (the seed makes fresh labware for each). */
export const labWorkRequests = (iterations: number) => ({
  collection: labRequests(iterations),
  // Each needs a stamped plate of its own with its requests (copied: ./seed-books.ts), ~1 s to seed. As
  // many are measured as of the other lab writes: with 12, its CPU ratio ranged over 1.08–1.80× from one
  // whole run to the next (docs/decisions.md, "Measuring speed").
  stateChange: labRequests(iterations),
});

const encode = (text: string) => text.replace(/[^A-Za-z0-9._~-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

/** Limber's plate page of a plate, by uuid, as its client asks for it (`plate_for_presenter`), under /api/v2. */
export const plateForPresenterPath = (uuid: string): string =>
  `/plates?${encode('fields[sample_metadata]')}=${encode('sample_common_name,collected_by,sample_description')}&${encode('fields[submissions]')}=${encode('lanes_of_sequencing,multiplexed?')}&${encode('filter[uuid]')}=${uuid}&include=${encode(PRESENTER_INCLUDE)}`;

/**
 * Limber's plate page as its client sends it (`plate_for_presenter`: the includes and fields of v2.rb,
 * Faraday's encoding with sorted keys), a 96-entry transfer request collection as its stamping creators send
 * it (each entry with its outer request), and a plate's first pass (every well's transfer request passed,
 * every outer request started).
 */
function labWork(work: WorkSeeds | undefined, iterations: number): Scenario[] {
  if (!work) return [];
  const page = work.pagePlate;
  const collection = work.collection;
  const stamped = work.stamped;
  return [
    ...(page
      ? [
          {
            name: LAB_WORK.page,
            plan: {
              concurrency: 1,
              batch: Math.max(1, Math.ceil(iterations / 4)),
              minWindowMs: READ_MIN_WINDOW_MS,
              rounds: 4,
              warmup: 20,
              warmupWindowMs: READ_WARMUP_MS,
            },
            target: { kind: 'latency', max: 1.5 } as const,
            compare: true,
            send: (side: Side) => side.client.send('GET', plateForPresenterPath(page)),
          },
        ]
      : []),
    ...(collection
      ? [
          {
            name: LAB_WORK.collection,
            plan: labPlan(iterations),
            target: { kind: 'latency', max: 1.5 } as const,
            compare: false,
            transactions: 1,
            send: (side: Side, i: number) =>
              side.client.send('POST', '/transfer_request_collections', {
                data: {
                  type: 'transfer_request_collections',
                  attributes: {
                    transfer_requests_attributes: collection.entries.map((e, slot) => ({
                      ...e,
                      target_asset: slotUuid(collection.destinations[writer(side)][i]!, slot + 1),
                    })),
                    user_uuid: work.user,
                  },
                },
              }),
          },
        ]
      : []),
    ...(stamped
      ? [
          {
            name: LAB_WORK.stateChange(STATE_CHANGE_WELLS),
            plan: labPlan(iterations),
            target: { kind: 'latency', max: 1.5 } as const,
            compare: false,
            send: (side: Side, i: number) =>
              side.client.send('POST', '/state_changes', {
                data: { type: 'state_changes', attributes: { target_uuid: stamped[writer(side)][i], target_state: 'passed', user_uuid: work.user } },
              }),
          },
        ]
      : []),
  ];
}

/** Issue 21's scenarios (item 6), by name: BENCH_ONLY=`Limber creat` picks both. */
export const LIMBER_CREATORS = {
  stamp: 'POST plate_creations + transfer_request_collections (96 entries): Limber creates a stamped plate',
  tubes: 'POST specific_tube_creations (12 tubes) + transfer_request_collections (96 entries): Limber creates MX tubes',
};

/** Tubes a specific tube creation makes out of the 96-well plate, 8 wells each. */
export const POOLED_TUBES = 12;

/** Two replies as one: the second's status and text, both times, DynamoDB calls and capacity units. */
const both = (first: Reply, second: Reply): Reply => {
  const capacity = sumCapacity(first.capacity, second.capacity);
  return { ...second, ms: first.ms + second.ms, calls: first.calls + second.calls, ...(capacity ? { capacity } : {}) };
};

/**
 * Limber's creators as its labware creators call them, each a unit of two writes measured as one: the
 * creation (POST plate_creations or specific_tube_creations, by uuid), then the transfer request collection
 * into the labware it made. Between the two the bench reads the new labware's uuids from DynamoDB itself
 * (./children.ts), outside both servers.
 */
function limberCreators(work: WorkSeeds | undefined, iterations: number, childrenOf: ChildrenOf): Scenario[] {
  const { created, collect } = creatorCalls(work?.user ?? '', childrenOf);
  const stamp = work?.stampCreation;
  const tubes = work?.tubeCreation;
  const common = { plan: labPlan(iterations), target: { kind: 'latency', max: 1.5 } as const, compare: false, transactions: 2 };
  return [
    ...(stamp
      ? [
          {
            ...common,
            name: LIMBER_CREATORS.stamp,
            send: async (side: Side) => {
              const { reply, made } = await created(side, 'plate_creations', { child_purpose_uuid: stamp.childPurpose, parent_uuid: stamp.parent }, 'child');
              if (reply.status !== 201) return reply;
              return both(
                reply,
                await collect(
                  side,
                  stamp.entries.map((e, slot) => ({ ...e, target_asset: slotUuid(made[0]!, slot + 1) })),
                ),
              );
            },
          },
        ]
      : []),
    ...(tubes ? [{ ...common, name: LIMBER_CREATORS.tubes, send: tubesFromPlate(tubes, POOLED_TUBES, created, collect) }] : []),
  ];
}

type Created = (side: Side, type: string, attributes: Record<string, unknown>, relationship: string) => Promise<{ reply: Reply; made: string[] }>;
type Collect = (side: Side, entries: Record<string, unknown>[]) => Promise<Reply>;

/** A creator's two calls as `user`: the creation, with the uuids of the labware it made (read from DynamoDB: ./children.ts), and a collection. */
function creatorCalls(user: string, childrenOf: ChildrenOf): { created: Created; collect: Collect } {
  return {
    collect: (side, entries) =>
      side.client.send('POST', '/transfer_request_collections', {
        data: { type: 'transfer_request_collections', attributes: { transfer_requests_attributes: entries, user_uuid: user } },
      }),
    created: async (side, type, attributes, relationship) => {
      const reply = await side.client.send('POST', `/${type}`, { data: { type, attributes: { ...attributes, user_uuid: user } } });
      return { reply, made: reply.status === 201 ? await childrenOf(type, JSON.parse(reply.text).data.id, relationship) : [] };
    },
  };
}

/**
 * Limber's tubes out of a plate, a unit of two writes: a specific tube creation of `count` tubes of one
 * purpose, then the collection pooling the plate's 96 wells into them by submission, 96 ÷ `count` wells
 * to a tube in column order (12: Limber's MX tubes; 96: a tube per well, as its pooled tubes by sample).
 */
function tubesFromPlate(tubes: NonNullable<WorkSeeds['tubeCreation']>, count: number, created: Created, collect: Collect): Send {
  return async (side, i) => {
    const { reply, made } = await created(
      side,
      'specific_tube_creations',
      {
        child_purpose_uuids: Array(count).fill(tubes.tubePurpose),
        parent_uuids: [tubes.parent],
        tube_attributes: Array.from({ length: count }, (_, t) => ({ name: `bench ${side.role} ${i} pool ${t + 1}` })),
      },
      'children',
    );
    if (reply.status !== 201) return reply;
    const perTube = 96 / count;
    const entries = Array.from({ length: 96 }, (_, w) => ({
      source_asset: slotUuid(tubes.parent, w + 1),
      target_asset: made[Math.floor(w / perTube)]!,
      submission: tubes.submission,
    }));
    return both(reply, await collect(side, entries));
  };
}

/** The lab-size scenarios (contract §7.1, §7.2), by name: BENCH_ONLY=`lab size` picks them all. */
export const LAB_SIZE = {
  bulkCreate: 'POST poly_metadata/bulk_create (400 metadata on aliquots): a lab size write',
  tubes: 'POST specific_tube_creations (96 tubes) + transfer_request_collections (96 entries): 96 tubes from a plate, a lab size write',
  rackSplit: 'POST specific_tube_rack_creations (2 racks × 96 new tubes) + transfer_request_collections (192 entries): the rack split, a lab size write',
};

/** A rack's coordinates in column order (A1, B1, … H1, A2, …): where the rack split puts its tubes. */
const rackCoordinate = (n: number) => `${'ABCDEFGH'[n % 8]}${Math.floor(n / 8) + 1}`;

/**
 * Limber's plate split into tube racks (`plate_split_to_tube_racks`), a unit of two writes: a specific
 * tube rack creation of a sequencing and a contingency rack of 96 new tubes each (barcodes given, as a rack
 * scan gives them: unique by side and request; each with its well as `parent_uuids`, which the service
 * accepts and does not use, as the reference), then the collection of 192 entries moving each well into
 * its tube of both racks, by submission (as the MX tubes pool; Limber names the well's outer request).
 */
function rackSplit(split: NonNullable<WorkSeeds['rackSplit']>, created: Created, collect: Collect): Send {
  return async (side, i) => {
    const mark = `${side.role === 'service' ? 1 : 2}${String(i).padStart(3, '0')}`;
    const { reply, made } = await created(
      side,
      'specific_tube_rack_creations',
      {
        parent_uuids: [split.parent],
        tube_rack_attributes: ['SEQ', 'SPR'].map((kind, r) => ({
          tube_rack_name: `${kind} rack`,
          tube_rack_barcode: `TR${r}${mark}`,
          tube_rack_purpose_uuid: split.rackPurpose,
          racked_tubes: Array.from({ length: 96 }, (_, n) => ({
            tube_barcode: `FR${r}${mark}${String(n).padStart(2, '0')}`,
            tube_name: `${kind}:${rackCoordinate(n)}`,
            tube_purpose_uuid: split.tubePurpose,
            tube_position: rackCoordinate(n),
            parent_uuids: [slotUuid(split.parent, n + 1)],
          })),
        })),
      },
      'racked_tubes',
    );
    if (reply.status !== 201) return reply;
    const entries = made.map((tube, t) => ({ source_asset: slotUuid(split.parent, (t % 96) + 1), target_asset: tube, submission: split.submission }));
    return both(reply, await collect(side, entries));
  };
}

/** Poly metadata of one bulk create: the size contract §7.1 names (Limber's balanced pooled tube sends 96 × 2). */
export const BULK_METADATA = 400;

/**
 * A lab-size write is one request of hundreds of items, several transactions on the service's side (a
 * second or more each here): as many are measured as of the lab writes (48 a side at 48 iterations), and
 * fewer warm them up, each request running its item loops hundreds of times. A batch of 12 alone put the
 * same code's CPU ratio anywhere in 1.19–1.54×, and whole runs of 24 a side in 1.17–1.71×
 * (docs/measurements.md, "Measuring speed"): the mean of 48 is what a run can tell.
 */
const largePlan = (iterations: number): Plan => ({ concurrency: 1, batch: Math.max(1, Math.ceil(iterations / 4)), rounds: 4, warmup: 8 });

/**
 * The lab-size writes: `poly_metadata/bulk_create` of 400 metadata on the aliquots of the filled 384-well
 * plate (every key new: its request's number and the side in it); 96 tubes out of the tagged 96-well plate
 * of Limber's MX tubes, a tube a well (the creation 292 items, the collection 100).
 */
function labSize(seeded: Seeded, iterations: number, runId: string, childrenOf: ChildrenOf): Scenario[] {
  const plate = Number(seeded.plateId);
  const tubes = seeded.work?.tubeCreation;
  const split = seeded.work?.rackSplit;
  const { created, collect } = creatorCalls(seeded.work?.user ?? '', childrenOf);
  return [
    ...(split
      ? [
          {
            name: LAB_SIZE.rackSplit,
            plan: largePlan(iterations),
            target: { kind: 'latency', max: 1.5 } as const,
            compare: false,
            send: rackSplit(split, created, collect),
          },
        ]
      : []),
    ...(tubes
      ? [
          {
            name: LAB_SIZE.tubes,
            plan: largePlan(iterations),
            target: { kind: 'latency', max: 1.5 } as const,
            compare: false,
            send: tubesFromPlate(tubes, 96, created, collect),
          },
        ]
      : []),
    {
      name: LAB_SIZE.bulkCreate,
      plan: largePlan(iterations),
      target: { kind: 'latency', max: 1.5 },
      compare: false,
      send: (side, i) =>
        side.client.send('POST', '/poly_metadata/bulk_create', {
          data: Array.from({ length: BULK_METADATA }, (_, n) => ({
            type: 'poly_metadata',
            attributes: { key: `bench_${runId}_${side.role}_${i}_${n}`, value: `value ${n}` },
            relationships: { metadatable: { data: { type: 'aliquots', id: String(aliquotId(plate, (n % 384) + 1)) } } },
          })),
        }),
    },
  ];
}
