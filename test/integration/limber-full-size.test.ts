import { beforeAll, describe, expect, it } from 'vitest';
import {
  auditedTransactionItems,
  stateChangeItems,
  TRANSACTION_ITEM_LIMIT,
  transactionItems,
  transferRequestCollectionItems,
  workCompletionItems,
  writtenItems,
} from '#lib/domain/budgets.ts';
import { slotUuid } from '#lib/domain/labware-ids.ts';
import { emptyReceptacle, type Labware } from '#lib/domain/labware.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { recoverTransactions } from '#lib/store/recovery.ts';
import { clearReferenceCache } from '#lib/store/reference-records.ts';
import { call, doc, idOf, type CallResult } from '../support/api.ts';
import { observeCalls } from '../support/dynamodb-calls.ts';
import { recordCount, uniqueName } from '../support/fixtures.ts';
import { adminUuid, templateUuid, uuidOf } from '../support/lab.ts';
import {
  limberInclude,
  PLATE_PRESENTER_INCLUDES,
  PRESENTER_FIELDS,
  TUBE_DEFAULT_INCLUDES,
  TUBE_RACK_FOR_COMPLETION,
  TUBE_RACK_PRESENTER_INCLUDES,
} from '../support/limber.ts';
import { columnOrder } from '../support/oracles.ts';
import { seedRecords, seedSamples } from '../support/seed.ts';
import { freshStore } from '../support/store.ts';
import { outboxEvents, scanTable, type Envelope } from '../support/table.ts';

/**
 * Limber at full size (contract §7.1): the calls Limber's labware creators send for a whole 96-well plate,
 * in one request each, as its classes send them (sanger/limber at 52d3703, files and lines cited at each),
 * then read as Limber reads next. Each write past one DynamoDB transaction is staged in several calls and
 * is still one write (lib/store/large-write.ts); what each costs in DynamoDB calls is measured and bounded.
 */

beforeAll(freshStore);

let user: string;
let study: number;
const purposes: Record<string, string> = {};
beforeAll(async () => {
  user = await adminUuid();
  study = Number(await idOf('studies', 'name', 'Study A'));
  for (const [type, name] of [
    ['tube_purposes', 'MX Tube'],
    ['tube_purposes', 'Stock Tube'],
    ['tube_rack_purposes', 'Tube Rack 96'],
  ] as const)
    purposes[name] = await uuidOf(type, 'name', name);
});

/** The wells of a 96-well plate in column order: A1, B1, … H12. */
const WELLS = columnOrder(8, 12);

/**
 * A 96-well stock plate, every well holding its own sample of Study A with its own tag (as the plates these
 * creators take: Limber's PooledTubesFromWholePlates needs a tagged plate), stored as the service stores it:
 * 96 samples through the API would cost this file a minute and are not what it is about.
 */
async function stockPlate(): Promise<{ plate: StoredRecord; samples: StoredRecord[] }> {
  const samples = await seedSamples(96, uniqueName('full'));
  const purpose = Number(await idOf('plate_purposes', 'name', 'Stock Plate'));
  const [plate] = await seedRecords('plates', 1, () => {
    const attrs: Labware = {
      name: null,
      barcode: { human_barcode: uniqueName('SP'), machine_barcode: uniqueName('SP'), ean13_barcode: null, external: true },
      state: 'pending',
      size: 96,
      receptacles: samples.map((sample, i) => ({
        ...emptyReceptacle(),
        aliquots: [{ n: i + 1, sample: sample.id, study, tag: { oligo: oligoOf(i), index: i + 1 }, tag2: null, library_type: 'Standard' }],
      })),
      aliquotCount: 96,
    };
    return {
      attrs: attrs as unknown as Record<string, unknown>,
      rels: { purpose: { type: 'plate_purposes', id: purpose }, parents: [], custom_metadatum_collection: null },
    };
  });
  return { plate: plate!, samples };
}

/** A distinct 8-base oligo per tag index. */
const oligoOf = (i: number) => Array.from({ length: 8 }, (_, k) => 'ACGT'[Math.floor(i / 4 ** k) % 4]).join('');

/** Limber's `Model.create!(attributes)`: a POST of the attributes, the user's uuid among them. */
const create = (type: string, attributes: Record<string, unknown>) => call('POST', `/api/v2/${type}`, { body: doc(type, { user_uuid: user, ...attributes }) });

/** The calls a write sends, with no reference record kept by the process (lib/store/reference-records.ts), so two writes read the same. */
function measured<T>(fn: () => Promise<T>) {
  clearReferenceCache();
  return observeCalls(fn);
}

/** A write that must answer 201, measured; what it cost is printed for the report. */
/** Far enough ahead that every large write open now counts as expired to recovery. */
const HOUR_MS = 60 * 60_000;

async function measuredWrite(what: string, send: () => Promise<CallResult>) {
  // A large write answers once applied, unless its request's deadline passed first (a heavily loaded machine):
  // recovery then completes it, and until it does a reader meeting its marks reads once more. Completed here,
  // so the calls counted are the write's own (docs/decisions.md, "Writes past one transaction").
  await recoverTransactions(Date.now() + HOUR_MS);
  const observed = await measured(send);
  expect(observed.result.status, JSON.stringify(observed.result.body).slice(0, 2000)).toBe(201);
  console.info(`[measured] ${what}: ${observed.result.calls} DynamoDB calls`, observed.commands, `transactions ${observed.transactions.join(' ')}`);
  return observed;
}

/** A rack passed as Limber's rack state changers send it (state_changers.rb 127-138): contents nil, the rack's uuid. */
const passRack = (uuid: string) =>
  create('state_changes', { contents: null, customer_accepts_responsibility: null, reason: null, target_state: 'passed', target_uuid: uuid });

/** The events a step added to the outbox: how many of each type. */
async function eventsSince(before: ReadonlySet<string>): Promise<Record<string, number>> {
  const added = (await outboxEvents()).filter((e) => !before.has(e.id));
  const counted: Record<string, number> = {};
  for (const e of added) counted[e.type] = (counted[e.type] ?? 0) + 1;
  return counted;
}
const eventIds = async (): Promise<Set<string>> => new Set((await outboxEvents()).map((e: Envelope) => e.id));

/** Audit trail entries in the table (lib/store/audit-trail.ts): one per labware a write touched. */
const auditItemCount = async () => (await scanTable()).filter((item) => String(item.pk).startsWith('$lts#audit_')).length;

/** A document's included resources by `type:id`. */
const includedOf = (body: any) => new Map<string, any>((body.included ?? []).map((r: any) => [`${r.type}:${r.id}`, r]));

/** The requests each well's material is bound for, as Limber's WellFilter picks them (well_filter.rb 34-45: one active request of the creator's request type; its uuid is the entry's `outer_request`). */
async function libraryRequestsOf(plate: StoredRecord): Promise<Map<string, string>> {
  const res = await call('GET', `/api/v2/plates/${plate.id}?include=wells.requests_as_source.request_type`);
  const included = includedOf(res.body);
  return new Map(
    res.body.data.relationships.wells.data.map((link: any) => {
      const well = included.get(`wells:${link.id}`);
      const library = well.relationships.requests_as_source.data
        .map((r: any) => included.get(`requests:${r.id}`))
        .filter((r: any) => included.get(`request_types:${r.relationships.request_type.data.id}`).attributes.key === 'library_creation');
      expect(library).toHaveLength(1);
      return [well.attributes.position.name, library[0].attributes.uuid];
    }),
  );
}

/**
 * The plate's wells ordered for library creation and sequencing in two submissions, columns 1-6 and 7-12
 * (Limber's SequencescapeSubmission: an order, then `and_submit`): their requests are two request books.
 */
async function submitHalves(plate: StoredRecord): Promise<string[]> {
  const template = await uuidOf('submission_templates', 'name', 'Library Creation - Illumina');
  const options = { library_type: 'Standard', read_length: 150, fragment_size_required_from: '300', fragment_size_required_to: '500' };
  const wells = WELLS.map((_, i) => slotUuid(plate.uuid, i + 1));
  const submissions: string[] = [];
  for (const half of [wells.slice(0, 48), wells.slice(48)]) {
    const order = await call('POST', '/api/v2/orders', {
      body: doc('orders', {
        submission_template_uuid: template,
        submission_template_attributes: { request_options: options, user_uuid: user, asset_uuids: half },
      }),
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const submission = await create('submissions', { order_uuids: [order.body.data.attributes.uuid], and_submit: true });
    expect(submission.status, JSON.stringify(submission.body)).toBe(201);
    submissions.push(submission.body.data.attributes.uuid);
  }
  return submissions;
}

/**
 * The racks as PlateSplitToTubeRacks sends them (plate_split_to_tube_racks.rb 145-151, 619-650, 683-707):
 * the sequencing rack and the contingency rack, each tube at a scanned position with its scanned barcode,
 * named `<prefix>:<stock tube barcode>:<position>`, its parent well named. Limber puts each well in one tube
 * of one rack (at most 96 tubes in all); contract §7.1's size is two racks of 96, so here every well goes
 * into a sequencing tube and a contingency tube (its transfer_request_attributes, 804-818, sends an entry
 * for each tube naming the well, whatever their number).
 */
function splitRacks(plate: StoredRecord, barcodes = { seq: uniqueName('TR'), spr: uniqueName('TR') }, tubePrefix = uniqueName('FX')) {
  const rack = (name: string, prefix: string, barcode: string) => ({
    tube_rack_name: name,
    tube_rack_barcode: barcode,
    tube_rack_purpose_uuid: purposes['Tube Rack 96'],
    racked_tubes: WELLS.map((position, i) => ({
      tube_barcode: `${tubePrefix}${prefix}${i}`,
      tube_name: `${prefix}:NT1:${position}`,
      tube_purpose_uuid: purposes['MX Tube'],
      tube_position: position,
      parent_uuids: [slotUuid(plate.uuid, i + 1)],
    })),
  });
  return [rack('SEQ Tube Rack', 'SEQ', barcodes.seq), rack('SPR Tube Rack', 'SPR', barcodes.spr)];
}

/** The tubes of the racks a creation made, as Limber maps them (plate_split_to_tube_racks.rb 764-775): by barcode, each with its uuid, rack and coordinate. */
async function tubesOfCreation(
  creation: string,
): Promise<{ racks: Map<string, any>; tubes: Map<string, { uuid: string; id: string; rack: string; coordinate: string; name: string }> }> {
  // `.children.index_by(&:name)` (153-161).
  const children = (await call('GET', `/api/v2/specific_tube_rack_creations/${creation}/children`)).body.data;
  const racks = new Map<string, any>(children.map((rack: any) => [rack.attributes.name, rack]));
  const tubes = new Map<string, { uuid: string; id: string; rack: string; coordinate: string; name: string }>();
  for (const rack of children) {
    // json_api_client loads `racked_tubes` and each `tube` as it is used; one include reads the same.
    const read = await call('GET', `/api/v2/tube_racks/${rack.id}?include=racked_tubes.tube`);
    const included = includedOf(read.body);
    for (const link of read.body.data.relationships.racked_tubes.data) {
      const racked = included.get(`racked_tubes:${link.id}`);
      const tube = included.get(`tubes:${racked.relationships.tube.data.id}`);
      tubes.set(tube.attributes.labware_barcode.human_barcode, {
        uuid: tube.attributes.uuid,
        id: tube.id,
        rack: rack.attributes.name,
        coordinate: racked.attributes.coordinate,
        name: tube.attributes.name,
      });
    }
  }
  return { racks, tubes };
}

/**
 * The most TransactWriteItems a write of `changes` records and index entries sends (lib/store/large-write.ts):
 * its intent, its stages of ≤ 99 items (a changed record stages one, or two past 8 KB: its mark and its after-image beside it), the
 * commit point, as many to apply it and the clean-up of its own items. Linear in its size: ~1 call per 25.
 */
const largeWriteBound = (changes: number) => 4 + 2 * Math.ceil((2 * changes) / 99);

/** The calls of a write beside its TransactWriteItems (its reads, its id reservations). */
const besideTransactions = ({ TransactWriteItemsCommand: _, ...others }: Record<string, number>) => others;

/** A tube rack as Limber's rack page reads it (v2.rb TUBE_RACK_PRESENTER_INCLUDES): its tubes by coordinate, each with its state, purpose and aliquots' requests. */
async function rackAsPresented(uuid: string) {
  const res = await call('GET', `/api/v2/tube_racks?filter[uuid]=${uuid}&include=${TUBE_RACK_PRESENTER_INCLUDES}`);
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  const [rack] = res.body.data;
  const included = includedOf(res.body);
  const tubes = rack.relationships.racked_tubes.data.map((link: any) => {
    const racked = included.get(`racked_tubes:${link.id}`);
    const tube = included.get(`tubes:${racked.relationships.tube.data.id}`);
    const receptacle = included.get(`receptacles:${tube.relationships.receptacle.data.id}`);
    const aliquots = receptacle.relationships.aliquots.data.map((a: any) => included.get(`aliquots:${a.id}`));
    return {
      coordinate: racked.attributes.coordinate,
      state: tube.attributes.state,
      purpose: included.get(`purposes:${tube.relationships.purpose.data.id}`).attributes.name,
      requests: aliquots.map((a: any) => {
        const request = included.get(`requests:${a.relationships.request.data.id}`);
        return {
          uuid: request.attributes.uuid,
          state: request.attributes.state,
          key: included.get(`request_types:${request.relationships.request_type.data.id}`).attributes.key,
        };
      }),
    };
  });
  return { state: rack.attributes.state, tubes };
}

describe('PlateSplitToTubeRacks at full size: a 96-well plate into two racks of 96 new tubes, then both racks passed', () => {
  let plate: StoredRecord;
  let submissions: string[];
  let outerRequests: Map<string, string>;
  let layout: Awaited<ReturnType<typeof tubesOfCreation>>;

  beforeAll(async () => {
    ({ plate } = await stockPlate());
    submissions = await submitHalves(plate);
    outerRequests = await libraryRequestsOf(plate);
  });

  it('one specific_tube_rack_creation of 2 × 96 new tubes: 201; both racks and 192 tubes at their positions with their barcodes and names; one event each', {
    timeout: 300_000,
  }, async () => {
    // The same creation at its smallest, for the calls that do not grow with its size.
    const { plate: other } = await stockPlate();
    const small = splitRacks(other).map((rack) => ({ ...rack, racked_tubes: rack.racked_tubes.slice(0, 1) }));
    const smallest = await measuredWrite('rack creation 2 × 1', () =>
      create('specific_tube_rack_creations', { parent_uuids: [other.uuid], tube_rack_attributes: small }),
    );

    const racks = splitRacks(plate);
    const [tubesBefore, racksBefore, events, auditBefore] = await Promise.all([recordCount('tubes'), recordCount('tube_racks'), eventIds(), auditItemCount()]);
    // plate_split_to_tube_racks.rb 157-158: SpecificTubeRackCreation.create!(parent_uuids:, tube_rack_attributes:, user_uuid:).
    const made = await measuredWrite('rack creation 2 × 96', () =>
      create('specific_tube_rack_creations', { parent_uuids: [plate.uuid], tube_rack_attributes: racks }),
    );
    // 391 records and index entries (rackCreationItems(2, 192, 1)): several transactions. Its reads and id
    // reservations are those of two racks of one tube, but one BatchGetItem more: the 194 barcodes' guards are
    // two reads of at most 100 keys.
    expect(smallest.commands.TransactWriteItemsCommand).toBe(1);
    expect(made.commands.TransactWriteItemsCommand).toBeGreaterThan(1);
    expect(made.commands.TransactWriteItemsCommand).toBeLessThanOrEqual(largeWriteBound(391));
    const { BatchGetItemCommand: reads, ...reservations } = besideTransactions(smallest.commands);
    expect(besideTransactions(made.commands)).toEqual({ BatchGetItemCommand: reads! + 1, ...reservations });
    expect(await eventsSince(events)).toEqual({ 'specific_tube_rack_creations.created': 1, 'tube_racks.created': 2, 'tubes.created': 192 });
    expect([await recordCount('tubes'), await recordCount('tube_racks')]).toEqual([tubesBefore + 192, racksBefore + 2]);
    // The audit trail (docs/decisions.md, "Audit trail"): an entry for each labware touched, both racks, 192 tubes and the plate split.
    expect((await auditItemCount()) - auditBefore).toBe(195);

    layout = await tubesOfCreation(made.result.body.data.id);
    expect([...layout.racks.keys()].sort()).toEqual(['SEQ Tube Rack', 'SPR Tube Rack']);
    expect(layout.racks.get('SEQ Tube Rack').attributes.labware_barcode.human_barcode).toBe(racks[0]!.tube_rack_barcode);
    expect(layout.tubes.size).toBe(192);
    for (const rack of racks)
      for (const given of rack.racked_tubes)
        expect(layout.tubes.get(given.tube_barcode)).toMatchObject({ rack: rack.tube_rack_name, coordinate: given.tube_position, name: given.tube_name });
    const children = (await call('GET', `/api/v2/plates/${plate.id}/children`)).body.data;
    expect(children.map((c: any) => c.id).sort()).toEqual([...layout.racks.values()].map((r) => r.id).sort());
  });

  it("then the 192-entry transfer request collection: 201; every tube holds its well's sample, bound for the well's library request; one event each", {
    timeout: 300_000,
  }, async () => {
    const events = await eventIds();
    // plate_split_to_tube_racks.rb 166-171, 804-818, 865-867; the outer request from well_filter.rb 40-41.
    const entries = [...layout.tubes.values()].map((tube) => ({
      source_asset: slotUuid(plate.uuid, WELLS.indexOf(tube.coordinate) + 1),
      target_asset: tube.uuid,
      outer_request: outerRequests.get(tube.coordinate),
    }));
    const moved = await measuredWrite('collection of 192', () => create('transfer_request_collections', { transfer_requests_attributes: entries }));
    // 385 records and index entries (transferRequestCollectionItems(192, 192)); the uuids named read in batches of 100 keys, and the collection's id.
    expect(moved.commands.TransactWriteItemsCommand).toBeLessThanOrEqual(largeWriteBound(385));
    expect(besideTransactions(moved.commands)).toEqual({ BatchGetItemCommand: 3, UpdateItemCommand: 1 });
    expect(await eventsSince(events)).toEqual({ 'transfer_request_collections.created': 1, 'tubes.updated': 192 });

    // Limber redirects to the sequencing rack (plate_split_to_tube_racks.rb 174-176): its page's read.
    for (const name of ['SEQ Tube Rack', 'SPR Tube Rack']) {
      const rack = await rackAsPresented(layout.racks.get(name).attributes.uuid);
      expect(rack.state).toBe('pending');
      expect(rack.tubes).toHaveLength(96);
      for (const tube of rack.tubes) {
        expect(tube).toMatchObject({ state: 'pending', purpose: 'MX Tube' });
        expect(tube.requests).toEqual([{ uuid: outerRequests.get(tube.coordinate), state: 'pending', key: 'library_creation' }]);
      }
    }
  });

  it("both racks passed as Limber's rack state changers pass them: the sequencing rack with its work completed, then the contingency rack", {
    timeout: 300_000,
  }, async () => {
    const seq = layout.racks.get('SEQ Tube Rack');
    // AutomaticTubeRackStateChanger (state_changers.rb 181-187): the rack read for completion, then the state change, then the work completion.
    const forCompletion = await call('GET', `/api/v2/tube_racks?filter[uuid]=${seq.attributes.uuid}&include=${TUBE_RACK_FOR_COMPLETION}`);
    const included = includedOf(forCompletion.body);
    const inProgress = [
      ...new Set(
        [...included.values()]
          .filter((r) => r.type === 'requests')
          .map((r) => included.get(`submissions:${r.relationships.submission.data.id}`).attributes.uuid),
      ),
    ];
    expect(inProgress.sort()).toEqual([...submissions].sort());
    let events = await eventIds();
    // The rack and its 96 tubes, the two books of their library requests (started), the change: 100 records, past
    // one transaction (with its count shard and request item, 102).
    const passed = await measuredWrite('state change of a rack of 96 with its requests', () => passRack(seq.attributes.uuid));
    expect(passed.commands.TransactWriteItemsCommand).toBeGreaterThan(1);
    // With an audit entry for the rack and each tube (docs/decisions.md, "Audit trail").
    expect(passed.commands.TransactWriteItemsCommand).toBeLessThanOrEqual(largeWriteBound(writtenItems(stateChangeItems(97, 2)) + 97));
    // Five batched reads, one after another (lib/operations/state-change.ts, readStateChange; the reference cache cleared):
    // the rack with the user, its purpose, its 96 tubes, their requests' books, the requests' types. Its qcable, if any (Query);
    // the change's id (UpdateItem). The audit trail reads nothing more: its entries name the labware by id, so the stock
    // plate the requests' wells are in is not read for its entry (lib/jsonapi/audit.ts).
    const { BatchGetItemCommand: batchReads, ...others } = besideTransactions(passed.commands);
    expect(batchReads).toBe(5);
    expect(others).toEqual({ QueryCommand: 1, UpdateItemCommand: 1 });
    expect(await eventsSince(events)).toEqual({
      'state_changes.created': 1,
      'tube_racks.state_changed': 1,
      'tubes.state_changed': 96,
      'requests.state_changed': 96,
    });

    events = await eventIds();
    // state_changers.rb 52-62: the library requests pass, linked to their tubes; their sequencing requests move
    // onto the tubes, so each book is indexed under its 48 tubes: 99 records and index entries, past one transaction (101).
    const completed = await measuredWrite('work completion of a rack of 96', () =>
      create('work_completions', { submission_uuids: inProgress, target_uuid: seq.attributes.uuid }),
    );
    expect(transactionItems(workCompletionItems(2, 96))).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    expect(completed.commands.TransactWriteItemsCommand).toBeGreaterThan(1);
    // With an audit entry for each labware its requests name: the plate and the rack's 96 tubes.
    expect(completed.commands.TransactWriteItemsCommand).toBeLessThanOrEqual(largeWriteBound(writtenItems(workCompletionItems(2, 96)) + 97));
    expect(await eventsSince(events)).toEqual({ 'work_completions.created': 1, 'requests.state_changed': 96, 'requests.updated': 96 });

    const spr = layout.racks.get('SPR Tube Rack');
    events = await eventIds();
    // TubeRackStateChanger (state_changers.rb 143-178): passed is not a state whose contents it filters, so contents nil.
    // Its requests have passed already: the rack, 96 tubes and the change, 100 items; with an audit entry for the rack and
    // each tube, past one transaction.
    const sprPassed = await measuredWrite('state change of a rack of 96', () => passRack(spr.attributes.uuid));
    expect(auditedTransactionItems(stateChangeItems(97, 0), 97)).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    expect(sprPassed.transactions.length).toBeGreaterThan(1);
    expect(sprPassed.commands.TransactWriteItemsCommand).toBeLessThanOrEqual(largeWriteBound(writtenItems(stateChangeItems(97, 0)) + 97));
    expect(await eventsSince(events)).toEqual({ 'state_changes.created': 1, 'tube_racks.state_changed': 1, 'tubes.state_changed': 96 });

    for (const name of ['SEQ Tube Rack', 'SPR Tube Rack']) {
      const rack = await rackAsPresented(layout.racks.get(name).attributes.uuid);
      expect(rack.state).toBe('passed');
      for (const tube of rack.tubes) expect(tube).toMatchObject({ state: 'passed', requests: [{ uuid: outerRequests.get(tube.coordinate), state: 'passed' }] });
    }
    // The work goes on from the sequencing tubes: each one's sequencing request starts there.
    const next = await call('GET', `/api/v2/tube_racks/${seq.id}?include=racked_tubes.tube.receptacle.requests_as_source.request_type`);
    const found = includedOf(next.body);
    const sequencing = [...found.values()].filter((r) => r.type === 'requests');
    expect(sequencing).toHaveLength(96);
    for (const request of sequencing) {
      expect(request.attributes.state).toBe('pending');
      expect(found.get(`request_types:${request.relationships.request_type.data.id}`).attributes.key).toBe('sequencing');
    }
  });
});

describe('PooledTubesBySample at full size: 96 tubes from one plate, then the collection into them', () => {
  it('one specific_tube_creation of 96 named tubes with their scanned barcodes, then 96 entries as the creator sends them: every tube holds its sample; the plate finds its tubes downstream', {
    timeout: 300_000,
  }, async () => {
    const { plate, samples } = await stockPlate();
    // The same creation of one tube, for the calls that do not grow with its size.
    const one = await measuredWrite('specific tube creation of 1', () =>
      create('specific_tube_creations', {
        child_purpose_uuids: [purposes['Stock Tube']],
        parent_uuids: [plate.uuid],
        tube_attributes: [{ name: 'one', foreign_barcode: uniqueName('FD') }],
      }),
    );
    const [tubesBefore, events] = await Promise.all([recordCount('tubes'), eventIds()]);
    // pooled_tubes_by_sample.rb 45-55, 103-117: one tube per pool (a sample), named `<stock tube barcode>:<position>`, its scanned barcode as foreign_barcode.
    const tubeAttributes = WELLS.map((position, i) => ({ name: `NT${1000 + i}:${position}`, foreign_barcode: uniqueName(`FD${i}-`) }));
    const made = await measuredWrite('specific tube creation of 96', () =>
      create('specific_tube_creations', {
        child_purpose_uuids: Array(96).fill(purposes['Stock Tube']),
        parent_uuids: [plate.uuid],
        tube_attributes: tubeAttributes,
      }),
    );
    // 289 records and index entries (labwareCreationItems(96, 1)).
    expect(made.commands.TransactWriteItemsCommand).toBeGreaterThan(1);
    expect(made.commands.TransactWriteItemsCommand).toBeLessThanOrEqual(largeWriteBound(289));
    expect(besideTransactions(made.commands)).toEqual(besideTransactions(one.commands));
    expect(await eventsSince(events)).toEqual({ 'specific_tube_creations.created': 1, 'tubes.created': 96 });
    expect(await recordCount('tubes')).toBe(tubesBefore + 96);

    // `.children.index_by(&:name)` (55).
    const children = (await call('GET', `/api/v2/specific_tube_creations/${made.result.body.data.id}/children?page[size]=100`)).body.data;
    const byName = new Map<string, any>(children.map((tube: any) => [tube.attributes.name, tube]));
    expect([...byName.keys()]).toEqual(tubeAttributes.map((t) => t.name));
    for (const given of tubeAttributes) expect(byName.get(given.name).attributes.labware_barcode.human_barcode).toBe(given.foreign_barcode);

    // transfer_request_attributes (64-74, 255-257): the pool's identifier — its sample's uuid — as `submission`, merge_equivalent_aliquots.
    const entries = WELLS.map((_, i) => ({
      source_asset: slotUuid(plate.uuid, i + 1),
      target_asset: byName.get(tubeAttributes[i]!.name).attributes.uuid,
      submission: samples[i]!.uuid,
      merge_equivalent_aliquots: true,
    }));
    const collectionEvents = await eventIds();
    const moved = await measuredWrite('collection of 96 into 96 tubes', () =>
      create('transfer_request_collections', { transfer_requests_attributes: entries }),
    );
    // The tubes are the plate's children already: 97 records (transferRequestCollectionItems(96, 0)), 100 items; with an
    // audit entry for the plate and each tube, past one transaction.
    expect(auditedTransactionItems(transferRequestCollectionItems(96, 0), 97)).toBeGreaterThan(TRANSACTION_ITEM_LIMIT);
    expect(moved.transactions.length).toBeGreaterThan(1);
    expect(moved.commands.TransactWriteItemsCommand).toBeLessThanOrEqual(largeWriteBound(writtenItems(transferRequestCollectionItems(96, 0)) + 97));
    expect(await eventsSince(collectionEvents)).toEqual({ 'transfer_request_collections.created': 1, 'tubes.updated': 96 });

    // Limber redirects to the parent plate (pooled_tubes_base.rb 66-68): its page's read, each well's downstream tube holding its sample.
    const page = await call('GET', `/api/v2/plates?filter[uuid]=${plate.uuid}&include=${limberInclude(PLATE_PRESENTER_INCLUDES)}&${PRESENTER_FIELDS}`);
    expect(page.status, JSON.stringify(page.body).slice(0, 500)).toBe(200);
    const included = includedOf(page.body);
    for (const link of page.body.data[0].relationships.wells.data) {
      const well = included.get(`wells:${link.id}`);
      const [downstream] = well.relationships.downstream_tubes.data;
      expect(well.relationships.downstream_tubes.data).toHaveLength(1);
      expect(included.get(`tubes:${downstream.id}`).attributes.name).toBe(tubeAttributes[WELLS.indexOf(well.attributes.position.name)]!.name);
    }
    const tube = await call('GET', `/api/v2/tubes/${byName.get(tubeAttributes[95]!.name).id}?include=${TUBE_DEFAULT_INCLUDES},receptacle.aliquots.sample`);
    const sampleIds = [...includedOf(tube.body).values()].filter((r) => r.type === 'samples').map((r) => r.id);
    expect(sampleIds).toEqual([String(samples[95]!.id)]);
  });
});

describe('BalancedPooledTube at full size: a whole tagged plate into one tube, then the balancing variables of its 96 aliquots in one bulk_create', () => {
  it('poly_metadata/bulk_create of 96 × 10 as the creator sends them: 201, every metadatum readable on its aliquot, one event each', {
    timeout: 300_000,
  }, async () => {
    const { plate } = await stockPlate();
    // PooledTubesFromWholePlates#create_labware! (pooled_tubes_from_whole_plates.rb 17-35): one tube, then the plate transferred into it.
    const made = await create('specific_tube_creations', { child_purpose_uuids: [purposes['MX Tube']], parent_uuids: [plate.uuid], tube_attributes: [{}] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const [child] = (await call('GET', `/api/v2/specific_tube_creations/${made.body.data.id}/children`)).body.data;
    const transfer = await create('transfers', {
      transfer_template_uuid: await templateUuid('Whole plate to tube'),
      source_uuid: plate.uuid,
      destination_uuid: child.attributes.uuid,
    });
    expect(transfer.status, JSON.stringify(transfer.body).slice(0, 1000)).toBe(201);
    // balanced_pooled_tube.rb 95-100: Tube.find_by(uuid:, includes: 'aliquots').
    const tube = await call('GET', `/api/v2/tubes?filter[uuid]=${child.attributes.uuid}&include=aliquots`);
    const aliquots = tube.body.included.filter((r: any) => r.type === 'aliquots');
    expect(aliquots).toHaveLength(96);
    // balancing_calculator.rb 46-63: ten variables per sample, keyed by tag index − 1 (balanced_pooled_tube.rb 67-78).
    const variables = (index: number) => ({
      sample: `S${index + 1}`,
      barcode: `Z${String(index + 1).padStart(4, '0')}`,
      pf_barcode_reads: String(1_500_000 + index),
      mean_cvg: '50.0',
      'CovNeed Waf2&3': '100.0',
      'PoolCF Waf2&3': '1.0',
      'ExpCov Waf2': '50.0',
      'Average Cov Waf1': '75.0',
      'Vol to pool': (10 + index / 100).toFixed(4),
      batch_id: '12345',
    });
    // PolyMetadatum.as_bulk_payload (poly_metadatum.rb 41-57): one resource object per key, its aliquot as metadatable.
    const data = aliquots.flatMap((aliquot: any) =>
      Object.entries(variables(aliquot.attributes.tag_index - 1)).map(([key, value]) => ({
        type: 'poly_metadata',
        attributes: { key, value },
        relationships: { metadatable: { data: { type: 'aliquots', id: aliquot.id } } },
      })),
    );
    expect(data).toHaveLength(960);
    const [metadataBefore, events] = await Promise.all([recordCount('poly_metadata'), eventIds()]);
    const bulk = await measuredWrite('bulk_create of 960', () => call('POST', '/api/v2/poly_metadata/bulk_create', { body: { data } }));
    // 3,840 records and index entries (4 each: lib/domain/budgets.ts, polyMetadataItems), near the bound of one
    // request; the 960 keys' guards and the aliquots' labware read in batches of 100 keys, one id reservation.
    expect(bulk.commands.TransactWriteItemsCommand).toBeLessThanOrEqual(largeWriteBound(3_840));
    expect(bulk.commands.BatchGetItemCommand).toBeLessThanOrEqual(Math.ceil(960 / 100) + 1);
    expect(bulk.result.body.data).toHaveLength(960);
    expect(await recordCount('poly_metadata')).toBe(metadataBefore + 960);
    expect(await eventsSince(events)).toEqual({ 'poly_metadata.created': 960 });

    // Read back as the tube's aliquots' metadata: each aliquot its ten, with the values sent.
    const read = await call('GET', `/api/v2/tubes/${child.id}?include=aliquots.poly_metadata`);
    const included = includedOf(read.body);
    for (const aliquot of aliquots) {
      const held = included.get(`aliquots:${aliquot.id}`).relationships.poly_metadata.data.map((m: any) => included.get(`poly_metadata:${m.id}`).attributes);
      expect(Object.fromEntries(held.map((m: any) => [m.key, m.value]))).toEqual(variables(aliquot.attributes.tag_index - 1));
    }
  });
});

describe('two plate splits of one plate at once (the same scanned racks, sent twice)', () => {
  it('exactly one wins; the other is refused and writes nothing: two racks, 192 tubes, each barcode one tube, each rack only its own tubes', {
    timeout: 300_000,
  }, async () => {
    const { plate } = await stockPlate();
    const racks = splitRacks(plate);
    const [tubesBefore, racksBefore, events, auditBefore] = await Promise.all([recordCount('tubes'), recordCount('tube_racks'), eventIds(), auditItemCount()]);
    const results = await Promise.all([0, 1].map(() => create('specific_tube_rack_creations', { parent_uuids: [plate.uuid], tube_rack_attributes: racks })));
    const won = results.filter((r) => r.status === 201);
    expect(won, JSON.stringify(results.map((r) => [r.status, r.body.errors?.[0]]))).toHaveLength(1);
    const lost = results.find((r) => r.status !== 201)!;
    expect([409, 422]).toContain(lost.status);
    expect([await recordCount('tubes'), await recordCount('tube_racks')]).toEqual([tubesBefore + 192, racksBefore + 2]);
    expect(await eventsSince(events)).toEqual({ 'specific_tube_rack_creations.created': 1, 'tube_racks.created': 2, 'tubes.created': 192 });
    // The winner's audit entries alone (docs/decisions.md, "Audit trail").
    expect((await auditItemCount()) - auditBefore).toBe(195);

    const { racks: made, tubes } = await tubesOfCreation(won[0]!.body.data.id);
    expect(tubes.size).toBe(192);
    const children = (await call('GET', `/api/v2/plates/${plate.id}/children`)).body.data;
    expect(children.map((c: any) => c.id).sort()).toEqual([...made.values()].map((r) => r.id).sort());
    // Every barcode names one tube, the winner's.
    const barcodes = racks.flatMap((rack) => rack.racked_tubes.map((t) => t.tube_barcode));
    const found = await Promise.all(barcodes.map((barcode) => call('GET', `/api/v2/tubes?filter[barcode]=${barcode}`)));
    expect(found.map((res) => res.body.data.map((t: any) => t.attributes.uuid))).toEqual(barcodes.map((barcode) => [tubes.get(barcode)!.uuid]));
  });
});
