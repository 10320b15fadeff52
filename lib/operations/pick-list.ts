import { canonicalBarcode } from '#lib/domain/barcode.ts';
import { labwareOfSlot, slotId, slotOf } from '#lib/domain/labware-ids.ts';
import { PICK_REQUEST_TYPE, type Pick, pickOrders } from '#lib/domain/pick-lists.ts';
import { submissionMachine } from '#lib/domain/submissions.ts';
import { MAX_ASSETS_PER_ORDER } from '#lib/domain/submissions.ts';
import { refKey, refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { accepted, type Locate } from '#lib/jsonapi/problems.ts';
import { booked } from '#lib/operations/request-books.ts';
import { buildSubmission, requestTypesByKey } from '#lib/operations/submission-build.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { labwareAttrs, receptacleType } from '#lib/operations/labware-records.ts';
import { findHolders, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * The reads of a pick list (lib/resources/pick-lists.ts; the reference's PickList::RecordCache): the
 * receptacles its entries name — by id (`pick_attributes`), or every receptacle holding aliquots of a
 * labware named by id or barcode (`labware_pick_attributes`) —, the studies and projects they name, and
 * the `cherrypick` request type, in three batched reads. What names nothing is a 404 at its member.
 */

/** A `pick_attributes` entry. */
export interface ReceptaclePickEntry {
  source_receptacle_id: number;
  study_id?: number | null;
  project_id?: number | null;
}

/** A `labware_pick_attributes` entry: a labware by id or barcode (the barcode first, as the reference looks it up). */
export interface LabwarePickEntry {
  source_labware_id?: number;
  source_labware_barcode?: string;
  study_id?: number | null;
  project_id?: number | null;
}

export interface PickListEntries {
  pick_attributes?: ReceptaclePickEntry[] | null;
  labware_pick_attributes?: LabwarePickEntry[] | null;
}

/** A pick as read: its receptacle as an order names it. */
export interface ReadPick extends Pick {
  ref: Ref;
}

/** Labware one pick list may name: all the receptacles of 128 96-well plates fit one order (MAX_ASSETS_PER_ORDER). */
export const MAX_PICK_LABWARE = 128;

const PICKS = 'pick_attributes';
const LABWARE_PICKS = 'labware_pick_attributes';
const at = (...path: (string | number)[]) => pointer('data', 'attributes', ...path);

/** The entries' sizes and a labware entry without a labware: refused before anything is read. */
function checkEntries(picks: readonly ReceptaclePickEntry[], labwarePicks: readonly LabwarePickEntry[]): void {
  if (picks.length === 0 && labwarePicks.length === 0) throw errors.missingRequired(at(PICKS), `${PICKS} or ${LABWARE_PICKS}`);
  if (picks.length > MAX_ASSETS_PER_ORDER)
    throw errors.tooLarge(at(PICKS), `${PICKS} - ${picks.length} picks; one pick list may pick at most ${MAX_ASSETS_PER_ORDER} receptacles`);
  if (labwarePicks.length > MAX_PICK_LABWARE)
    throw errors.tooLarge(at(LABWARE_PICKS), `${LABWARE_PICKS} - ${labwarePicks.length} labware; one pick list may name at most ${MAX_PICK_LABWARE}`);
  const unnamed = labwarePicks.flatMap((entry, i) =>
    entry.source_labware_barcode === undefined && entry.source_labware_id === undefined
      ? [errors.missingRequired(at(LABWARE_PICKS, i, 'source_labware_id'), `${LABWARE_PICKS}.${i}.source_labware_id or source_labware_barcode`)]
      : [],
  );
  if (unnamed.length > 0) throw JsonApiError.all(unnamed);
}

/** The study and project refs every entry names (read with the labware). */
const namedRefs = (entries: readonly { study_id?: number | null; project_id?: number | null }[]): Ref[] =>
  entries.flatMap((e) => [
    ...(typeof e.study_id === 'number' ? [{ type: 'studies', id: e.study_id }] : []),
    ...(typeof e.project_id === 'number' ? [{ type: 'projects', id: e.project_id }] : []),
  ]);

/** The `cherrypick` request type, by its key's guard. */
async function pickRequestType(ctx: WriteContext): Promise<StoredRecord> {
  const [type] = await requestTypesByKey(ctx, [PICK_REQUEST_TYPE]);
  // The default reference data has it; a lab's own set must too (docs/decisions.md, "Pick lists and work orders").
  if (!type) throw errors.invalidValue(at(PICKS), `${PICKS} - the reference data has no request type ${show(PICK_REQUEST_TYPE)} for cherrypicks`);
  return type;
}

/** Reads what a pick list's entries name; answers its picks in the order named, and the `cherrypick` request type. */
export async function readPicks(ctx: WriteContext, entries: PickListEntries): Promise<{ picks: ReadPick[]; requestType: StoredRecord }> {
  const [picks, labwarePicks] = [entries.pick_attributes ?? [], entries.labware_pick_attributes ?? []];
  checkEntries(picks, labwarePicks);
  const barcodes = labwarePicks.flatMap((e) => (e.source_labware_barcode === undefined ? [] : [canonicalBarcode(e.source_labware_barcode)]));
  const [holders, requestType] = await Promise.all([findHolders(ctx.registry.indexScope('plates', 'barcode_guard'), barcodes), pickRequestType(ctx)]);
  const labwareIdOf = (e: LabwarePickEntry) =>
    e.source_labware_barcode === undefined ? e.source_labware_id! : (holders.get(canonicalBarcode(e.source_labware_barcode))?.id ?? -1);
  const labwareIds = [...picks.map((e) => labwareOfSlot(e.source_receptacle_id)), ...labwarePicks.map(labwareIdOf)].filter((id) => id > 0);
  const records = await ctx.loader.load([...labwareIds.map((id) => ({ type: 'labware', id })), ...namedRefs(picks), ...namedRefs(labwarePicks)]);
  const problems: JsonApiError[] = [];
  const found = (ref: Ref) => records.get(refKey(ref));
  const named = (list: string, i: number, entry: ReceptaclePickEntry | LabwarePickEntry) => ({
    study: namedOrMissing(found, list, i, 'study_id', 'studies', entry.study_id, problems),
    project: namedOrMissing(found, list, i, 'project_id', 'projects', entry.project_id, problems),
  });
  const read = [
    ...picks.flatMap((entry, i) => receptaclePick(found, entry, i, named(PICKS, i, entry), problems)),
    ...labwarePicks.flatMap((entry, i) =>
      labwareRecordPicks(found({ type: 'labware', id: labwareIdOf(entry) }), entry, i, named(LABWARE_PICKS, i, entry), problems),
    ),
  ];
  if (problems.length > 0) throw JsonApiError.all(problems);
  if (read.length > MAX_ASSETS_PER_ORDER)
    throw errors.tooLarge(at(LABWARE_PICKS), `${LABWARE_PICKS} - ${read.length} receptacles; one pick list may pick at most ${MAX_ASSETS_PER_ORDER}`);
  return { picks: read, requestType };
}

type Found = (ref: Ref) => StoredRecord | undefined;

/** A study or project an entry names: its id, null when not named, a 404 at its member when there is none. */
function namedOrMissing(found: Found, list: string, i: number, member: string, type: string, id: number | null | undefined, problems: JsonApiError[]) {
  if (id === null || id === undefined) return null;
  if (!found({ type, id })) problems.push(errors.notFound(`${list}.${i}.${member} - no ${type} with id ${id}`, { pointer: at(list, i, member) }));
  return id;
}

/** A receptacle of a labware record, with what the pick needs of it. */
function pickOf(record: StoredRecord, slot: number, base: Omit<Pick, 'receptacle' | 'aliquots'>): ReadPick {
  const ref = { type: receptacleType(record.type), id: slotId(record.id, slot) };
  return { ...base, receptacle: ref.id, ref, aliquots: labwareAttrs(record).receptacles[slot - 1]!.aliquots };
}

/** The pick a `pick_attributes` entry names: a receptacle of a plate or tube there is (404 otherwise). */
function receptaclePick(
  found: Found,
  entry: ReceptaclePickEntry,
  i: number,
  named: { study: number | null; project: number | null },
  problems: JsonApiError[],
) {
  const id = entry.source_receptacle_id;
  const record = found({ type: 'labware', id: labwareOfSlot(id) });
  if (!record || slotOf(id) < 1 || slotOf(id) > labwareAttrs(record).receptacles.length) {
    problems.push(errors.notFound(`${PICKS}.${i}.source_receptacle_id - no receptacle with id ${id}`, { pointer: at(PICKS, i, 'source_receptacle_id') }));
    return [];
  }
  return [pickOf(record, slotOf(id), { at: [PICKS, String(i)], field: 'source_receptacle_id', ...named })];
}

/** The picks of a `labware_pick_attributes` entry: each receptacle of its labware that holds aliquots (the reference's `with_contents`). */
function labwareRecordPicks(
  record: StoredRecord | undefined,
  entry: LabwarePickEntry,
  i: number,
  named: { study: number | null; project: number | null },
  problems: JsonApiError[],
) {
  const field = entry.source_labware_barcode === undefined ? 'source_labware_id' : 'source_labware_barcode';
  const value = entry[field];
  const filled = record ? labwareAttrs(record).receptacles.flatMap((r, n) => (r.aliquots.length > 0 ? [n + 1] : [])) : [];
  if (!record)
    problems.push(
      errors.notFound(`${LABWARE_PICKS}.${i}.${field} - no labware with ${field === 'source_labware_id' ? 'id' : 'barcode'} ${show(value)}`, {
        pointer: at(LABWARE_PICKS, i, field),
      }),
    );
  else if (filled.length === 0)
    problems.push(
      errors.invalidValue(
        at(LABWARE_PICKS, i, field),
        `${LABWARE_PICKS}.${i}.${field} - labware ${show(value)} holds no aliquots, so there is nothing to pick`,
      ),
    );
  return record ? filled.map((slot) => pickOf(record, slot, { at: [LABWARE_PICKS, String(i)], field, ...named })) : [];
}

/** A pick list's writable attributes. */
export interface PickListInput extends PickListEntries {
  asynchronous?: boolean | null;
}

/** A problem of a pick, at its member: `/data/attributes/pick_attributes/0/study_id`. */
const pickAt: Locate = (path) => ({ pointer: at(...path), field: path.join('.') });

/**
 * A pick list (the reference's PickList#pick_attributes= and #process): its picks read, grouped into
 * orders, a submission of them built with its requests, and the pick list made `pending` then `built`
 * (an event each), all in this write.
 */
export async function createPickList(ctx: WriteContext, input: PickListInput): Promise<StoredRecord> {
  const { picks, requestType } = await readPicks(ctx, input);
  const planned = accepted(pickOrders(picks), pickAt);
  const refOfPick = new Map(picks.map((p) => [p.receptacle, p.ref]));
  // Every id this write makes beside its requests' books, reserved at once.
  const reserve = (type: string, count: number) => ctx.uow.allocateIds(ctx.registry.familyOf(type), count);
  const [[submissionId], orderIds, [pickListId]] = await Promise.all([reserve('submissions', 1), reserve('orders', planned.length), reserve('pick_lists', 1)]);
  const submission = await ctx.uow.create('submissions', { id: submissionId!, attrs: { state: submissionMachine.initial }, rels: { user: null } });
  const orders = await Promise.all(
    planned.map((order, n) =>
      ctx.uow.create('orders', {
        id: orderIds[n]!,
        attrs: { request_options: {}, assets: order.receptacles.map((id) => booked(refOfPick.get(id)!)) },
        rels: {
          submission: refOf(submission),
          study: order.study === null ? null : { type: 'studies', id: order.study },
          project: order.project === null ? null : { type: 'projects', id: order.project },
          user: null,
          request_types: [refOf(requestType)],
        },
      }),
    ),
  );
  // Past the bound of one request: at the list the picks came from (the pick list is one record more).
  const list = picks.some((p) => p.at[0] === 'pick_attributes') ? 'pick_attributes' : 'labware_pick_attributes';
  const at = () => ({ pointer: pointer('data', 'attributes', list), field: list });
  const built = await buildSubmission(ctx, submission, orders, new Map(orders.map((o) => [o, [requestType]])), at, 1);
  const pickList = await ctx.uow.create('pick_lists', {
    id: pickListId!,
    attrs: { state: 'pending', asynchronous: input.asynchronous ?? true },
    rels: { submission: refOf(built), orders: orders.map((o): Ref => refOf(o)) },
  });
  return ctx.uow.update(pickList, { attrs: { state: 'built' } }, { event: 'state_changed' });
}
