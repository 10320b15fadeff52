import { errors, JsonApiError, show } from '#lib/jsonapi/errors.ts';

/**
 * The JSON:API query parameters of a request, parsed from the raw query string so every encoding real
 * clients send works: brackets raw or percent-encoded, `+` for spaces, comma lists and repeated `[]` keys.
 * This module only checks the syntax; what the names mean is checked against the resource.
 */
export interface ParsedQuery {
  include: string[] | undefined;
  fields: Map<string, string[]>;
  filters: Map<string, string[]>;
  page: { number?: string; size?: string; cursor?: string };
  sort: string[] | undefined;
  /** Decoded pairs in order, for rebuilding links. */
  pairs: [string, string][];
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function decode(component: string, what: string): string {
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    decoded = undefined;
  }
  // A lone surrogate (possible in a hand-built event, never over HTTP) could not be encoded into links again.
  if (decoded === undefined || LONE_SURROGATE.test(decoded)) {
    throw errors.badRequest(`query ${what} ${show(component)} is not valid percent-encoded UTF-8`, { parameter: component });
  }
  return decoded;
}

const splitList = (value: string): string[] =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

/** `family[name]` or `family[name][]` → name; anything else undefined. */
function bracketed(key: string, family: string): string | undefined {
  const match = new RegExp(`^${family}\\[([^\\[\\]]+)\\](\\[\\])?$`).exec(key);
  return match?.[1];
}

export function parseQuery(raw: string | undefined): ParsedQuery {
  const result: ParsedQuery = { include: undefined, fields: new Map(), filters: new Map(), page: {}, sort: undefined, pairs: [] };
  const problems: JsonApiError[] = [];
  for (const part of (raw ?? '').split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decode(eq < 0 ? part : part.slice(0, eq), 'key');
    const value = eq < 0 ? '' : decode(part.slice(eq + 1), 'value');
    result.pairs.push([key, value]);

    if (key === 'include') {
      result.include = [...(result.include ?? []), ...splitList(value)];
    } else if (key === 'sort') {
      // An empty field (`sort=`, `sort=,`, `sort=id,,-id`) is refused naming it, never read as no sort.
      const fields = value.split(',').map((v) => v.trim());
      const empty = fields.indexOf('');
      if (empty >= 0) problems.push(errors.emptySortField(value, empty + 1));
      else result.sort = [...(result.sort ?? []), ...fields];
    } else if (key.startsWith('filter')) {
      const name = bracketed(key, 'filter');
      if (!name) problems.push(errors.invalidParameter(key, `${show(key)} is not a valid filter parameter; use filter[<name>]=<value>`));
      else result.filters.set(name, [...(result.filters.get(name) ?? []), ...splitList(value)]);
    } else if (key.startsWith('fields')) {
      const type = bracketed(key, 'fields');
      if (!type || key.endsWith('[]'))
        problems.push(errors.invalidParameter(key, `${show(key)} is not a valid fields parameter; use fields[<type>]=<field>,<field>`));
      else result.fields.set(type, [...(result.fields.get(type) ?? []), ...splitList(value)]);
    } else if (key.startsWith('page[')) {
      // Unknown page keys (e.g. json_api_client's page[page]/page[per_page]) are ignored, as in the reference.
      const name = bracketed(key, 'page');
      if (name === 'number' || name === 'size' || name === 'cursor') result.page[name] = value;
    } else {
      problems.push(errors.invalidParameter(key, `${show(key)} is not a supported query parameter; use include, fields, filter, page or sort`));
    }
  }
  if (problems.length > 0) throw JsonApiError.all(problems);
  return result;
}

/** Percent-encodes a query for a link: brackets and commas encoded, so every link is a valid URI. */
export function buildQuery(pairs: readonly [string, string][]): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}
