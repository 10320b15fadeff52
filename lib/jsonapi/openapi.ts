import * as z from '#lib/zod.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#lib/jsonapi/paging.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { linkedTypes, needsAdminKey, type AttributeDef, type RelationshipDef, type ResourceDef } from '#lib/jsonapi/resource.ts';
import type { ListExample, TypeExamples, WriteExample } from '#lib/resources/examples.ts';

/**
 * The API's OpenAPI 3.1 description, generated from the resource definitions (never written by hand):
 * every type's paths and methods, its filters, includes, sparse fieldsets, paging and sorting, the
 * documents it reads and writes (attribute schemas from the same zod schemas that validate them), and the
 * JSON:API error responses. Served at `/api/v2/openapi.json` (lib/http/middleware/service-root.ts).
 */

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const JSON_API = 'application/vnd.api+json';
const jsonApi = (schema: Json) => ({ [JSON_API]: { schema } });

/** An attribute's value as JSON Schema (2020-12, OpenAPI 3.1's dialect); null allowed unless required. */
function attributeSchema(attribute: AttributeDef): Json {
  const { $schema: _, ...schema } = z.toJSONSchema(attribute.schema, { unrepresentable: 'any', io: 'output' }) as Json;
  return attribute.required ? schema : { anyOf: [schema, { type: 'null' }] };
}

/** An object of named members (an answering action's body or answer), each described as an attribute. */
const membersSchema = (members: Record<string, AttributeDef>): Json => ({
  type: 'object',
  required: Object.entries(members)
    .filter(([, a]) => a.required)
    .map(([n]) => n),
  properties: Object.fromEntries(Object.entries(members).map(([name, a]) => [name, attributeSchema(a)])),
});

const readable = (def: ResourceDef) => Object.entries(def.attributes).filter(([, a]) => a.access !== 'W');
export const writable = (def: ResourceDef, mode: 'create' | 'update') =>
  Object.entries(def.attributes).filter(([, a]) =>
    mode === 'create' ? a.access !== 'R' || a.acceptOnCreate : (a.access === 'RW' || a.access === 'W') && !a.acceptOnCreate,
  );
export const writableRelationships = (def: ResourceDef, mode: 'create' | 'update') =>
  Object.entries(def.relationships).filter(([, r]) => (mode === 'create' ? r.access !== 'R' || r.acceptOnCreate : r.access === 'RW' || r.access === 'W'));

/**
 * Each relationship of a rendered resource says whether it is to-one or to-many and the types it links
 * to, so a client that needs a model per type (devour-client) can build them from this document.
 */
export const RELATIONSHIP_EXTENSION = 'x-jsonapi-relationship';
const relationshipShape = (r: RelationshipDef) => ({ kind: r.kind, types: [...linkedTypes(r)] });

/** The resource object a type renders. */
function resourceSchema(def: ResourceDef): Json {
  return {
    type: 'object',
    required: ['type', 'id'],
    properties: {
      type: { const: def.type },
      id: { type: 'string', pattern: '^[1-9][0-9]*$' },
      attributes: { type: 'object', properties: Object.fromEntries(readable(def).map(([name, a]) => [name, attributeSchema(a)])) },
      relationships: {
        type: 'object',
        properties: Object.fromEntries(
          Object.entries(def.relationships).map(([name, r]) => [name, { ...ref('Relationship'), [RELATIONSHIP_EXTENSION]: relationshipShape(r) }]),
        ),
      },
      links: ref('Links'),
    },
  };
}

/** The document a POST or PATCH sends. */
function writeSchema(def: ResourceDef, mode: 'create' | 'update'): Json {
  const attributes = writable(def, mode);
  const relationships = writableRelationships(def, mode);
  const required = (list: [string, { required?: boolean }][]) => list.filter(([, d]) => mode === 'create' && d.required).map(([n]) => n);
  return {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: mode === 'update' ? ['type', 'id'] : ['type'],
        properties: {
          type: { const: def.type },
          ...(mode === 'update' ? { id: { type: 'string' } } : {}),
          attributes: {
            type: 'object',
            additionalProperties: false,
            required: required(attributes),
            properties: Object.fromEntries(attributes.map(([name, a]) => [name, attributeSchema(a)])),
          },
          relationships: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(relationships.map(([name, r]) => [name, r.kind === 'many' ? ref('ToManyLinkage') : ref('ToOneLinkage')])),
          },
        },
      },
    },
  };
}

const errorResponses = (statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }]));

const READ_ERRORS = [400, 401, 403, 404, 406, 503];
const WRITE_ERRORS = [400, 401, 403, 404, 405, 409, 413, 415, 422, 503];

function queryParameters(registry: Registry, def: ResourceDef, collection: boolean): Json[] {
  const fieldTypes = [def.type, ...Object.values(def.relationships).flatMap(linkedTypes)];
  const parameters: Json[] = [
    {
      name: 'include',
      in: 'query',
      schema: { type: 'string' },
      description: `Relationship paths to include, comma-separated: ${Object.keys(def.relationships).join(', ')}`,
    },
    ...[...new Set(fieldTypes)]
      .filter((t) => registry.get(t))
      .map((t) => ({ name: `fields[${t}]`, in: 'query', schema: { type: 'string' }, description: `Fields of ${t} to render` })),
  ];
  if (!collection) return parameters;
  return [
    ...parameters,
    ...Object.keys(def.filters).map((name) => ({
      name: `filter[${name}]`,
      in: 'query',
      schema: { type: 'string' },
      description: 'One value or several, comma-separated',
    })),
    { name: 'page[number]', in: 'query', schema: { type: 'integer', minimum: 1 } },
    { name: 'page[size]', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE } },
    { name: 'sort', in: 'query', schema: { type: 'string', enum: ['id', '-id', 'created_at', '-created_at', 'updated_at', '-updated_at'] } },
  ];
}

const document = (data: Json) => ({
  type: 'object',
  required: ['data'],
  properties: { data, included: { type: 'array', items: { type: 'object' } }, links: ref('Links'), meta: { type: 'object' } },
});
const ok = (description: string, data: Json) => ({ description, content: jsonApi(document(data)) });

/** The extension naming the key scope an operation needs beyond `write` (clients and the examples' test read it). */
export const KEY_SCOPE = 'x-key-scope';

/** Examples keyed by name, as OpenAPI's `examples` take them (`example1`, … in the order they are sent). */
const named = <T>(list: readonly T[], value: (item: T) => Json) => Object.fromEntries(list.map((item, i) => [`example${i + 1}`, value(item)]));

/**
 * Adds a write's examples to its operation: each request body, and the same name under the response of
 * its status (an error status gets its response inline, since a `$ref` takes no examples). A PATCH's id
 * parameter gets each example's id, so "Try it out" fills both.
 */
function withExamples(operation: Json, list: readonly WriteExample[] | undefined): Json {
  if (!list?.length) return operation;
  const responses = { ...(operation.responses as Record<string, Json>) };
  const byStatus = new Map<number, Json>();
  for (const [i, example] of list.entries()) {
    byStatus.set(example.status, { ...byStatus.get(example.status), [`example${i + 1}`]: { summary: example.summary, value: example.response } });
  }
  for (const [status, examples] of byStatus) {
    const response = status < 300 ? responses[String(status)]! : { description: ERROR_TITLES[status]!, content: jsonApi(ref('Errors')) };
    const [[mediaType, content]] = Object.entries(response.content as Record<string, Json>) as [[string, Json]];
    responses[String(status)] = { ...response, content: { [mediaType]: { ...content, examples } } };
  }
  const body = operation.requestBody as { content: Record<string, Json> };
  const parameters = (operation.parameters as Json[] | undefined)?.map((p) =>
    p.name === 'id' && p.in === 'path' ? { ...p, examples: named(list, (e) => ({ summary: e.summary, value: (e.body.data as Json).id })) } : p,
  );
  return {
    ...operation,
    ...(parameters ? { parameters } : {}),
    requestBody: { ...body, content: { [JSON_API]: { ...body.content[JSON_API], examples: named(list, (e) => ({ summary: e.summary, value: e.body })) } } },
    responses,
  };
}

/** Adds a collection GET's examples: each query parameter's value, and the same name under its 200 answer, so "Try it out" fills the query. */
function withListExamples(operation: Json, list: readonly ListExample[] | undefined): Json {
  if (!list?.length) return operation;
  const parameters = (operation.parameters as Json[]).map((p) => {
    const given = list.map((e, i) => [`example${i + 1}`, e] as const).filter(([, e]) => e.query[p.name as string] !== undefined);
    return given.length
      ? { ...p, examples: Object.fromEntries(given.map(([name, e]) => [name, { summary: e.summary, value: e.query[p.name as string] }])) }
      : p;
  });
  const responses = operation.responses as Record<string, Json>;
  const [[mediaType, content]] = Object.entries(responses['200']!.content as Record<string, Json>) as [[string, Json]];
  const examples = named(list, (e) => ({ summary: e.summary, value: e.response }));
  return { ...operation, parameters, responses: { ...responses, '200': { ...responses['200'], content: { [mediaType]: { ...content, examples } } } } };
}

const IDEMPOTENCY_KEY = { name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 255 } };

/** A write action on one record (`POST <type>/{id}/<name>`): a body of `{}`, or `data` naming the record; it answers the record. */
const memberActionOperation = (def: ResourceDef, name: string, idParameter: Json): Json => ({
  tags: [def.type],
  operationId: `${name}-${def.type}`,
  summary: `${def.type} ${name}`,
  parameters: [idParameter, IDEMPOTENCY_KEY],
  requestBody: {
    required: true,
    content: jsonApi({
      type: 'object',
      properties: { data: { type: 'object', required: ['type', 'id'], properties: { type: { const: def.type }, id: { type: 'string' } } } },
    }),
  },
  responses: { '200': ok('Done', ref(def.type)), ...errorResponses(WRITE_ERRORS) },
});

function typePaths(registry: Registry, def: ResourceDef, examples: TypeExamples = {}): Record<string, Json> {
  const base = `/api/v2/${def.type}`;
  const tag = [def.type];
  const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  const paths: Record<string, Json> = {};
  const collection: Json = {};
  if (def.methods.includes('list'))
    collection.get = withListExamples(
      {
        tags: tag,
        operationId: `list-${def.type}`,
        summary: `List ${def.type}`,
        parameters: queryParameters(registry, def, true),
        responses: { '200': ok(`A page of ${def.type}`, { type: 'array', items: ref(def.type) }), ...errorResponses(READ_ERRORS) },
      },
      examples.list,
    );
  if (def.methods.includes('create'))
    collection.post = withExamples(
      {
        tags: tag,
        operationId: `create-${def.type}`,
        summary: `Create a ${def.type} record`,
        // Reference data (purposes) is registered with a key of admin scope only (lib/jsonapi/request-checks.ts).
        ...(needsAdminKey(def) ? { description: 'Needs an API key of admin scope.', [KEY_SCOPE]: 'admin' } : {}),
        parameters: [IDEMPOTENCY_KEY, ...queryParameters(registry, def, false)],
        requestBody: { required: true, content: jsonApi(ref(`${def.type}.create`)) },
        responses: { '201': ok('Created', ref(def.type)), ...errorResponses(WRITE_ERRORS) },
      },
      examples.create,
    );
  if (Object.keys(collection).length > 0) paths[base] = collection;
  const item: Json = {};
  if (def.methods.includes('read'))
    item.get = {
      tags: tag,
      operationId: `read-${def.type}`,
      summary: `Read a ${def.type} record`,
      parameters: [idParameter, ...queryParameters(registry, def, false)],
      responses: { '200': ok('The record', ref(def.type)), ...errorResponses(READ_ERRORS) },
    };
  if (def.methods.includes('update'))
    item.patch = withExamples(
      {
        tags: tag,
        operationId: `update-${def.type}`,
        summary: `Update a ${def.type} record`,
        parameters: [idParameter, ...queryParameters(registry, def, false)],
        requestBody: { required: true, content: jsonApi(ref(`${def.type}.update`)) },
        responses: { '200': ok('Updated', ref(def.type)), ...errorResponses(WRITE_ERRORS) },
      },
      examples.update,
    );
  if (Object.keys(item).length > 0) paths[`${base}/{id}`] = item;
  if (def.methods.includes('read')) {
    for (const [name, relationship] of Object.entries(def.relationships)) {
      const data = relationship.kind === 'many' ? { type: 'array', items: { type: 'object' } } : { anyOf: [{ type: 'object' }, { type: 'null' }] };
      paths[`${base}/{id}/${name}`] = {
        get: {
          tags: tag,
          operationId: `related-${def.type}-${name}`,
          summary: `The ${name} of a ${def.type} record`,
          parameters: [idParameter],
          responses: { '200': ok(`Related ${relationship.types.join(' or ')}`, data), ...errorResponses(READ_ERRORS) },
        },
      };
      paths[`${base}/{id}/relationships/${name}`] = {
        get: {
          tags: tag,
          operationId: `relationship-${def.type}-${name}`,
          summary: `Linkage of ${name}`,
          parameters: [idParameter],
          responses: { '200': ok('Linkage', data), ...errorResponses(READ_ERRORS) },
        },
      };
    }
  }
  for (const [name, action] of Object.entries(def.actions ?? {})) {
    if (action.on === 'member') {
      paths[`${base}/{id}/${name}`] = { post: withExamples(memberActionOperation(def, name, idParameter), examples.actions?.[name]) };
      continue;
    }
    paths[`${base}/${name}`] = {
      post: withExamples(
        {
          tags: tag,
          operationId: `${name}-${def.type}`,
          summary: `${def.type} ${name}`,
          ...(action.answer
            ? {
                requestBody: { required: true, content: jsonApi(membersSchema(action.body)) },
                responses: {
                  '200': ok('Answered; nothing written', {
                    type: 'object',
                    required: ['type', 'id', 'attributes'],
                    properties: { type: { const: def.type }, id: { const: name }, attributes: membersSchema(action.answers) },
                  }),
                  ...errorResponses(WRITE_ERRORS),
                },
              }
            : action.document
              ? {
                  requestBody: { required: true, content: jsonApi(writeSchema(action.document.body, 'create')) },
                  responses: { '201': ok('Created', ref(action.document.answers ?? def.type)), ...errorResponses(WRITE_ERRORS) },
                }
              : {
                  requestBody: {
                    required: true,
                    content: jsonApi({ type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref(`${def.type}.create`) } } }),
                  },
                  responses: { '201': ok('Created', { type: 'array', items: ref(def.type) }), ...errorResponses(WRITE_ERRORS) },
                }),
        },
        examples.actions?.[name],
      ),
    };
  }
  return paths;
}

const ERROR_TITLES: Record<number, string> = {
  400: 'Bad request: a malformed document, query or header',
  401: 'No valid X-Sequencescape-Client-Id',
  403: 'The key may not do this (read scope; reference data without admin scope), or a client-generated id',
  404: 'No such record or route',
  405: 'Method not allowed here (see Allow)',
  406: 'Accept cannot be met',
  409: 'Conflict: a concurrent write to the same record, or a type mismatch',
  413: 'Body too large',
  415: 'Content-Type is not application/vnd.api+json',
  422: 'A value the rules refuse: the pointer names it',
  503: 'DynamoDB is throttling or unavailable: retry after Retry-After',
};

/**
 * The OpenAPI 3.1 document of the types a registry serves, with `serverUrl` as its server and the
 * examples given by type. Paths come in the registry's order, the order the examples are sent in (each
 * may name records an earlier one made), and so do the tags: Swagger UI draws the types in the order of
 * `tags`, so the docs page lists them in the order its examples work in, samples first.
 */
export function openApiDocument(registry: Registry, serverUrl: string, examples: Record<string, TypeExamples> = {}): Json {
  const defs = registry.types.map((type) => registry.require(type));
  const schemas: Json = {
    Links: { type: 'object', additionalProperties: { type: 'string' } },
    Linkage: { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string' }, id: { type: 'string' } } },
    ToOneLinkage: { type: 'object', required: ['data'], properties: { data: { anyOf: [ref('Linkage'), { type: 'null' }] } } },
    ToManyLinkage: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref('Linkage') } } },
    Relationship: { type: 'object', properties: { links: ref('Links'), data: {} } },
    Error: {
      type: 'object',
      properties: {
        status: { type: 'string' },
        code: { type: 'string' },
        title: { type: 'string' },
        detail: { type: 'string' },
        source: { type: 'object', properties: { pointer: { type: 'string' }, parameter: { type: 'string' }, header: { type: 'string' } } },
      },
    },
    Errors: { type: 'object', required: ['errors'], properties: { errors: { type: 'array', items: ref('Error') } } },
  };
  for (const def of defs) {
    schemas[def.type] = resourceSchema(def);
    if (def.methods.includes('create') || def.actions) schemas[`${def.type}.create`] = writeSchema(def, 'create');
    if (def.methods.includes('update')) schemas[`${def.type}.update`] = writeSchema(def, 'update');
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Laboratory Tracking Service',
      version: '2',
      description: 'JSON:API v2 for laboratory material: samples, labware, transfers, tag layouts, QC and work requests.',
    },
    servers: [{ url: serverUrl }],
    security: [{ clientId: [] }],
    tags: registry.types.map((name) => ({ name })),
    paths: Object.assign({}, ...defs.map((def) => typePaths(registry, def, examples[def.type]))),
    components: {
      securitySchemes: { clientId: { type: 'apiKey', in: 'header', name: 'X-Sequencescape-Client-Id' } },
      schemas,
      responses: Object.fromEntries(
        Object.entries(ERROR_TITLES).map(([status, description]) => [`Error${status}`, { description, content: jsonApi(ref('Errors')) }]),
      ),
    },
  };
}
