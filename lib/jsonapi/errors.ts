/**
 * The one error taxonomy (contract §1.7). Every failure a client can cause is a JsonApiError made by one
 * of the named factories below, so `code` and `title` are stable per kind of problem and `detail` names
 * the field and the value. Anything else that escapes is an internal error and renders as a bare 500.
 */
export interface ErrorSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

export interface ErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: ErrorSource;
}

export class JsonApiError extends Error {
  readonly errors: ErrorObject[];
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(errors: ErrorObject[], headers: Record<string, string> = {}) {
    super(errors.map((e) => e.detail).join('; '));
    this.errors = errors;
    // A response has one status: the most common one among its errors, the first on a tie.
    this.status = Number(errors[0]?.status ?? 500);
    this.headers = headers;
  }

  /** Combines several errors of the same status into one response (one error per problem). */
  static all(errors: JsonApiError[]): JsonApiError {
    // A problem met twice (a repeated query key or field name) is reported once: JSON:API forbids duplicate errors.
    const unique = new Map(errors.flatMap((e) => e.errors).map((e) => [JSON.stringify(e), e]));
    return new JsonApiError([...unique.values()], Object.assign({}, ...errors.map((e) => e.headers)));
  }
}

function error(status: number, code: string, title: string, detail: string, source?: ErrorSource, headers?: Record<string, string>) {
  return new JsonApiError([{ status: String(status), code, title, detail, ...(source ? { source } : {}) }], headers);
}

/** An RFC 6901 JSON pointer: `~` and `/` inside a segment are escaped as `~0` and `~1`. */
export const pointer = (...segments: (string | number)[]): string => segments.map((s) => `/${escapeSegment(String(s))}`).join('');

const escapeSegment = (segment: string): string =>
  segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment;

/**
 * Renders a value for a detail message: strings quoted, everything else as JSON, long values cut. A value
 * too deeply nested to serialise (JSON.stringify and String recurse) is named by its kind instead.
 */
export function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Array.isArray(value) ? '[...]' : typeof value === 'object' && value !== null ? '{...}' : typeof value;
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const seconds = (n: number) => `${n} second${n === 1 ? '' : 's'}`;
const unavailable = (retryAfterSeconds: number, detail: string) =>
  error(503, 'service_unavailable', 'Service unavailable', detail, undefined, { 'Retry-After': String(retryAfterSeconds) });

export const API_KEY_HEADER = 'X-Sequencescape-Client-Id';

/** `<lead> a, b, c` in name order, or `none` when there are no names: what an error about a name the client chose lists instead. */
const namesList = (lead: string, names: readonly string[], none: string): string => (names.length > 0 ? `${lead} ${[...names].sort().join(', ')}` : none);

const SORT_FIELDS = 'use id, created_at or updated_at, optionally prefixed with -';

export const errors = {
  unauthorized: () =>
    error(401, 'unauthorized', 'Unauthorized', `Please ensure a valid API key is provided for header '${API_KEY_HEADER}'.`, { header: API_KEY_HEADER }),
  forbidden: (detail: string) => error(403, 'forbidden', 'Forbidden', detail),
  clientIdNotAllowed: () =>
    error(403, 'client_generated_id', 'Client-generated id not allowed', 'id - client-generated ids are not supported; omit data.id on POST', {
      pointer: '/data/id',
    }),
  notFound: (detail: string, source?: ErrorSource) => error(404, 'record_not_found', 'Record not found', detail, source),
  routeNotFound: (path: string) => error(404, 'route_not_found', 'Not found', `No resource is served at ${path}`),
  methodNotAllowed: (method: string, path: string, allow: string[]) =>
    error(405, 'method_not_allowed', 'Method not allowed', `${method} is not supported on ${path}; allowed: ${allow.join(', ')}`, undefined, {
      Allow: allow.join(', '),
    }),
  notAcceptable: (accept: string) =>
    error(406, 'not_acceptable', 'Not acceptable', `Accept ${show(accept)} names no media type this service produces; use application/vnd.api+json`, {
      header: 'Accept',
    }),
  unsupportedMediaType: (contentType: string | undefined, parameters: readonly string[] = []) =>
    error(
      415,
      'unsupported_media_type',
      'Unsupported media type',
      parameters.length > 0
        ? `Content-Type ${show(contentType)} has the media type parameter ${parameters.map((p) => show(p)).join(', ')}, which JSON:API does not allow (only ext and profile); send application/vnd.api+json without it`
        : `Content-Type ${contentType === undefined ? 'is missing' : `${show(contentType)} is not supported`}; writes must use application/vnd.api+json`,
      { header: 'Content-Type' },
    ),
  /** An answer that would be past Lambda's response limit (lib/http/response-size.ts): what the client can ask for instead. */
  responseTooLarge: (parameter: string, bytes: number, limit: number) =>
    error(
      400,
      'response_too_large',
      'Response too large',
      `the response would be ${bytes} bytes, past the ${limit} a response may have; send Accept-Encoding: gzip, or ask for fewer includes, sparse fieldsets or a smaller page[size]`,
      { parameter },
    ),
  /**
   * A record whose own includes cannot fit one response (a page holding more is shortened instead,
   * lib/jsonapi/compound.ts): `why` names the limit they would pass.
   */
  includeTooLarge: (record: { type: string; id: number }, path: string, why: string) =>
    error(
      400,
      'include_too_large',
      'Include too large',
      `${path ? `include ${show(path)} of ` : ''}${record.type} ${record.id} ${why}; ask for fewer includes or sparse fieldsets`,
      { parameter: 'include' },
    ),
  payloadTooLarge: (limit: number) => error(413, 'payload_too_large', 'Payload too large', `request bodies are limited to ${limit} bytes`),
  conflict: (detail: string, pointer?: string) => error(409, 'conflict', 'Conflict', detail, pointer ? { pointer } : undefined),
  concurrentUpdate: () =>
    error(409, 'concurrent_update', 'Concurrent update', 'the record was changed by another request while this one ran; retry with the current state'),

  badRequest: (detail: string, source?: ErrorSource) => error(400, 'bad_request', 'Bad request', detail, source),
  /** A request the HTTP server could not parse (the local server; API Gateway answers these itself on AWS). */
  invalidHttp: (status: 400 | 408 | 431, detail: string) => error(status, 'invalid_http_request', 'Invalid HTTP request', detail),
  invalidJson: (message: string) => error(400, 'invalid_json', 'Invalid JSON', `the request body is not valid JSON: ${message}`),
  missingMember: (pointer: string, member: string) => error(400, 'missing_member', 'Missing member', `${member} is required`, { pointer }),
  invalidMember: (pointer: string, detail: string) => error(400, 'invalid_member', 'Invalid member', detail, { pointer }),
  paramNotAllowed: (pointer: string, name: string, why: string) =>
    error(400, 'param_not_allowed', 'Param not allowed', `${name} is not allowed${why ? ` (${why})` : ''}`, { pointer }),
  invalidLinkage: (pointer: string, name: string, detail: string) => error(400, 'invalid_linkage', 'Invalid linkage', `${name} - ${detail}`, { pointer }),
  typeMismatch: (pointer: string, name: string, given: unknown, accepted: readonly string[]) =>
    error(400, 'type_mismatch', 'Type mismatch', `${name} - ${show(given)} is not a valid type for this relationship; expected ${accepted.join(' or ')}`, {
      pointer,
    }),
  invalidId: (value: unknown, source: ErrorSource) =>
    error(400, 'invalid_id', 'Invalid id', `${show(value)} is not a valid id; ids are positive integers`, source),
  invalidHeader: (header: string, detail: string) => error(400, 'invalid_header', 'Invalid header', detail, { header }),
  /** An inbound message (lib/jsonapi/message.ts) of the wrong shape; the pointer is into the message. */
  invalidMessage: (pointer: string, detail: string) => error(400, 'invalid_message', 'Invalid message', detail, { pointer }),
  invalidParameter: (parameter: string, detail: string) => error(400, 'invalid_parameter', 'Invalid query parameter', detail, { parameter }),
  filterNotAllowed: (parameter: string, name: string, type: string, allowed: readonly string[]) =>
    error(
      400,
      'filter_not_allowed',
      'Filter not allowed',
      `${name} is not an allowed filter for ${type}; ${namesList('its filters are', allowed, 'it has no filters')}`,
      {
        parameter,
      },
    ),
  invalidInclude: (path: string, relationship: string, type: string, valid: readonly string[]) =>
    error(
      400,
      'invalid_include',
      'Invalid include',
      `${relationship} is not a valid relationship of ${type} (in include path ${show(path)}); ${namesList('its relationships are', valid, 'it has no relationships')}`,
      { parameter: 'include' },
    ),
  invalidField: (parameter: string, detail: string) => error(400, 'invalid_field', 'Invalid field', detail, { parameter }),
  invalidSort: (field: string) =>
    error(400, 'invalid_sort', 'Invalid sort criteria', `${show(field)} is not a sortable field; ${SORT_FIELDS}`, { parameter: 'sort' }),
  emptySortField: (value: string, position: number) =>
    error(400, 'invalid_sort', 'Invalid sort criteria', `sort ${show(value)} has an empty field (field ${position}); ${SORT_FIELDS}`, { parameter: 'sort' }),
  tooManyRelated: (relationship: string, type: string, limit: number) =>
    error(
      400,
      'too_many_related',
      'Too many related resources',
      `${relationship} - more than ${limit} ${type} point at the records asked for or at records stored with them (a plate's wells are read together); at most ${limit} are read at once, so ask for fewer records`,
    ),
  invalidPage: (parameter: string, detail: string) => error(400, 'invalid_page', 'Invalid page value', detail, { parameter }),
  templateConflict: (detail: string, pointer: string) => error(400, 'template_conflict', 'Param not allowed', detail, { pointer }),

  invalidValue: (pointer: string, detail: string) => error(422, 'invalid_value', 'Invalid value', detail, { pointer }),
  wrongType: (pointer: string, detail: string) => error(422, 'invalid_type', 'Invalid type', detail, { pointer }),
  missingRequired: (pointer: string, name: string) => error(422, 'required', 'Missing required value', `${name} - can't be blank`, { pointer }),
  /** `holder` names what holds the value, when the write knows it (`by poly_metadata 7 on requests 5`). */
  notUnique: (pointer: string, name: string, value: unknown, holder?: string) =>
    error(422, 'not_unique', 'Already taken', `${name} - ${show(value)} is already in use${holder ? ` by ${holder}` : ''}`, { pointer }),
  invalidTransition: (pointer: string, detail: string) => error(422, 'invalid_transition', 'Invalid state transition', detail, { pointer }),
  tooLarge: (pointer: string, detail: string) => error(422, 'too_large', 'Too large', detail, { pointer }),
  /** DynamoDB throttled the request or did not answer in time, or the request's deadline passed: retry later (the Retry-After header says when). */
  serviceUnavailable: (retryAfterSeconds: number) =>
    unavailable(retryAfterSeconds, `The service is temporarily unable to handle the request; retry after ${seconds(retryAfterSeconds)}.`),
  /** A write's transaction got no answer in time, so it may have been applied: the same request under the same Idempotency-Key tells. */
  writeOutcomeUnknown: (retryAfterSeconds: number) =>
    unavailable(
      retryAfterSeconds,
      `The service did not learn in time whether this write was applied; it may or may not have been. Repeat it with the same Idempotency-Key after ${seconds(retryAfterSeconds)}: if it was applied, its first response is returned; if not, it is applied once.`,
    ),
  idempotencyMismatch: () =>
    error(422, 'idempotency_key_reused', 'Idempotency key reused', 'Idempotency-Key was already used with a different request body', {
      header: 'Idempotency-Key',
    }),
};

/** The body of a 500: nothing about the internals. */
export const internalError: ErrorObject = {
  status: '500',
  code: 'internal_error',
  title: 'Internal server error',
  detail: 'The server could not complete the request; it has been logged.',
};
