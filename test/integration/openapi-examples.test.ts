import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LocalService } from '#lib/local/service.ts';
import { KEY_SCOPE } from '#lib/jsonapi/openapi.ts';
import { ADMIN_KEY, freshHttpService, WRITE_KEY } from '../support/store.ts';

/**
 * The examples of the OpenAPI document (issue 12) work as written: on a fresh service (the local server
 * `npm start` runs, on a new table with the default reference data), every example is sent in the
 * document's order — method, path (a PATCH's id from its body; a GET's query from its parameters' examples)
 * and body — and answered with the status the document gives it, holding what its response example shows.
 * Every POST and PATCH has an example,
 * so a new type without one fails here. The docs page shows them in that order: its sections follow the
 * document's `tags`, which follow its paths.
 */

let service: LocalService;
let document: any;
beforeAll(async () => {
  service = await freshHttpService();
  document = await (await fetch(`${service.url}/api/v2/openapi.json`)).json();
});
afterAll(() => service?.stop());

interface Sent {
  method: string;
  path: string;
  name: string;
  body: any;
  status: number;
  response: any;
  /** The key it is sent with: an admin key where the operation says it needs one (registering purposes). */
  key: string;
}

/** Every example of the document in its order: the operation, the request body, and the response of the status that lists the same example name. */
function examplesOf(doc: any): { operations: string[]; sent: Sent[] } {
  const operations: string[] = [];
  const sent: Sent[] = [];
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    // A collection GET's examples (a read-only type's): its query from the parameters' values of the same name.
    for (const [name, example] of Object.entries<any>(item.get?.responses['200'].content?.['application/vnd.api+json']?.examples ?? {})) {
      const query = item.get.parameters.filter((p: any) => p.examples?.[name]).map((p: any) => `${p.name}=${encodeURIComponent(p.examples[name].value)}`);
      sent.push({ method: 'GET', path: `${template}?${query.join('&')}`, name, body: undefined, status: 200, response: example.value, key: WRITE_KEY });
    }
    for (const method of ['post', 'patch']) {
      const operation = item[method];
      if (!operation) continue;
      operations.push(`${method.toUpperCase()} ${template}`);
      const requests = operation.requestBody?.content?.['application/vnd.api+json']?.examples ?? {};
      for (const [name, example] of Object.entries<any>(requests)) {
        const answers = Object.entries<any>(operation.responses).filter(([, r]) => r.content?.['application/vnd.api+json']?.examples?.[name]);
        expect(answers, `${method} ${template} ${name}: one response lists it`).toHaveLength(1);
        const [status, response] = answers[0]!;
        sent.push({
          method: method.toUpperCase(),
          path: template.replace('{id}', example.value.data?.id),
          name,
          body: example.value,
          status: Number(status),
          response: response.content['application/vnd.api+json'].examples[name].value,
          key: operation[KEY_SCOPE] === 'admin' ? ADMIN_KEY : WRITE_KEY,
        });
      }
    }
  }
  return { operations, sent };
}

/** The path template an example's path was made from: its id back to `{id}` (a PATCH's, or a member action's: `plates/{id}/register_stock_for_plate`). */
const operationOf = (path: string) => path.replace(/\/\d+(?=\/[a-z_]+$|$)/, '/{id}');

it('has an example for every POST and PATCH (and action), and a documented error', () => {
  const { operations, sent } = examplesOf(document);
  expect(operations.length).toBeGreaterThan(25);
  for (const operation of operations)
    expect(
      sent.map((s) => `${s.method} ${operationOf(s.path)}`),
      operation,
    ).toContain(operation);
  expect(sent.some((s) => s.status >= 400)).toBe(true);
  // The check can fail: a document whose last write lost its examples is missing one.
  const stripped = structuredClone(document);
  delete stripped.paths['/api/v2/tag_layouts'].post.requestBody.content['application/vnd.api+json'].examples;
  const { operations: all, sent: fewer } = examplesOf(stripped);
  expect(all.filter((o) => !fewer.some((s) => `${s.method} ${operationOf(s.path)}` === o))).toEqual(['POST /api/v2/tag_layouts']);
});

it('lists its types (the sections of the docs page) in the order of its paths, the order its examples are sent in', () => {
  // Swagger UI draws one section per tag, in the order of `tags`: the page is then read top to bottom as the examples run.
  const inPathOrder = [...new Set(Object.values<any>(document.paths).flatMap((item) => Object.values<any>(item).flatMap((operation) => operation.tags)))];
  expect(document.tags.map((tag: { name: string }) => tag.name)).toEqual(inPathOrder);
  expect(inPathOrder[0]).toBe('samples');
  // Where a newcomer starts: the first write on the page is a sample's.
  const firstWrite = Object.entries<any>(document.paths).find(([, item]) => item.post)!;
  expect(firstWrite[0]).toBe('/api/v2/samples');
});

it('answers every example, sent in the document’s order on a fresh service, as documented', async () => {
  const { sent } = examplesOf(document);
  for (const example of sent) {
    const res = await fetch(`${service.url}${example.path}`, {
      method: example.method,
      headers: { 'X-Sequencescape-Client-Id': example.key, 'Content-Type': 'application/vnd.api+json', Accept: 'application/vnd.api+json' },
      ...(example.body === undefined ? {} : { body: JSON.stringify(example.body) }),
    });
    const body = await res.json();
    const what = `${example.method} ${example.path} ${example.name}: ${JSON.stringify(body).slice(0, 600)}`;
    expect(res.status, what).toBe(example.status);
    expect(body, what).toMatchObject(example.response);
  }
});
