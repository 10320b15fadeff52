import { randomUUID } from 'node:crypto';
import { layoutForSize, positionAt } from '#lib/domain/geometry.ts';
import { bookOfRequest, parseHeldUuid, parseSlotUuid, placeInBook, requestId, slotId, transferRequestId } from '#lib/domain/labware-ids.ts';
import { labwareState, type Labware } from '#lib/domain/labware.ts';
import type { RequestState } from '#lib/domain/machines.ts';
import { applyMoves, outerRequestOf, type MaterialMove, type OpenRequest } from '#lib/domain/material-moves.ts';
import { poolOf } from '#lib/domain/receptacles.ts';
import { changeBooked, type BookedRequest, type RequestBook } from '#lib/domain/request-books.ts';
import { changeState, outerRequestsOf, stateChangerOf, type RequestFacts } from '#lib/domain/state-changers.ts';
import type { RequestContext } from '#lib/jsonapi/context.ts';
import { renderResource } from '#lib/jsonapi/render.ts';
import { registry } from '#lib/resources/index.ts';
import { destinyOf } from '#lib/domain/material-moves.ts';
import { requestBooks, requestViews } from '#lib/resources/request-books.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { decodeUuid } from '#lib/store/uuids.ts';
import { auditOps, loginOf, type Touched } from './audit.ts';
import { newRecord, nextId, problem, requestPut } from './create.ts';
import { countsPut } from './creations.ts';
import { asRecord, termsUnder, type Db, type Item } from './db.ts';
import { parentLink, recordKey } from './keys.ts';
import { final, type FloorOp, writeLarge } from './large-write.ts';
import { countUpdate, parse, type Attributes } from './lab.ts';
import type { Answer } from './reads.ts';
import { openRequestsOut } from './requests-out.ts';

/**
 * The floor's lab work writes: a transfer request collection (as Limber's creators send it: by uuid, each
 * entry with its outer request or its submission) and a state change of a plate (target, state, user by
 * uuid). Each is the least DynamoDB work that writes the items the service writes: one batched read of what
 * the body names (and, for a state change, one more of the purpose and the outer requests; for entries
 * naming no outer request, the requests out of the source), the new record's id beside it, and one
 * transaction. The lab rules are the service's pure functions (lib/domain), the events'
 * data its renderer: what the ratio measures is the request path, the engine and the unit of work.
 * Changed items are put whole without the service's version conditions (nothing else writes them here).
 */

const ctx = { registry, now: '', baseUrl: '' } as RequestContext;
const labwareOf = (item: Item): Labware => item.attrs as Labware;

/** The record key a record's uuid names (uuids encode family and id), for the families these writes read. */
function keyOfUuid(uuid: unknown) {
  const decoded = typeof uuid === 'string' ? decodeUuid(uuid.toLowerCase()) : undefined;
  const family = decoded && registry.familyOfCode(decoded.code);
  return family ? recordKey(family, decoded!.id) : undefined;
}

/** Reads the records the uuids name (one BatchGetItem per 100), by uuid; undefined if any is unknown. */
export async function byUuids(db: Db, table: string, uuids: string[]): Promise<Map<string, Item> | undefined> {
  const keys = uuids.map(keyOfUuid);
  if (keys.some((k) => !k)) return undefined;
  const unique = [...new Map(keys.map((k) => [k!.pk, k!])).values()];
  const items = await db.batchGet(table, unique);
  const found = new Map(items.map((item) => [item.uuid as string, item]));
  return uuids.every((u) => found.has(u.toLowerCase())) ? found : undefined;
}

export const event = (now: string, base: string, type: string, record: StoredRecord, user: Item) => ({
  id: randomUUID(),
  type,
  occurred_at: now,
  resource: { type: record.type, id: String(record.id), uuid: record.uuid || null, version: record.version },
  data: renderResource({ ...ctx, baseUrl: base }, record, new Map()),
  actor: { api_key: 'bench', user: { type: 'users', id: String(user.id), uuid: user.uuid } },
});

export const changed = (item: Item, now: string, attrs: Attributes, rels: Attributes = {}): Item => ({
  ...item,
  attrs: { ...(item.attrs as Attributes), ...attrs },
  rels: { ...(item.rels as Attributes), ...rels },
  updatedAt: now,
  version: Number(item.version) + 1,
});

export const created = (base: string, record: Item): Answer => {
  const self = `${base}/api/v2/${record.type}/${record.id}`;
  return { status: 201, headers: { Location: self }, body: { data: renderResource({ ...ctx, baseUrl: base }, asRecord(record), new Map()), links: { self } } };
};

interface Entry {
  source_asset: string;
  target_asset: string;
  outer_request?: string;
  submission?: string;
}

type Ref = { type: string; id: number };

/**
 * POST /api/v2/transfer_request_collections, entries `{source_asset, target_asset, outer_request |
 * submission}` of wells of one source plate into the wells of a plate or into tubes (by a tube's uuid):
 * one BatchGetItem of the labware, the outer requests' books, the submissions and the user, with the
 * collection's id and (when an entry names no outer request) the requests out of the source beside it;
 * the moves planned by the service's planner; one write (each target, a parent link where the source is
 * not yet its parent, the collection, two count shards, the request item): one transaction, or past 100
 * items the least a write of several needs (./large-write.ts).
 */
export async function transferRequestCollection(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  const input = parse(body, 'transfer_request_collections');
  const entries = input?.transfer_requests_attributes as Entry[] | undefined;
  const slots = entries?.map(
    (e) => [parseSlotUuid(e.source_asset), parseSlotUuid(e.target_asset) ?? { labwareUuid: e.target_asset.toLowerCase(), slot: 1 }] as const,
  );
  if (!entries || !slots || slots.some(([s]) => !s)) return problem(400, 'entries of wells or tubes by uuid');
  const sources = new Set(slots.map(([s]) => s!.labwareUuid));
  if (sources.size !== 1) return problem(400, 'one source plate');
  const targetUuids = [...new Set(slots.map(([, t]) => t.labwareUuid))];
  // A request's uuid is its book's with its place (lib/domain/labware-ids.ts): the books are what is read.
  const books = [...new Set(entries.flatMap((e) => (e.outer_request ? [parseHeldUuid(e.outer_request)?.holderUuid ?? e.outer_request] : [])))];
  const submissions = [...new Set(entries.flatMap((e) => (e.submission ? [e.submission] : [])))];
  // An entry naming no outer request takes the open request of its pool out of its source well (contract §6).
  const sourcePlate = decodeUuid([...sources][0]!)?.id;
  const [found, id, open] = await Promise.all([
    byUuids(db, table, [...sources, ...targetUuids, ...books, ...submissions, String(input!.user_uuid)]),
    nextId(db, table, 'transfer_request_collections'),
    sourcePlate !== undefined && entries.some((e) => !e.outer_request) ? openRequestsOut(db, table, sourcePlate) : new Map<number, OpenRequest[]>(),
  ]);
  if (!found) return problem(404, 'a record named is missing');
  const source = found.get([...sources][0]!)!;
  const targets = targetUuids.map((uuid) => found.get(uuid)!);
  const user = found.get(String(input!.user_uuid).toLowerCase())!;
  const from = labwareOf(source);
  const moves = entries.map((e, i): MaterialMove<number> => {
    const slot = slots[i]![0]!.slot;
    const receptacle = from.receptacles[slot - 1]!;
    const held = e.outer_request ? parseHeldUuid(e.outer_request) : undefined;
    const book = held && found.get(held.holderUuid);
    const outer = book && { id: requestId(book.id as number, held.slot - 1), submission: (book.attrs as RequestBook).submission };
    const submission = e.submission ? (found.get(e.submission.toLowerCase())!.id as number) : outer?.submission;
    const openOut = open.get(slotId(source.id as number, slot)) ?? [];
    const pool = submission ? poolOf(receptacle, [submission]) : destinyOf(receptacle, openOut).pool;
    return {
      source: {
        id: slotId(source.id as number, slot),
        receptacle,
        tube: false,
        pool,
        outerRequest: outer?.id ?? outerRequestOf(null, pool, openOut),
        volume: null,
      },
      target: found.get(slots[i]![1].labwareUuid)!.id as number,
      slot: slots[i]![1].slot,
    };
  });
  const applied = applyMoves(new Map(targets.map((t) => [t.id as number, labwareOf(t)])), moves, (t, s) => `receptacle ${slotId(t, s)}`);
  if (!applied.ok) return problem(422, applied.problems.map((p) => p.detail).join('; '));

  const now = new Date().toISOString();
  const made: Ref[] = [];
  const writes = targets.map((target) => {
    const { receptacles, aliquotCount, transferRequestCount = 0 } = applied.value.get(target.id as number)!;
    const before = (target.rels as { parents?: Ref[] }).parents ?? [];
    const linked = before.some((p) => p.id === source.id);
    const parents = linked ? before : [...before, { type: 'plates', id: source.id as number }];
    for (let n = (labwareOf(target).transferRequestCount ?? 0) + 1; n <= transferRequestCount; n++)
      made.push({ type: 'transfer_requests', id: transferRequestId(target.id as number, n) });
    return { target, item: changed(target, now, { receptacles, aliquotCount, transferRequestCount }, { parents }), linked };
  });
  const tubes = targets.filter((t) => t.type === 'tubes').map((t) => ({ type: 'tubes', id: t.id }));
  const record = newRecord(now, 'transfer_request_collections', id, {}, { transfer_requests: made, target_tubes: tubes, user: { type: 'users', id: user.id } });
  const collection = event(now, base, 'transfer_request_collections.created', asRecord(record), user);
  const updates = writes.map(({ item }) => event(now, base, `${item.type}.updated`, asRecord(item), user));
  // The collection names its targets (their transfer requests, its tubes); each target's new transfer requests name the source.
  const touched: Touched[] = [
    ...targets.map((target, i) => ({ labware: { type: target.type as string, id: target.id as number }, events: [collection, updates[i]!] })),
    { labware: { type: source.type as string, id: source.id as number }, events: updates },
  ];
  await writeLarge(
    db,
    table,
    [
      ...writes.flatMap(({ target, item, linked }): FloorOp[] => [
        { kind: 'replace', item, version: target.version as number },
        ...(linked ? [] : [{ kind: 'create' as const, item: parentLink(source.id as number, target), unique: false }]),
      ]),
      { kind: 'create', item: record, unique: true },
      ...auditOps(now, collection, touched, loginOf(user)),
    ],
    [
      countsPut(table, 'transfer_request_collections', [record]),
      countsPut(
        table,
        'labware',
        writes.map(({ item }) => item),
        targets,
      ),
      requestPut(table, now, [collection, ...updates]),
    ],
  );
  return created(base, record);
}

/**
 * POST /api/v2/state_changes of a plate (`target_uuid`, `target_state`, `user_uuid`; every well): one
 * BatchGetItem of the plate and the user, the change's id and the plate's qcable (one Query) beside it; one of its purpose and the outer
 * requests its wells carry; the change planned by the service's state changer; one transaction (the plate,
 * each book of requests moved, the change, its count shard, the request item).
 */
export async function plateStateChange(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  const input = parse(body, 'state_changes');
  if (typeof input?.target_uuid !== 'string' || typeof input.user_uuid !== 'string' || typeof input.target_state !== 'string')
    return problem(400, 'target_uuid, user_uuid and target_state');
  // A labware with a qcable changes by the qcable's machine (lib/operations/state-change.ts): the service looks
  // for one on every state change, and so does the floor, beside its batched read.
  const targetId = decodeUuid(input.target_uuid)?.id;
  const [found, id, qcables] = await Promise.all([
    byUuids(db, table, [input.target_uuid, input.user_uuid]),
    nextId(db, table, 'state_changes'),
    targetId === undefined ? [] : termsUnder(db, table, 'qcables.labware', String(targetId)),
  ]);
  if (!found) return problem(404, 'a record named is missing');
  const target = found.get(input.target_uuid.toLowerCase())!;
  const user = found.get(input.user_uuid.toLowerCase())!;
  if (target.type !== 'plates') return problem(422, 'plates only');
  if (qcables.length > 0) return problem(422, 'plates without a qcable only');
  const attrs = labwareOf(target);
  const layout = layoutForSize(attrs.receptacles.length)!;
  const targets = attrs.receptacles.map((receptacle, i) => ({ id: slotId(target.id as number, i + 1), name: `well ${positionAt(layout, i)}`, receptacle }));
  const requestIds = [
    ...new Set(
      targets.flatMap((t) => [...outerRequestsOf(t.receptacle), ...(t.receptacle.transfers ?? []).flatMap((tr) => (tr.outerRequest ? [tr.outerRequest] : []))]),
    ),
  ];
  const purposeRef = (target.rels as { purpose: { type: string; id: number } }).purpose;
  // Requests live in books (lib/domain/request-books.ts): one read of each book the outer requests are in.
  const bookIds = [...new Set(requestIds.map(bookOfRequest))];
  const read = await db.batchGet(table, [
    recordKey(registry.familyOf(purposeRef.type), purposeRef.id),
    ...bookIds.map((b) => recordKey(registry.familyOf(requestBooks.type), b)),
  ]);
  const purpose = read.find((item) => item.type !== requestBooks.type);
  const books = new Map(read.filter((item) => item.type === requestBooks.type).map((item) => [item.id as number, item]));
  const bookedRequest = (rid: number) => (books.get(bookOfRequest(rid))?.attrs as RequestBook | undefined)?.requests[placeInBook(rid)];
  const facts = new Map(
    requestIds.flatMap((rid): [number, RequestFacts][] => {
      const request = bookedRequest(rid);
      const submission = (books.get(bookOfRequest(rid))?.attrs as RequestBook | undefined)?.submission ?? null;
      // The floor's plates hold library work only: no request for multiplexing (which the service learns from the request types it keeps cached).
      return request
        ? [[rid, { id: rid, state: request.state as RequestState, submission, targetAsset: request.target?.[1] ?? null, forMultiplexing: false }]]
        : [];
    }),
  );
  const outcome = changeState({
    changer: stateChangerOf('plates', purpose?.attrs as Attributes | undefined),
    labware: `plates ${target.id}`,
    targets,
    others: [],
    targetState: input.target_state,
    customerAcceptsResponsibility: false,
    requests: facts,
  });
  if (!outcome.ok) return problem(422, outcome.problems.map((p) => p.detail).join('; '));

  const now = new Date().toISOString();
  const plate = changed(target, now, { receptacles: outcome.value.receptacles, stateChanges: [...(attrs.stateChanges ?? []), id] });
  const nowMs = Date.parse(now);
  const booksMoved = new Map<number, BookedRequest[]>();
  for (const move of outcome.value.requestMoves) {
    const bookId = bookOfRequest(move.id);
    const requests = booksMoved.get(bookId) ?? [...(books.get(bookId)!.attrs as RequestBook).requests];
    requests[placeInBook(move.id)] = changeBooked(requests[placeInBook(move.id)]!, { state: move.to }, nowMs);
    booksMoved.set(bookId, requests);
  }
  const moved = [...booksMoved].map(([bookId, requests]) => changed(books.get(bookId)!, now, { requests }));
  const movedIds = new Set(outcome.value.requestMoves.map((move) => move.id));
  const movedRequests = moved.flatMap((book) => requestViews(asRecord(book)).filter((request) => movedIds.has(request.id as number)));
  const record = newRecord(
    now,
    'state_changes',
    id,
    { previous_state: labwareState(attrs), target_state: input.target_state, reason: null, contents: null, customer_accepts_responsibility: false },
    { target: { type: 'plates', id: target.id }, user: { type: 'users', id: user.id }, qcable: null },
  );
  const events = [
    event(now, base, 'state_changes.created', asRecord(record), user),
    event(now, base, 'plates.state_changed', asRecord(plate), user),
    ...movedRequests.map((request) => event(now, base, 'requests.state_changed', request, user)),
  ];
  // The change, the plate and its wells' requests all touch the plate alone.
  const audit = auditOps(now, events[0]!, [{ labware: { type: 'plates', id: target.id as number }, events }], loginOf(user));
  await db.transact({
    TransactItems: [
      { Put: { TableName: table, Item: plate } },
      ...moved.map((item) => ({ Put: { TableName: table, Item: item } })),
      { Put: { TableName: table, Item: record } },
      ...audit.map((op) => final(table, op)),
      countUpdate(table, 'state_changes'),
      requestPut(table, now, events),
    ],
  });
  return created(base, record);
}
