import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { errors } from '#lib/jsonapi/errors.ts';
import { allowedMethods } from '#lib/jsonapi/engine.ts';
import { own } from '#lib/jsonapi/resource.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import type { LtsContext } from '#lib/http/request.ts';

/**
 * Finds what the path addresses among the types this function serves: 404 for anything else, then 405
 * (with Allow) for a method the resource does not support, then 403 for a read-only key that writes.
 */
export function route(registry: Registry, served: readonly string[]): middy.MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, LtsContext> {
  return {
    before: async ({ context }) => {
      const { request, target } = context.lts;
      const def = target && served.includes(target.type) ? registry.get(target.type) : undefined;
      if (!target || !def) throw errors.routeNotFound(request.path);
      if (target.relationship !== undefined && !own(def.relationships, target.relationship) && !def.members) throw errors.routeNotFound(request.path);
      const allow = allowedMethods(def, target);
      if (!allow.includes(request.method)) throw errors.methodNotAllowed(request.method, request.path, allow);
      if (request.method !== 'GET' && context.lts.apiKey?.scope === 'read') {
        throw errors.forbidden(`the API key ${context.lts.apiKey.name} may only read; ${request.method} needs a write key`);
      }
      context.lts.def = def;
    },
  };
}
