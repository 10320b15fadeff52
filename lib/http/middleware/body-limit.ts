import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { LtsContext } from '#lib/http/request.ts';
import { checkBodySize } from '#lib/jsonapi/request-checks.ts';

/** 413 for bodies over 1 MiB, before anything parses them (lib/jsonapi/request-checks.ts). */
export function bodyLimit(): middy.MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, LtsContext> {
  return {
    before: async ({ context }) => checkBodySize(context.lts.request.body),
  };
}
