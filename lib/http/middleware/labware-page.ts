import type { Pages } from '#lib/http/handler.ts';
import { config } from '#lib/config.ts';
import { baseUrl } from '#lib/http/base-url.ts';
import { finishResponse } from '#lib/http/middleware/request-log.ts';
import type { ChainMiddleware, LtsContext } from '#lib/http/request.ts';
import { newRequestContext, type ApiKeyIdentity } from '#lib/jsonapi/context.ts';
import { serve } from '#lib/jsonapi/engine.ts';
import { errorResponse } from '#lib/jsonapi/error-response.ts';
import { errors, type JsonApiError } from '#lib/jsonapi/errors.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import type { ApiRequest, ApiResponse } from '#lib/jsonapi/request.ts';
import { errorPage, PAGE_HEADERS } from '#lib/pages/html.ts';
import { LABWARE_MAP_INCLUDE, labwareMapPage, labwareView, TRAIL_SHOWN, trailRows, type LabwareDocument } from '#lib/pages/labware-map.ts';
import { authenticateKey } from '#lib/store/api-keys.ts';

/**
 * `GET /labware/{barcode}`: the plate map (lib/pages/labware-map.ts), HTML for people, answered early in
 * the chain like the service root. It is drawn from the very response the engine gives
 * `GET /api/v2/labware?filter[barcode]=…&include=LABWARE_MAP_INCLUDE`, so it costs exactly that request's
 * DynamoDB calls.
 *
 * Keys as for the API (a read key is enough): `X-Sequencescape-Client-Id` for tools, or — since a browser
 * cannot add a header to a navigation — the key typed once into the form of the 401 page, which POSTs it
 * here; a valid key comes back as an `HttpOnly; SameSite=Strict` cookie scoped to `/labware`, kept until
 * the browser closes (docs/decisions.md, "Plate maps").
 */

const PAGE_PATH = /^\/labware\/([^/]+)$/;
/** Barcodes as labware are given them (lib/resources/labware.ts, barcodeInput), in any of their forms. */
const BARCODE = /^[A-Za-z0-9._:-]{1,64}$/;
export const KEY_COOKIE = 'lts_key';
/** A form with one key in it; anything larger is not that form. */
const MAX_FORM_BYTES = 4096;
const FORM = 'application/x-www-form-urlencoded';

/** A page: its cookies go to payload 2.0's `cookies` field, which API Gateway sends as Set-Cookie headers. */
type PageResponse = ApiResponse & { cookies?: string[] };

/** An error whose page carries the key form (a 401) and maybe a cookie to clear. */
class PageError extends Error {
  constructor(
    readonly error: JsonApiError,
    readonly problem?: string,
    readonly cookies: string[] = [],
  ) {
    super(error.message);
  }
}

/** The key from the request's cookies: payload 2.0 gives them in `event.cookies`, `name=value` each, never in a Cookie header. */
function cookieKey(cookies: readonly string[] | undefined): string | undefined {
  const raw = cookies?.find((cookie) => cookie.startsWith(`${KEY_COOKIE}=`))?.slice(KEY_COOKIE.length + 1);
  try {
    return raw ? decodeURIComponent(raw) : undefined;
  } catch {
    return undefined;
  }
}

/** The cookie's attributes: only these pages, never to another site, never to scripts; Secure over https. */
function cookie(base: string, value: string, maxAge?: number): string {
  const url = new URL(base);
  const path = `${url.pathname.replace(/\/$/, '')}/labware`;
  return [
    `${KEY_COOKIE}=${value}`,
    `Path=${path}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(url.protocol === 'https:' ? ['Secure'] : []),
    ...(maxAge !== undefined ? [`Max-Age=${maxAge}`] : []),
  ].join('; ');
}

/** The caller's identity: the header's key, else the cookie's; a 401 (with the form) without a valid one. */
async function identify(request: ApiRequest, cookies: readonly string[] | undefined, base: string): Promise<ApiKeyIdentity> {
  const header = request.headers['x-sequencescape-client-id'];
  const fromCookie = header ? undefined : cookieKey(cookies);
  const key = header ?? fromCookie;
  const identity = key ? await authenticateKey(key) : null;
  if (identity) return { name: identity.name, scope: identity.scope };
  // A cookie whose key was revoked is cleared, so the browser stops sending it.
  throw new PageError(errors.unauthorized(), key ? 'That key is not valid (any more).' : undefined, fromCookie ? [cookie(base, '', 0)] : []);
}

function barcodeOf(segment: string): string {
  let barcode: string;
  try {
    barcode = decodeURIComponent(segment);
  } catch {
    barcode = segment;
  }
  if (!BARCODE.test(barcode))
    throw errors.badRequest(`${JSON.stringify(barcode.slice(0, 80))} is not a barcode: barcodes are 1 to 64 letters, digits, ".", "_", ":" or "-"`);
  return barcode;
}

/** The key form: from this origin only (a page elsewhere cannot post a key into this browser), one valid key. */
async function signIn(request: ApiRequest, base: string, barcode: string): Promise<PageResponse> {
  const origin = request.headers.origin;
  if ((origin !== undefined && origin !== new URL(base).origin) || request.headers['sec-fetch-site'] === 'cross-site')
    throw errors.forbidden('the key form is accepted only from this service’s own pages');
  if ((request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() !== FORM) throw errors.unsupportedMediaType(request.headers['content-type']);
  if (Buffer.byteLength(request.body ?? '') > MAX_FORM_BYTES) throw errors.payloadTooLarge(MAX_FORM_BYTES);
  const key = new URLSearchParams(request.body ?? '').get('key')?.trim() ?? '';
  if (!key || !(await authenticateKey(key))) throw new PageError(errors.unauthorized(), key ? 'That key is not valid.' : 'Enter a key.');
  return { status: 303, headers: { Location: `${base}/labware/${encodeURIComponent(barcode)}` }, cookies: [cookie(base, encodeURIComponent(key))] };
}

/** The map: the labware API's own answer for the barcode, drawn. */
async function draw(resources: Registry, lts: LtsContext['lts'], base: string, barcode: string): Promise<ApiResponse> {
  const ctx = newRequestContext(resources, { baseUrl: base, requestId: lts.requestId, apiKey: lts.apiKey });
  const query = `filter[barcode]=${encodeURIComponent(barcode)}&include=${LABWARE_MAP_INCLUDE}`;
  const api: ApiRequest = { method: 'GET', path: '/api/v2/labware', query, headers: lts.request.headers };
  const answer = await serve(ctx, resources.require('labware'), { type: 'labware' }, api);
  const document = JSON.parse(answer.body!) as LabwareDocument;
  if (document.data.length === 0) throw errors.notFound(`No labware has the barcode ${barcode}.`);
  const view = labwareView(document);
  // Its history: the newest entries of its audit trail, read as the API reads them (the same key's rights).
  const trailQuery = `filter[labware]=${document.data[0]!.id}&page[size]=${TRAIL_SHOWN}`;
  const trailApi: ApiRequest = { method: 'GET', path: '/api/v2/labware_audits', query: trailQuery, headers: lts.request.headers };
  const trail = JSON.parse((await serve(ctx, resources.require('labware_audits'), { type: 'labware_audits' }, trailApi)).body!);
  const body = labwareMapPage(
    view,
    {
      page: (other) => `${base}/labware/${encodeURIComponent(other)}`,
      document: `${base}/api/v2/labware?${query}`,
      self: document.data[0]!.links?.self ?? `${base}/api/v2/labware`,
      trail: `${base}/api/v2/labware_audits?filter[labware]=${document.data[0]!.id}`,
    },
    { rows: trailRows(trail), total: trail.meta.record_count },
  );
  return { status: 200, headers: {}, body };
}

async function answer(resources: Registry, lts: LtsContext['lts'], cookies: readonly string[] | undefined, segment: string): Promise<PageResponse> {
  const { request } = lts;
  const base = baseUrl(config().LTS_BASE_URL, request.headers);
  if (request.method === 'POST') return signIn(request, base, barcodeOf(segment));
  if (request.method !== 'GET') throw errors.methodNotAllowed(request.method, request.path, ['GET', 'POST']);
  lts.apiKey = await identify(request, cookies, base);
  return draw(resources, lts, base, barcodeOf(segment));
}

/** Any failure as a page: the JSON:API error's status, headers, title and detail; a 401 with the key form. */
function errorAsPage(error: unknown, lts: LtsContext['lts']): PageResponse {
  const cause = error instanceof PageError ? error.error : error;
  const response = errorResponse(cause, lts.requestId);
  const first = (JSON.parse(response.body!) as { errors: { title?: string; detail?: string }[] }).errors[0] ?? {};
  const form = response.status === 401 ? (error instanceof PageError && error.problem ? { problem: error.problem } : {}) : undefined;
  return {
    status: response.status,
    headers: response.headers,
    body: errorPage(response.status, first.title ?? 'Error', first.detail ?? 'The request failed.', form),
    ...(error instanceof PageError && error.cookies.length > 0 ? { cookies: error.cookies } : {}),
  };
}

export function labwarePage(resources: Registry): ChainMiddleware {
  return {
    before: async (request) => {
      const { lts } = request.context;
      const segment = PAGE_PATH.exec(lts.request.path)?.[1];
      if (segment === undefined) return undefined;
      let response: PageResponse;
      try {
        response = await answer(resources, lts, request.event.cookies, segment);
      } catch (error) {
        response = errorAsPage(error, lts);
      }
      return finishResponse(request, {
        statusCode: response.status,
        headers: { ...PAGE_HEADERS, 'X-Request-Id': lts.requestId, ...response.headers },
        ...(response.cookies ? { cookies: response.cookies } : {}),
        ...(response.body !== undefined ? { body: response.body } : {}),
      });
    },
  };
}

/** The labware function's pages (functions/labware.ts): the plate maps at LABWARE_PAGE. */
export const labwarePages = (resources: Registry): Pages => ({ open: [labwarePage(resources)] });
