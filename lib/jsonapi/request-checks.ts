import { Loader, type ApiKeyIdentity } from '#lib/jsonapi/context.ts';
import { loadOwner } from '#lib/jsonapi/engine.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { allowedMethods, type Target } from '#lib/jsonapi/request.ts';
import { needsAdminKey, own, type ResourceDef } from '#lib/jsonapi/resource.ts';

/**
 * The checks a request passes before the engine serves it, shared by the HTTP middlewares and the message
 * entry (lib/jsonapi/message.ts), so both answer alike.
 */

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * What a request addresses among the types `served`: 404 for anything else, then 405 (with Allow) for a
 * method the resource does not support there, then 403 for a read-only identity that writes, or for any
 * identity but an admin one (a keyless route too) that writes reference data (purposes). The path
 * comes before the method (contract §1.2): a method refused on an item's path first reads the item (one
 * read, paid only by requests that are refused anyway), so an id no record has is a 404, a malformed one a 400.
 */
export async function routeRequest(
  registry: Registry,
  served: readonly string[],
  request: { method: string; path: string },
  target: Target | undefined,
  apiKey: ApiKeyIdentity | null,
): Promise<{ def: ResourceDef; target: Target }> {
  const def = target && served.includes(target.type) ? registry.get(target.type) : undefined;
  if (!target || !def) throw errors.routeNotFound(request.path);
  if (target.relationship !== undefined && !own(def.relationships, target.relationship) && !def.members) throw errors.routeNotFound(request.path);
  const allow = allowedMethods(def, target);
  if (!allow.includes(request.method)) {
    if (target.id !== undefined) await loadOwner({ loader: new Loader(registry) }, def, target.id);
    throw errors.methodNotAllowed(request.method, request.path, allow);
  }
  if (request.method !== 'GET' && apiKey?.scope === 'read') {
    throw errors.forbidden(`the API key ${apiKey.name} may only read; ${request.method} needs a write key`);
  }
  if (request.method !== 'GET' && needsAdminKey(def) && apiKey?.scope !== 'admin') {
    const who = apiKey ? `the API key ${apiKey.name} has ${apiKey.scope} scope` : 'this request has no API key';
    throw errors.forbidden(`${def.type} are reference data: ${request.method} needs an admin key; ${who}`);
  }
  return { def, target };
}

/** 413 for a body over the limit, before anything parses it. */
export function checkBodySize(body: string | undefined, limit = MAX_BODY_BYTES): void {
  if (body !== undefined && Buffer.byteLength(body, 'utf8') > limit) throw errors.payloadTooLarge(limit);
}
