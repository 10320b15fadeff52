import type { WriteContext } from '#lib/jsonapi/context.ts';
import { parseWriteDocument } from '#lib/jsonapi/document.ts';
import { errors, JsonApiError } from '#lib/jsonapi/errors.ts';
import type { ResourceDef, WriteInput } from '#lib/jsonapi/resource.ts';
import { resolveInput, validateValues } from '#lib/jsonapi/write.ts';

/**
 * The entries of an all-or-nothing bulk create (`{"data": [resource objects]}`, e.g.
 * `poly_metadata/bulk_create`), each checked as a POST of it alone would be, every error pointing into
 * its entry (`/data/<index>/…`).
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The error with its pointers moved from a single document's `/data` into entry `index` of the array. */
function atEntry(index: number, error: JsonApiError): JsonApiError {
  const moved = error.errors.map((e) =>
    e.source?.pointer?.startsWith('/data') ? { ...e, source: { ...e.source, pointer: `/data/${index}${e.source.pointer.slice('/data'.length)}` } } : e,
  );
  return new JsonApiError(moved, error.headers);
}

/**
 * Runs one check over every entry and throws the problems of all of them together. When entries fail
 * in different ways, only the problems of the earliest kind of check are reported (a 404 reference before a
 * 422 rule, as one POST would), so the response has one status.
 */
async function everyEntry<T, R>(items: readonly T[], check: (item: T, index: number) => R | Promise<R>): Promise<R[]> {
  const results: R[] = [];
  const problems: JsonApiError[] = [];
  for (const [index, item] of items.entries()) {
    try {
      results.push(await check(item, index));
    } catch (error) {
      if (!(error instanceof JsonApiError)) throw error;
      problems.push(atEntry(index, error));
    }
  }
  if (problems.length > 0) {
    const earliest = Math.min(...problems.map((p) => p.status));
    throw JsonApiError.all(problems.filter((p) => p.status === earliest));
  }
  return results;
}

export interface EntryLimit {
  /** Entries one request may hold. */
  max: number;
  /** Why, for the error past it (e.g. "each writes 4 of the 100 items a transaction holds"). */
  why: string;
}

/**
 * Checks a bulk body and resolves its entries as `POST /api/v2/<type>` would each: the array (400), its
 * length (422 when empty or past `limit`), each entry's structure (400) and values (422), then references — all
 * entries' in one batched read — required values and the resource's `validate`.
 */
export async function resolveEntries(ctx: WriteContext, def: ResourceDef, body: unknown, limit: EntryLimit): Promise<WriteInput[]> {
  if (!isObject(body) || !Array.isArray(body.data)) throw errors.invalidMember('/data', 'data must be an array of resource objects');
  const data: unknown[] = body.data;
  // A bulk create of nothing is a client's mistake (an empty selection), not a success that created nothing.
  if (data.length === 0) throw errors.invalidValue('/data', `data - must hold at least one ${def.type} resource object; got an empty array`);
  if (data.length > limit.max) {
    throw errors.tooLarge(
      '/data',
      `data - one request may create at most ${limit.max} ${def.type} (${limit.why}), got ${data.length}; send them in several requests`,
    );
  }
  const parsed = await everyEntry(data, (entry) => parseWriteDocument(ctx.registry, def, { data: entry }, 'create', undefined, def.acceptedTypes));
  const values = await everyEntry(parsed, (entry) => validateValues(def, entry));
  // Every entry's references in one batched read; each entry's resolution then finds them in the loader's cache.
  await ctx.loader.load(parsed.flatMap((entry) => Object.values(entry.links).flatMap((link) => (link === null ? [] : link))));
  return everyEntry(parsed, (entry, index) => resolveInput(ctx, def, entry, values[index]!, 'create'));
}
