import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { errors } from '#lib/jsonapi/errors.ts';
import type { LtsContext } from '#lib/http/request.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/** 413 for bodies over 1 MiB, before anything parses them. */
export function bodyLimit(limit = MAX_BODY_BYTES): middy.MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, LtsContext> {
  return {
    before: async ({ context }) => {
      const { body } = context.lts.request;
      if (body !== undefined && Buffer.byteLength(body, 'utf8') > limit) throw errors.payloadTooLarge(limit);
    },
  };
}
