import { refKey, type WriteContext } from '#lib/jsonapi/context.ts';
import { drawEntryNumber, LABWARE_FAMILY, type AuditEntry } from '#lib/store/audit-trail.ts';
import { refsOf, type Ref, type StoredRecord } from '#lib/store/records.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';

/**
 * The audit trail's entries of a write (contract §7.6), derived in this one place from the events the write
 * recorded, whatever type or action made them: every write the engine commits is recorded, a new type's
 * included, with no code of its own (docs/decisions.md, "Audit trail"). A labware is touched by an event
 * when the event's record is stored in it (the labware itself, its receptacles, aliquots, QC results,
 * transfer requests) or, for a record of another type, when one of the record's relationships names it or
 * something stored in it (a transfer's source and destination, a state change's target, a metadatum's well,
 * a request's asset). A labware's own relationships (its parents) do not touch what they name: a child's
 * writes are not its parent's history.
 */

/** Records stored in labware that say where their material came from (lib/resources/labware-views.ts). */
const TRANSFER_REQUESTS = 'transfer_requests';
/** Subjects an entry lists (a bulk write may have thousands; the rest are counted). */
const MAX_SUBJECTS = 10;
/** An attribute value of a subject whose JSON is longer is summarised (a QC assay's results, a transfer's map). */
const MAX_VALUE_BYTES = 512;

/** Stages the write's entries in its unit of work, one per labware its events touched; call it once the write has recorded its events. */
export async function auditWrite(ctx: WriteContext, primary: StoredRecord | readonly StoredRecord[]): Promise<void> {
  const events = ctx.uow.recordedEvents.filter((event) => /^[1-9][0-9]*$/.test(event.resource.id));
  if (events.length === 0) return;
  const refs = events.map((event): Ref => ({ type: event.resource.type, id: Number(event.resource.id) }));
  const records = await ctx.loader.load(refs);
  const added = addedNaming(ctx);
  const touchedBy = events.map((_, i) => labwareTouched(ctx, refs[i]!, records.get(refKey(refs[i]!)), added));
  // The labware are named by id alone: a labware touched only through what names it (a request's asset well)
  // is not read for its entry — it exists, as what names it was checked when written, and its trail's reader knows its type.
  const ids = [...new Set(touchedBy.flat())];
  const who = await actorOf(ctx, events[0]!);
  // Looked up by key, each labware's events gathered in one pass: a rack split has ~200 events and ~200 labware.
  const primaryKeys = new Set(([] as StoredRecord[]).concat(primary).map((p) => `${p.type}:${p.id}`));
  const isPrimary = (event: EventEnvelope) => primaryKeys.has(`${event.resource.type}:${event.resource.id}`);
  const action = events.find(isPrimary)?.type ?? events[0]!.type;
  const eventsOf = new Map(ids.map((id): [number, EventEnvelope[]] => [id, []]));
  for (const [i, event] of events.entries()) for (const id of touchedBy[i]!) eventsOf.get(id)!.push(event);
  const entries = ids.map((id): AuditEntry => {
    const mine = eventsOf.get(id)!;
    const subjects = mine.filter(isPrimary);
    return {
      labware_id: id,
      at: ctx.uow.now,
      n: drawEntryNumber(),
      ...who,
      action,
      changes: countBy(mine.map((event) => event.type)),
      ...subjectsOf(subjects),
    };
  });
  ctx.uow.setAudit(entries);
}

/** The labware ids an event's record touches (see above); for a labware the write changed, also those its new records name. */
function labwareTouched(ctx: WriteContext, ref: Ref, record: StoredRecord | undefined, added: (id: number) => number[]): number[] {
  const storage = ctx.registry.storageOf(ref);
  if (storage.family === LABWARE_FAMILY) return [...new Set([storage.id, ...(storage.embedded ? [] : added(storage.id))])];
  return record ? labwareNamedBy(ctx, record) : [];
}

/** The labware a record's relationships name, itself or through what is stored in it (a well names its plate). */
function labwareNamedBy(ctx: WriteContext, record: StoredRecord): number[] {
  const named = Object.values(record.rels)
    .flatMap(refsOf)
    .map((target) => ctx.registry.storageOf(target))
    .filter((target) => target.family === LABWARE_FAMILY)
    .map((target) => target.id);
  return [...new Set(named)];
}

/**
 * For a labware the write created or changed, the labware its new transfer requests come from: a transfer out
 * of them, whichever write made it (a transfer request collection, a bulk transfer, a creation from parents),
 * though that write's own record may not name them. Transfer requests it had before name nothing new.
 */
function addedNaming(ctx: WriteContext): (id: number) => number[] {
  const before = new Map(ctx.uow.updated.filter(({ after }) => after.family === LABWARE_FAMILY).map(({ before: b }) => [b.id, b]));
  const found = new Map<number, number[]>();
  return (id) => {
    let named = found.get(id);
    if (!named) {
      const after = ctx.uow.staged(LABWARE_FAMILY, id);
      const had = before.get(id);
      // Only the transfer requests are built and compared, not every record the labware holds (its wells, aliquots, QC results).
      const old = new Set(had ? ctx.registry.recordsOfType(had, TRANSFER_REQUESTS).map((view) => view.id) : []);
      const gained = after ? ctx.registry.recordsOfType(after, TRANSFER_REQUESTS).filter((view) => !old.has(view.id)) : [];
      named = [...new Set(gained.flatMap((view) => labwareNamedBy(ctx, view)))].filter((other) => other !== id);
      found.set(id, named);
    }
    return named;
  };
}

/** Who wrote: the user the write named (with the login, read with the write's references) and the API key's name. */
async function actorOf(ctx: WriteContext, event: EventEnvelope): Promise<Pick<AuditEntry, 'user' | 'api_key'>> {
  const actor = (event.actor ?? {}) as { api_key?: string | null; user?: { type: string; id: string; uuid: string | null } | null };
  const named = actor.user ? await ctx.loader.one({ type: actor.user.type, id: Number(actor.user.id) }) : undefined;
  const login = named?.attrs.login;
  return {
    user: actor.user?.uuid ? { uuid: actor.user.uuid, login: typeof login === 'string' ? login : null } : null,
    api_key: actor.api_key ?? null,
  };
}

export const countBy = (values: readonly string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

/** An entry's subjects: the first MAX_SUBJECTS events of the request's own records as they rendered them, and how many more. */
export const subjectsOf = (subjects: readonly EventEnvelope[]): Pick<AuditEntry, 'subjects' | 'more_subjects'> => ({
  subjects: subjects.slice(0, MAX_SUBJECTS).map(subjectOf),
  more_subjects: Math.max(0, subjects.length - MAX_SUBJECTS),
});

/** A subject as its event rendered it, its long values summarised so an entry stays small whatever the write. */
function subjectOf(event: EventEnvelope): AuditEntry['subjects'][number] {
  const attributes = ((event.data as { attributes?: Record<string, unknown> } | null)?.attributes ?? {}) as Record<string, unknown>;
  const kept = Object.entries(attributes).map(([name, value]) => {
    const bytes = Buffer.byteLength(JSON.stringify(value ?? null));
    if (bytes <= MAX_VALUE_BYTES) return [name, value ?? null];
    return [name, { summarised: Array.isArray(value) ? `${value.length} items` : `${bytes} bytes` }];
  });
  return { type: event.resource.type, id: event.resource.id, attributes: Object.fromEntries(kept) };
}
