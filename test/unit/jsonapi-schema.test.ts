import { expect, it } from 'vitest';
import { assertJsonApiDocument } from '../support/jsonapi-schema.ts';

// The schema check guards every response in the suite; make sure it really rejects bad documents.
it('accepts a valid document', () => {
  expect(() =>
    assertJsonApiDocument({ data: { type: 'samples', id: '1', attributes: { name: 'x' }, links: { self: 'https://h/api/v2/samples/1' } } }),
  ).not.toThrow();
});

it('rejects documents that break JSON:API', () => {
  expect(() => assertJsonApiDocument({ data: 5 })).toThrow(/not a valid JSON:API document/);
  expect(() => assertJsonApiDocument({ errors: [{ status: 422 }] })).toThrow();
  expect(() => assertJsonApiDocument({ data: [], included: [], links: { next: 'not a uri' } })).toThrow();
});
