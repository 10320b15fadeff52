import type { Registry } from '#lib/jsonapi/registry.ts';
import { own, type ResourceDef } from '#lib/jsonapi/resource.ts';
import type { StoredResponse } from '#lib/store/request-payload.ts';

/*
 * The protocol's side of a request, whatever carried it (HTTP through lib/http/request.ts, a message through
 * lib/jsonapi/message.ts): the request and response the engine (lib/jsonapi/engine.ts) takes and gives, and
 * what a path addresses and which methods it allows, which routing checks before the engine runs.
 */

export interface ApiRequest {
  method: string;
  /** The path as requested, e.g. /api/v2/samples/1/studies. */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body?: string;
  /**
   * The Idempotency-Key also replays a PATCH: set for messages (lib/jsonapi/message.ts), which a queue may
   * deliver twice. Over HTTP the header is ignored on PATCH.
   */
  replayPatch?: boolean;
}

export type ApiResponse = StoredResponse;

/** What a path addresses. Unknown shapes are not targets (404). */
export interface Target {
  type: string;
  id?: string;
  relationship?: string;
  /** `/relationships/<name>` rather than the related resource. */
  linkageOnly?: boolean;
  /** A custom action the type declares (`/api/v2/<type>/<action>`, or `/api/v2/<type>/<id>/<action>` for one on a record). */
  action?: string;
}

const PREFIX = '/api/v2/';

/**
 * What a path addresses. The second segment is an action when the type declares one of that name on its
 * collection, else an id; the third a member action when the type declares one of that name, else a relationship.
 */
export function parsePath(path: string, registry: Registry): Target | undefined {
  if (!path.startsWith(PREFIX)) return undefined;
  const segments = path.slice(PREFIX.length).replace(/\/$/, '').split('/');
  if (segments.some((s) => s === '')) return undefined;
  const [type, id, third, fourth, ...rest] = segments;
  if (rest.length > 0 || !type) return undefined;
  const actionOf = (name: string) => own(registry.get(type)?.actions, name);
  if (id !== undefined && third === undefined && actionOf(id) && actionOf(id)!.on !== 'member') return { type, action: id };
  if (id !== undefined && third !== undefined && fourth === undefined && actionOf(third)?.on === 'member') return { type, id, action: third };
  if (third === 'relationships') return fourth ? { type, id: id!, relationship: fourth, linkageOnly: true } : undefined;
  if (fourth !== undefined) return undefined;
  return { type, ...(id !== undefined ? { id } : {}), ...(third !== undefined ? { relationship: third } : {}) };
}

/** Methods a target supports, from the resource's declared methods. */
export function allowedMethods(def: ResourceDef, target: Target): string[] {
  if (target.action !== undefined) {
    const action = own(def.actions, target.action);
    return action ? [action.method] : [];
  }
  const can = (m: ResourceDef['methods'][number]) => def.methods.includes(m);
  if (target.id === undefined) return [...(can('list') ? ['GET'] : []), ...(can('create') ? ['POST'] : [])];
  if (target.relationship !== undefined) return can('read') ? ['GET'] : [];
  return [...(can('read') ? ['GET'] : []), ...(can('update') ? ['PATCH'] : [])];
}
