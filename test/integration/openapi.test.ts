import { Validator } from '@seriousme/openapi-schema-validator';
import type { Context } from 'aws-lambda';
import { beforeAll, expect, it } from 'vitest';
import { handlerForRoute } from '#lib/http/route-handlers.ts';
import { registry } from '#lib/resources/index.ts';
import { routes } from '#lib/routes.ts';
import { freshStore } from '../support/store.ts';

/**
 * The OpenAPI 3.1 document (issue 12): generated from the definitions and the route table, served without
 * a key at /api/v2/openapi.json, valid against the OpenAPI 3.1 schema, covering every route and method.
 * (Read through the handler itself: the test client checks every body as a JSON:API document, which this
 * one is not.)
 */

beforeAll(freshStore);

let document: any;
beforeAll(async () => {
  const result = await handlerForRoute('not-found')(
    {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/api/v2/openapi.json',
      rawQueryString: '',
      headers: { host: 'lts.test', 'x-forwarded-proto': 'https' },
      requestContext: { http: { method: 'GET', path: '/api/v2/openapi.json' }, requestId: 'openapi' } as never,
      isBase64Encoded: false,
    },
    {} as Context,
  );
  expect(result.statusCode).toBe(200);
  expect(result.headers?.['Content-Type']).toBe('application/json');
  document = JSON.parse(result.body!);
});

it('is a valid OpenAPI 3.1 document', async () => {
  const validator = new Validator();
  const result = await validator.validate(document);
  expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
  expect(document.servers).toEqual([{ url: 'https://lts.test' }]);
  // It can fail: a document missing its info is not valid.
  expect((await new Validator().validate({ ...document, info: undefined })).valid).toBe(false);
});

it('covers every route of the route table with the methods it answers, and every action', () => {
  for (const route of routes.filter((r) => r.types.length > 0)) {
    const def = registry.require(route.name);
    const collection = document.paths[`/api/v2/${route.name}`] ?? {};
    const item = document.paths[`/api/v2/${route.name}/{id}`] ?? {};
    const methods = new Set([...Object.keys(collection), ...Object.keys(item)].map((m) => m.toUpperCase()));
    // Its actions answer POST at their own paths (checked below): all that `heron` serves.
    if (route.actions.length > 0) methods.add('POST');
    expect([...methods].sort(), route.name).toEqual([...route.methods].sort());
    for (const action of route.actions) {
      // An action on one record is described below the record's path.
      const path = def.actions?.[action.name]?.on === 'member' ? `/api/v2/${route.name}/{id}/${action.name}` : `/api/v2/${route.name}/${action.name}`;
      expect(document.paths[path]?.post, `${route.name}/${action.name}`).toBeDefined();
    }
    // A type that only acts (heron) lists nothing, so has no filters to describe.
    for (const name of route.methods.includes('GET') ? Object.keys(def.filters) : []) {
      expect(
        collection.get.parameters.map((p: any) => p.name),
        `${route.name} filter ${name}`,
      ).toContain(`filter[${name}]`);
    }
  }
});

it('describes each type with its readable attributes, and writes with exactly the writable ones', () => {
  const transfer = document.components.schemas.transfers.properties.attributes.properties;
  expect(Object.keys(transfer)).toContain('transfer_type');
  expect(Object.keys(transfer)).not.toContain('source_uuid');
  const create = document.components.schemas['transfers.create'].properties.data.properties.attributes;
  expect(Object.keys(create.properties).sort()).toEqual(['destination_uuid', 'source_uuid', 'transfer_template_uuid', 'transfers', 'user_uuid']);
  expect(create.required).toEqual(['transfer_template_uuid']);
  expect(document.components.schemas['tag_layouts.create'].properties.data.properties.attributes.properties.direction.anyOf[0].enum).toContain(
    'inverse column',
  );
  expect(document.components.securitySchemes.clientId).toEqual({ type: 'apiKey', in: 'header', name: 'X-Sequencescape-Client-Id' });
});
