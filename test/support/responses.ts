import { expect } from 'vitest';
import type { CallResult } from './api.ts';

/** A response header by name, whatever its case. */
export const header = (res: CallResult, name: string): string | undefined =>
  Object.entries(res.headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** The ids of a collection response's resources. */
export const idsOf = (res: CallResult): string[] => res.body.data.map((r: any) => r.id);

/** `type/id` of each of a collection response's resources (for polymorphic lists). */
export const typedIdsOf = (res: CallResult): string[] => res.body.data.map((r: any) => `${r.type}/${r.id}`);

/** A `links.*` URL of a response as a path `call` takes. */
export const pathOf = (url: string): string => url.slice('https://lts.test'.length);

/**
 * Checks a JSON:API error response: its status, content type and an error object of that status (the one
 * at `pointer` if given, else the first) with `code` if given; returns that error object.
 */
export function expectError(res: CallResult, status: number, code?: string, pointer?: string): any {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['Content-Type']).toBe('application/vnd.api+json');
  expect(Array.isArray(res.body.errors)).toBe(true);
  expect(res.body.errors.length).toBeGreaterThan(0);
  const error = pointer ? res.body.errors.find((e: any) => e.source?.pointer === pointer) : res.body.errors[0];
  expect(error, `no error at ${pointer}: ${JSON.stringify(res.body.errors)}`).toBeDefined();
  expect(error.status).toBe(String(status));
  if (code) expect(error.code).toBe(code);
  return error;
}

/** Each distinct answer of a burst of writes (status and first error code) with how many writers got it: `201 × 50`. */
export const statuses = (results: readonly CallResult[]): string[] => {
  const counts = new Map<string, number>();
  for (const r of results) {
    const key = `${r.status} ${r.body.errors?.[0]?.code ?? ''}`.trim();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} × ${n}`);
};
