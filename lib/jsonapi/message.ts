import { randomUUID } from 'node:crypto';
import * as z from '#lib/zod.ts';
import { newRequestContext, type ApiKeyIdentity } from '#lib/jsonapi/context.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH, serve } from '#lib/jsonapi/engine.ts';
import { errorResponse } from '#lib/jsonapi/error-response.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { lazySchema } from '#lib/jsonapi/resource.ts';
import { checkBodySize, routeRequest } from '#lib/jsonapi/request-checks.ts';
import { parsePath, type ApiRequest, type ApiResponse } from '#lib/jsonapi/request.ts';

/**
 * The engine's entry for writes that arrive as messages rather than HTTP requests (contract §4: the admin
 * command line and the inbound queue's consumer, both through lib/events/inbound.ts). A message is the write an HTTP client would send:
 * `{method, path, body, idempotency_key}`.
 */
const messageSchema = lazySchema(() =>
  z.strictObject(
    {
      method: z.enum(['POST', 'PATCH'], { error: 'must be POST or PATCH: messages only write' }),
      /** As over HTTP, with an optional query string (e.g. `?include=…`). */
      path: z.string({ error: 'must be a string' }).check(z.startsWith('/', 'must be a path such as /api/v2/samples')),
      /** The JSON:API document an HTTP client would send as the body. */
      body: z.record(z.string(), z.unknown(), { error: 'must be a JSON:API document (an object)' }),
      /** Plays the Idempotency-Key header's part, with the same stored request item. */
      idempotency_key: z.optional(
        z
          .string({ error: 'must be a string' })
          .check(
            z.minLength(1, 'must not be empty'),
            z.maxLength(MAX_IDEMPOTENCY_KEY_LENGTH, `may be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`),
            z.regex(/^[^\p{Cc}]*$/u, 'must not contain control characters'),
          ),
      ),
    },
    { error: 'a message must be an object {method, path, body, idempotency_key}' },
  ),
);

export type Message = z.infer<ReturnType<typeof messageSchema>>;

export interface MessageContext {
  registry: Registry;
  /**
   * Who sent the message, in place of an API key: a read scope may not write (403), the name is the
   * events' `actor.api_key` and scopes idempotency keys as an API key's name does. The admin command line
   * passes an identity of admin scope; the queue consumer the one it is configured with (LTS_INBOUND_IDENTITY).
   */
  identity: ApiKeyIdentity;
  /** The base of every link in the response and the events: the service's public URL. */
  baseUrl: string;
  /** Names the message in logs; a fresh one by default. */
  requestId?: string;
}

/** The message as a checked Message; each problem a 400 `invalid_message` pointing into the message. */
function parseMessage(message: unknown): Message {
  const result = messageSchema().safeParse(message);
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => errors.invalidMessage(pointer(key), `${key} is not a member of a message (method, path, body, idempotency_key)`));
    }
    const [member] = issue.path.map(String);
    if (member === undefined) return [errors.invalidMessage('', `${issue.message}, got ${show(message)}`)];
    const value = (message as Record<string, unknown>)[member];
    return [errors.invalidMessage(pointer(member), value === undefined ? `${member} is required` : `${member} - ${issue.message}, got ${show(value)}`)];
  });
  throw JsonApiError.all(problems);
}

/**
 * Runs a write from a message with the checks, atomicity and idempotency of the same HTTP request:
 * routing (404, 405 with Allow, 403), the body limit (413), then the engine. Returns the response HTTP
 * would give (status, headers such as Location, body), and never throws: a bad message, like any failure,
 * comes back as a JSON:API error response.
 */
export async function serveMessage(message: unknown, context: MessageContext): Promise<ApiResponse> {
  const { registry, identity, baseUrl, requestId = `message-${randomUUID()}` } = context;
  try {
    const { method, path: pathAndQuery, body, idempotency_key } = parseMessage(message);
    const [path = '', query = ''] = pathAndQuery.split(/\?(.*)/s);
    // A queue may deliver a message twice, so its key replays a PATCH too (HTTP ignores the header on PATCH).
    const request: ApiRequest = {
      method,
      path,
      query,
      headers: idempotency_key ? { 'idempotency-key': idempotency_key } : {},
      body: JSON.stringify(body),
      replayPatch: true,
    };
    const { def, target } = await routeRequest(registry, registry.types, request, parsePath(path, registry), identity);
    checkBodySize(request.body);
    return await serve(newRequestContext(registry, { baseUrl, requestId, apiKey: identity }), def, target, request);
  } catch (error) {
    return errorResponse(error, requestId);
  }
}
