import { countBy, subjectsOf } from '#lib/jsonapi/audit.ts';
import { auditPut, drawEntryNumber } from '#lib/store/audit-trail.ts';
import type { Ref } from '#lib/store/records.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';
import type { Item } from './db.ts';
import type { FloorOp } from './large-write.ts';

/** A labware a write touched, and the write's events about it (its own, its receptacles', those of records naming it). */
export interface Touched {
  labware: Ref;
  events: readonly EventEnvelope[];
}

/**
 * A write's audit entries as the service writes them (lib/jsonapi/audit.ts, lib/store/audit-trail.ts): one
 * new item per labware touched, its shape the service's (auditPut), its action the event of the request's
 * own record (`primary`), its user the one the write named (`login` as read), its subjects those of that type among the labware's events. The floor knows what
 * each write touches, so it names the labware instead of deriving them from the events.
 */
export function auditOps(now: string, primary: EventEnvelope, touched: readonly Touched[], login: string | null = null): FloorOp[] {
  const actor = primary.actor as { api_key?: string | null; user?: { uuid: string | null } | null } | undefined;
  return touched.map(({ labware, events }): FloorOp => {
    const { Item } = auditPut({
      labware_id: labware.id,
      at: now,
      n: drawEntryNumber(),
      user: actor?.user?.uuid ? { uuid: actor.user.uuid, login } : null,
      api_key: actor?.api_key ?? null,
      action: primary.type,
      changes: countBy(events.map((event) => event.type)),
      ...subjectsOf(events.filter((event) => event.resource.type === primary.resource.type)),
    });
    return { kind: 'create', item: Item, unique: true };
  });
}

/** The login of the user a write names, as the service's entry records it. */
export const loginOf = (user: Item): string | null => {
  const login = (user.attrs as { login?: unknown } | undefined)?.login;
  return typeof login === 'string' ? login : null;
};
