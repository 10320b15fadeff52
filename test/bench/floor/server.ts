import { createServer, type IncomingMessage, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { acceptsGzip, GZIP_LEVEL, GZIP_MIN_BYTES } from '#lib/http/response-size.ts';
import { capacityHeader } from '#lib/store/client.ts';
import { createSample } from './create.ts';
import { plateCreation, specificTubeCreation } from './creations.ts';
import { stamp, tagLayout } from './lab.ts';
import { plateStateChange, transferRequestCollection } from './lab-work.ts';
import { ONGOING_INCLUDE, ongoingPlates } from './ongoing-plates.ts';
import { plateForPresenter, PRESENTER_INCLUDE } from './plate-page.ts';
import { bulkCreatePolyMetadata } from './poly-metadata.ts';
import { specificTubeRackCreation } from './rack-creation.ts';
import { Db } from './db.ts';
import { getPlate, getSample, listSamples, type Answer, type SamplesPage } from './reads.ts';

/**
 * The floor: a bare node:http server answering the bench's requests with the least DynamoDB work
 * that gives the same answer — no middy, no ElectroDB, no zod, no authentication, no validation beyond
 * what the answer needs. It reads and writes the service's table, items as the service writes them: ids
 * come from the same sequences, so the two never collide. (A table of the floor's own made every floor
 * write ~10× slower: once the service's table holds the seeded samples, DynamoDB Local answers writes to
 * any other table far slower than to that one, ~14 ms against ~2 ms an UpdateItem; docs/decisions.md.)
 */
export interface FloorOptions {
  doc: DynamoDBDocumentClient;
  /** The service's table. */
  table: string;
}

const PLATE_INCLUDE = 'wells.aliquots.sample.sample_metadata';

/** A request as a floor answers it: its method, its path and query as received, and its body when asked for. */
export interface FloorRequest {
  method: string | undefined;
  url: string | undefined;
  body(): Promise<string | undefined>;
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
}

const positiveId = (raw: string): number | undefined => (/^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : undefined);

/** Page 1, or a later page with the cursor of the service's `next` link (the only pages the bench asks for). */
function samplesPage(params: URLSearchParams): SamplesPage | undefined {
  const size = Number(params.get('page[size]') ?? 100);
  const number = Number(params.get('page[number]') ?? 1);
  const cursor = params.get('page[cursor]');
  if (number === 1 && cursor === null) return { number, size };
  try {
    const decoded = JSON.parse(Buffer.from(cursor ?? '', 'base64url').toString('utf8')) as { p: number; s: string; a: { id: number } };
    return decoded.p === number && decoded.s === 'id' ? { number, size, afterId: decoded.a.id } : undefined;
  } catch {
    return undefined;
  }
}

/** The design floor's answer to a request, its reads and writes made through `db`. */
export async function route(db: Db, options: FloorOptions, req: FloorRequest, base: string): Promise<Answer> {
  const url = new URL(req.url ?? '/', base);
  const [, api, v2, type, rawId, ...rest] = url.pathname.split('/');
  if (req.method === 'POST' && type === 'poly_metadata' && rawId === 'bulk_create' && rest.length === 0)
    return bulkCreatePolyMetadata(db, options.table, base, await req.body());
  const id = rawId === undefined ? undefined : positiveId(rawId);
  if (api !== 'api' || v2 !== 'v2' || rest.length > 0 || (rawId !== undefined && id === undefined)) return { status: 404 };
  if (req.method === 'GET' && type === 'samples' && id !== undefined) return getSample(db, options.table, base, id);
  if (req.method === 'GET' && type === 'samples' && rawId === undefined) {
    const page = samplesPage(url.searchParams);
    return page ? listSamples(db, options.table, base, page) : { status: 400 };
  }
  if (req.method === 'GET' && type === 'plates' && rawId === undefined) {
    const include = url.searchParams.get('include');
    if (include === ONGOING_INCLUDE) return ongoingPlates(db, options.table, base, url.searchParams);
    if (!url.searchParams.has('filter[uuid]') || include !== PRESENTER_INCLUDE) return { status: 400 };
    return plateForPresenter(db, options.table, base, url.searchParams);
  }
  if (req.method === 'GET' && type === 'plates' && id !== undefined) {
    const include = url.searchParams.get('include');
    if (include !== null && include !== PLATE_INCLUDE) return { status: 400 };
    return getPlate(db, options.table, base, id, include === PLATE_INCLUDE);
  }
  if (req.method === 'POST' && type === 'samples' && rawId === undefined) return createSample(db, options.table, base, await req.body());
  if (req.method === 'POST' && type === 'transfers' && rawId === undefined) return stamp(db, options.table, base, await req.body());
  if (req.method === 'POST' && type === 'tag_layouts' && rawId === undefined) return tagLayout(db, options.table, base, await req.body());
  if (req.method === 'POST' && type === 'transfer_request_collections' && rawId === undefined)
    return transferRequestCollection(db, options.table, base, await req.body());
  if (req.method === 'POST' && type === 'plate_creations' && rawId === undefined) return plateCreation(db, options.table, base, await req.body());
  if (req.method === 'POST' && type === 'specific_tube_creations' && rawId === undefined)
    return specificTubeCreation(db, options.table, base, await req.body());
  if (req.method === 'POST' && type === 'specific_tube_rack_creations' && rawId === undefined)
    return specificTubeRackCreation(db, options.table, base, await req.body());
  if (req.method === 'POST' && type === 'state_changes' && rawId === undefined) return plateStateChange(db, options.table, base, await req.body());
  return { status: 404 };
}

/**
 * A body as the service sends it (lib/http/response-size.ts, `encodeResult`): from GZIP_MIN_BYTES on, gzip at
 * the service's level for a client that accepts it, and `Vary` either way. Without Lambda's base64 on the way,
 * which is the service's protocol, not work the answer needs.
 */
function encoded(text: string, acceptEncoding: string | undefined): { body: string | Buffer; headers: Record<string, string> } {
  if (Buffer.byteLength(text) < GZIP_MIN_BYTES) return { body: text, headers: {} };
  if (!acceptsGzip(acceptEncoding)) return { body: text, headers: { Vary: 'Accept-Encoding' } };
  return { body: gzipSync(text, { level: GZIP_LEVEL }), headers: { Vary: 'Accept-Encoding', 'Content-Encoding': 'gzip' } };
}

/** What the request cost, in the service's headers: DynamoDB calls and the capacity units they consumed. */
const costHeaders = (db: Db): Record<string, string> => ({ 'X-DynamoDB-Calls': String(db.calls), 'X-DynamoDB-Capacity': capacityHeader(db.capacity) });

/** A floor's HTTP server: each request answered by `answer` through a fresh counted Db, its cost in the service's headers. */
export function floorServer(doc: DynamoDBDocumentClient, answer: (db: Db, req: FloorRequest, base: string) => Promise<Answer>): Server {
  return createServer((req, res) => {
    const db = new Db(doc);
    const base = `http://${req.headers.host ?? 'localhost'}`;
    answer(db, { method: req.method, url: req.url, body: () => readBody(req) }, base).then(
      (reply) => {
        const { body, headers } = encoded(reply.body === undefined ? '' : JSON.stringify(reply.body), req.headers['accept-encoding']);
        res.writeHead(reply.status, { 'Content-Type': 'application/vnd.api+json', ...costHeaders(db), ...headers, ...reply.headers });
        res.end(body);
      },
      (error: unknown) => {
        console.error(error);
        res.writeHead(500, { 'Content-Type': 'application/vnd.api+json', ...costHeaders(db) });
        res.end(JSON.stringify({ errors: [{ status: '500', title: 'Internal server error' }] }));
      },
    );
  });
}

export const createFloorServer = (options: FloorOptions): Server => floorServer(options.doc, (db, req, base) => route(db, options, req, base));
