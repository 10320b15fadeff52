import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2, DynamoDBRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SWAGGER_UI_FILES } from '#lib/http/docs-assets.ts';
import { KEY_COOKIE } from '#lib/http/middleware/labware-page.ts';
import { LAMBDA_RESPONSE_BYTES, payloadBytes } from '#lib/http/response-size.ts';
import { config, resetConfig } from '#lib/config.ts';
import { DEAD_LETTER_DETAIL_TYPE, DEAD_LETTER_SOURCE } from '#lib/events/dead-letters.ts';
import { POLY_METADATUM_ITEMS, polyMetadataItems, TRANSACTION_ITEM_LIMIT } from '#lib/domain/budgets.ts';
import { FALLBACK, routes } from '#lib/routes.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import { dynamo, killProcessAfter } from '#lib/store/client.ts';
import { readOpenEntries } from '#lib/store/tx-items.ts';
import { registry } from '#lib/resources/index.ts';
import { call, doc } from '../support/api.ts';
import { serviceStack } from '../support/cdk-app.ts';
import { SynthesizedStack } from '../support/cloudformation.ts';
import { type Artifacts, buildArtifacts, LambdaContainer, type RecordedCall } from '../support/deployed-functions.ts';
import { createPlate, purposeId, uniqueName } from '../support/fixtures.ts';
import { commandsOf, commitPointOf, metadataOn } from '../support/large-writes.ts';
import { resultText } from '../support/http.ts';
import { allows, iamRequests, roleOf, roleStatements } from '../support/iam.ts';
import { API_HOST, type HttpRequest, httpEvent, lambdaStreamRecords, sqsEvent } from '../support/lambda-events.ts';
import { assertJsonApiDocument } from '../support/jsonapi-schema.ts';
import { seedFullPlates, seedSamples } from '../support/seed.ts';
import { ADMIN_KEY, freshStreamedStore, READ_KEY, WRITE_KEY } from '../support/store.ts';
import { outboxEvents, scanTable } from '../support/table.ts';
import { asStored, routeWrites, successOf, WRITES, writeOf } from '../support/writes.ts';

/**
 * What is deployed, tested: every function bundled as `npm run bundles` bundles it (the stack's esbuild
 * options, infra/bundling.ts), its assets copied as the stack copies them, unpacked into a folder outside
 * the repository (no node_modules of the project's above it), loaded by a fresh `node` as the Lambda
 * runtime loads it (test/support/lambda-runner.cjs: CommonJS `require` of index.js from its task root, the
 * external modules only from a stand-in of the runtime's node_modules) with the environment of the
 * synthesized template, and invoked with the events AWS sends it — API Gateway payload 2.0 requests routed
 * by the template's route keys, DynamoDB stream batches of real records, SQS batches — against a DynamoDB
 * Local table. EventBridge cannot run locally: its PutEvents calls are recorded and accepted by a stand-in
 * (test/support/deployed-functions.ts). Every AWS call each function makes is recorded on the way, and
 * checked at the end against its role in the template, both ways.
 */

const dev = serviceStack('dev');
let stack: SynthesizedStack;
let artifacts: Artifacts;
let endpoint: string;

const stackFunctions: Record<string, { node: { defaultChild?: unknown } }> = {
  ...dev.api.functions,
  publisher: dev.events.publisher,
  inbound: dev.events.inbound,
  sweeper: dev.sweeper.fn,
};
const logicalIds = () => Object.fromEntries(Object.entries(stackFunctions).map(([name, fn]) => [stack.logicalId(fn), name]));

/** The containers running in the current test; each test stops its own (memory: 40 warm functions would be ~3 GB). */
const running = new Map<string, LambdaContainer>();
/** Every AWS call each function made during the file, by function name. */
const callsOf: Record<string, RecordedCall[]> = {};

async function container(name: string): Promise<LambdaContainer> {
  let started = running.get(name);
  if (!started) {
    started = await LambdaContainer.start(stack, { name, logicalId: stack.logicalId(stackFunctions[name]!) }, artifacts, endpoint);
    running.set(name, started);
  }
  return started;
}

afterEach(async () => {
  for (const [name, started] of running) {
    callsOf[name] = [...(callsOf[name] ?? []), ...started.recorder.calls];
    await started.stop();
  }
  running.clear();
});

beforeAll(async () => {
  const store = await freshStreamedStore();
  endpoint = store.endpoint;
  stack = new SynthesizedStack(dev, store.tableName);
  artifacts = await buildArtifacts();
});

afterAll(() => artifacts?.remove());

/** A response as a client gets it: status, headers, cookies, and the body (JSON parsed and checked as JSON:API when it is JSON:API). */
interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  cookies: string[];
  text: string;
  body: any;
  /** The function that answered. */
  served: string;
}

/** Sends a request as API Gateway would: routed by the template's route keys to a function, which is invoked with the payload 2.0 event. */
async function request(req: HttpRequest): Promise<HttpResponse> {
  const { event, route } = httpEvent(stack, req);
  const served = logicalIds()[route.functionLogicalId]!;
  const result: APIGatewayProxyStructuredResultV2 = await (await container(served)).invoke(event);
  // Lambda refuses a larger result (and API Gateway answers 502): no function may return one.
  expect(payloadBytes(result), `${req.method} ${req.url}`).toBeLessThanOrEqual(LAMBDA_RESPONSE_BYTES);
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const text = resultText(result);
  const jsonApi = headers['content-type']?.startsWith('application/vnd.api+json') && text !== '';
  const body = jsonApi ? JSON.parse(text) : text;
  if (jsonApi) assertJsonApiDocument(body);
  return { status: result.statusCode ?? 0, headers, cookies: result.cookies ?? [], text, body, served };
}

const apiRequest = (method: string, url: string, key: string | null, body?: unknown, headers: Record<string, string> = {}): HttpRequest => ({
  method,
  url,
  headers: {
    accept: 'application/vnd.api+json',
    ...(key ? { 'x-sequencescape-client-id': key } : {}),
    ...(body !== undefined ? { 'content-type': 'application/vnd.api+json' } : {}),
    ...headers,
  },
  ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
});

/** The in-process handler's answer (test/support/api.ts) with its links on the deployed host, to compare with a function's. */
const asDeployed = (document: unknown) => JSON.parse(JSON.stringify(document).replaceAll('https://lts.test/', `https://${API_HOST(stack)}/`));

const writeRoutes = new Set(routeWrites().map((key) => key.split(' ')[1]!.split('/')[0]!));

describe('every route function', () => {
  it.each(routes.filter((route) => route.name !== FALLBACK).map((route) => [route.name, route] as const))(
    '%s: loads, reads as the local handler does, refuses as the contract says, and writes',
    async (name, route) => {
      const type = route.types[0]!;
      const collection = `/api/v2/${type}`;
      // A type of actions only (heron's receptions) lists nothing: its collection answers 405, allowing no method.
      const listable = registry.get(type)?.methods.includes('list') ?? false;
      // A labware's audit trail is listed by its labware (filter[labware] is required; an unknown one lists nothing).
      const listing = type === 'labware_audits' ? `${collection}?filter[labware]=1` : collection;

      const read = await request(apiRequest('GET', listing, READ_KEY));
      expect(read.served).toBe(name);
      expect(read.status, read.text).toBe(listable ? 200 : 405);
      expect(read.body).toEqual(asDeployed((await call('GET', listing, { key: READ_KEY })).body));
      // What the bundle reaches besides itself: the runtime's modules (the stand-in) when any are external, nothing else.
      const fn = running.get(name)!;
      for (const bundled of ['electrodb', '@middy/core', 'zod']) expect(await fn.resolveModule(bundled), bundled).toBeNull();
      expect(await fn.resolveModule('@aws-sdk/client-dynamodb')).toEqual(artifacts.runtimeModules ? expect.any(String) : null);

      expect((await request(apiRequest('GET', collection, null))).status).toBe(401);
      expect((await request(apiRequest('GET', `${collection}/999999999`, READ_KEY))).status).toBe(404);
      const notAllowed = await request(apiRequest('DELETE', collection, WRITE_KEY));
      expect(notAllowed.status).toBe(405);
      if (listable) expect(notAllowed.headers.allow?.split(/,\s*/).sort()).toEqual(route.methods.filter((m) => m === 'GET' || m === 'POST').sort());
      else expect(notAllowed.headers.allow ?? '').toBe('');

      if (!writeRoutes.has(type)) return;
      // Reference data (purposes) needs an admin key before its media type is looked at (contract §1.2's order).
      const writer = registry.get(type)?.referenceData ? ADMIN_KEY : WRITE_KEY;
      // A type of actions only is written through its first action (its collection takes no POST); a type
      // that is only changed (work_orders, made by another write) by a PATCH of a record.
      const patchedOnly = listable && !route.methods.includes('POST');
      const written = !listable ? `${collection}/${route.actions[0]!.name}` : patchedOnly ? `${collection}/1` : collection;
      const wrongType = await request(apiRequest(patchedOnly ? 'PATCH' : 'POST', written, writer, doc(type), { 'content-type': 'text/plain' }));
      expect(wrongType.status).toBe(415);

      const cases = Object.entries(WRITES).filter(([key]) => writeOf(key).split(' ')[1]!.split('/')[0] === type);
      expect(cases.length, `write cases of ${type}`).toBeGreaterThan(0);
      for (const [key, { make }] of cases) {
        const write = await make();
        const res = await request(apiRequest(write.method, write.path, write.key ?? WRITE_KEY, write.body));
        expect(res.status, `${key}: ${res.text}`).toBe(successOf(write));
        // What it wrote is there for the in-process handler to read. An answer in the reference's own shape
        // (heron's `{type: 'heron', id: <action>}`) links to the labware it made: that labware, by its uuid.
        for (const resource of [res.body.data].flat()) {
          const stored = asDeployed((await call('GET', new URL(resource.links.self).pathname, { key: READ_KEY })).body.data);
          if (resource.type !== 'heron') expect(stored, key).toEqual(asStored(resource));
          else expect(stored.attributes.uuid, key).toBe(resource.attributes.uuid);
        }
      }
    },
  );

  it('poly_metadata: a write whose events and response outgrow the request item stores them in chunk items', async () => {
    const plate = { type: 'plates', id: (await createPlate()).id };
    // Random (incompressible) values: 24 metadata (what one transaction holds) of 4,000 characters gzip past the 64 KB a request item carries.
    const metadata = Array.from({ length: Math.floor((TRANSACTION_ITEM_LIMIT - polyMetadataItems(0)) / POLY_METADATUM_ITEMS) }, () => ({
      type: 'poly_metadata',
      attributes: { key: uniqueName('big'), value: randomBytes(3000).toString('base64') },
      relationships: { metadatable: { data: plate } },
    }));
    const chunksBefore = (await scanTable('requestChunk')).length;
    const res = await request(apiRequest('POST', '/api/v2/poly_metadata/bulk_create', WRITE_KEY, { data: metadata }, { 'idempotency-key': randomUUID() }));
    expect(res.status, res.text).toBe(201);
    expect((await scanTable('requestChunk')).length).toBeGreaterThan(chunksBefore);
  });
});

describe("answers within Lambda's 6 MB response", () => {
  it('eight full 384-well plates with their wells (~9 MB of JSON): gzip for a client that accepts it, a shortened page otherwise', async () => {
    const [sample] = await seedSamples(1, 'artifact-size');
    const plates = await seedFullPlates(8, Number(await purposeId('plate_purposes', 'Stock Plate 384')), sample!.id, 'ARTIFACTSIZE');
    const url = `/api/v2/plates?filter[id]=${plates.map((p) => p.id).join(',')}&include=wells`;
    const gzipped = await request(apiRequest('GET', url, READ_KEY, undefined, { 'accept-encoding': 'gzip, deflate' }));
    expect(gzipped.status, gzipped.text.slice(0, 500)).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.body.included).toHaveLength(8 * 384);
    const plain = await request(apiRequest('GET', url, READ_KEY));
    expect(plain.status).toBe(200);
    expect(plain.body.data.length).toBeLessThan(8);
    expect(plain.body.meta.page_shortened).toMatchObject({ records: plain.body.data.length, limit: 'response_size' });
  });
});

describe('the fallback function ($default)', () => {
  it('serves the docs page and its Swagger UI files from beside its bundle, health, the index and JSON:API 404s', async () => {
    const page = await request({ method: 'GET', url: '/api/v2/docs', headers: { accept: 'text/html' } });
    expect(page.served).toBe(FALLBACK);
    expect(page.status).toBe(200);
    expect(page.text).toContain('/api/v2/docs/docs.js');
    for (const file of SWAGGER_UI_FILES) {
      const asset = await request({ method: 'GET', url: `/api/v2/docs/${file}` });
      expect(asset.status, file).toBe(200);
      expect(asset.text.length, file).toBeGreaterThan(100_000);
    }
    expect((await request({ method: 'GET', url: '/health' })).status).toBe(200);
    const index = await request(apiRequest('GET', '/api/v2', READ_KEY));
    expect(index.status).toBe(200);
    const unknown = await request(apiRequest('GET', '/api/v2/no_such_type', READ_KEY));
    expect([unknown.served, unknown.status]).toEqual([FALLBACK, 404]);
    expect((await request(apiRequest('GET', '/api/v2/no_such_type', null))).status).toBe(401);
  });

  it('serves /api/v2/<type>/ (a trailing slash, which no route key of the type matches) as the type’s own function does', async () => {
    for (const type of ['samples', 'plates', 'labware']) {
      const slashed = await request(apiRequest('GET', `/api/v2/${type}/`, READ_KEY));
      const plain = await request(apiRequest('GET', `/api/v2/${type}`, READ_KEY));
      expect([slashed.served, plain.served]).toEqual([FALLBACK, type]);
      expect(slashed.status, slashed.text).toBe(200);
      expect(slashed.body).toEqual(asDeployed((await call('GET', `/api/v2/${type}/`, { key: READ_KEY })).body));
      expect(slashed.body.data).toEqual(plain.body.data);
    }
    const created = await request(apiRequest('POST', '/api/v2/samples/', WRITE_KEY, doc('samples', { name: uniqueName('slash') })));
    expect([created.served, created.status]).toEqual([FALLBACK, 201]);
  });
});

describe('the labware function’s plate map', () => {
  let barcode: string;
  beforeAll(async () => {
    barcode = (await createPlate()).attributes.labware_barcode.human_barcode;
  });

  it('draws a plate for a key in the header, and asks for a key without one', async () => {
    const map = await request({ method: 'GET', url: `/labware/${barcode}`, headers: { 'x-sequencescape-client-id': READ_KEY } });
    expect([map.served, map.status]).toEqual(['labware', 200]);
    expect(map.text).toContain(`<h1>${barcode}</h1>`);
    const form = await request({ method: 'GET', url: `/labware/${barcode}` });
    expect(form.status).toBe(401);
    expect(form.text).toContain('name="key"');
  });

  it('signs in through the key form: the key comes back in the response’s cookies, and the cookie draws the map', async () => {
    const origin = `https://${API_HOST(stack)}`;
    const signIn = await request({
      method: 'POST',
      url: `/labware/${barcode}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ key: READ_KEY }).toString(),
    });
    expect(signIn.status, signIn.text).toBe(303);
    const cookie = signIn.cookies.find((c) => c.startsWith(`${KEY_COOKIE}=`));
    expect(cookie).toMatch(/; HttpOnly; SameSite=Strict; Secure/);
    const map = await request({ method: 'GET', url: `/labware/${barcode}`, headers: { cookie: cookie!.split(';')[0]! } });
    expect(map.status, map.text).toBe(200);
    expect(map.text).toContain(`<h1>${barcode}</h1>`);
  });
});

/** The publisher's event source mapping as the template has it: its filter (as Lambda applies it) and batch size. */
function publisherMapping() {
  const publisherId = stack.logicalId(dev.events.publisher);
  const [, mapping] = stack.ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName.Ref === publisherId)!;
  const patterns = mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
  /** An event filter pattern of exact values (the only kind the template uses): every key's value among the listed ones. */
  const fits = (pattern: any, value: any): boolean =>
    Array.isArray(pattern) ? pattern.includes(value) : Object.entries(pattern).every(([k, p]) => value?.[k] !== undefined && fits(p, value[k]));
  return { batchSize: mapping.Properties.BatchSize as number, admits: (record: DynamoDBRecord) => patterns.some((p: unknown) => fits(p, record)) };
}

describe('the stream publisher', () => {
  let published = 0;

  it('publishes every event of the outbox from real stream records, a chunked payload’s too, in batches as its mapping delivers them', async () => {
    const { batchSize, admits } = publisherMapping();
    const records = (await lambdaStreamRecords(endpoint, stack.tableName)).filter(admits);
    expect(records.length).toBeGreaterThan(40);
    const publisher = await container('publisher');
    for (let i = 0; i < records.length; i += batchSize) {
      expect(await publisher.invoke({ Records: records.slice(i, i + batchSize) })).toEqual({ batchItemFailures: [] });
    }
    published = records.length;
    const entries = publisher.recorder.calls.filter((c) => c.operation === 'PutEvents').flatMap((c) => c.input.Entries);
    const bus = stack.resources[stack.logicalId(dev.events.bus)]!.Properties.Name;
    for (const entry of entries) expect(entry).toMatchObject({ EventBusName: bus, Source: 'lts', DetailType: JSON.parse(entry.Detail).type });
    expect(entries.map((e: { Detail: string }) => JSON.parse(e.Detail).id).sort()).toEqual((await outboxEvents()).map((e) => e.id).sort());
  });

  it('sets a record it cannot read (a request item naming chunks that are not there) aside on the bus, and publishes the record after it', async () => {
    const [good] = await scanTable('request');
    // A real stream record of a broken request item: its payload is in two chunk items that were never written.
    const { events: _events, payload: _payload, response: _response, ...item } = good!;
    const key = `poison-${randomUUID()}`;
    const poison: Record<string, unknown> = { ...item, pk: `${item.pk}-${key}`, key, chunks: { set: randomUUID(), count: 2 } };
    await dynamo().send(new PutCommand({ TableName: config().LTS_TABLE_NAME, Item: poison }));
    const after = await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('after') }) });
    expect(after.status).toBe(201);
    const { admits } = publisherMapping();
    const records = (await lambdaStreamRecords(endpoint, stack.tableName)).filter(admits).slice(published);
    expect(records).toHaveLength(2);
    const publisher = await container('publisher');
    const before = publisher.recorder.calls.length;
    // Nothing goes back to the stream: the poison record is a dead letter (a rule of the bus sends it to the
    // publisher's dead-letter queue), and the record after it is published.
    expect(await publisher.invoke({ Records: records })).toEqual({ batchItemFailures: [] });
    // Its record stays in the stream; the item goes, so that the outbox reads of the next tests can read every request item.
    await dynamo().send(new DeleteCommand({ TableName: config().LTS_TABLE_NAME, Key: { pk: poison.pk, sk: poison.sk } }));
    const entries = publisher.recorder.calls
      .slice(before)
      .filter((c) => c.operation === 'PutEvents')
      .flatMap((c) => c.input.Entries);
    const [letter, ...events] = entries;
    expect(letter).toMatchObject({ Source: DEAD_LETTER_SOURCE, DetailType: DEAD_LETTER_DETAIL_TYPE });
    expect(JSON.parse(letter.Detail)).toMatchObject({
      sink: 'eventbridge',
      sequence_number: records[0]!.dynamodb!.SequenceNumber,
      reason: expect.stringContaining('chunks'),
    });
    expect(events.map((e: { Detail: string }) => JSON.parse(e.Detail))).toContainEqual(
      expect.objectContaining({ type: 'samples.created', resource: expect.objectContaining({ type: 'samples', id: after.body.data.id }) }),
    );
    expect(events.every((e: { Source: string }) => e.Source === 'lts')).toBe(true);
  });
});

describe('the inbound consumer', () => {
  it('runs good messages, acknowledges refused ones with their outcome, and hands broken ones back to SQS', async () => {
    const good = { method: 'POST', path: '/api/v2/samples', body: doc('samples', { name: uniqueName('inbound') }), idempotency_key: randomUUID() };
    const refused = {
      method: 'POST',
      path: '/api/v2/samples',
      body: doc('samples', { name: uniqueName('inbound'), control: 'no' }),
      idempotency_key: randomUUID(),
    };
    const patch = async () => {
      const sample = (await call('POST', '/api/v2/samples', { body: doc('samples', { name: uniqueName('inbound') }) })).body.data;
      return {
        method: 'PATCH',
        path: `/api/v2/samples/${sample.id}`,
        body: doc('samples', { site_sample_id: 'S1' }, undefined, sample.id),
        idempotency_key: randomUUID(),
      };
    };
    const event = sqsEvent(stack, [JSON.stringify(good), JSON.stringify(refused), '{"method": "POST", "pa', JSON.stringify(await patch())]);
    const inbound = await container('inbound');
    const result = await inbound.invoke(event);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: event.Records[2]!.messageId }] });
    const outcomes = (await outboxEvents()).filter((e) => e.type.startsWith('messages.'));
    const outcomeOf = (message: { idempotency_key: string }) => outcomes.find((e) => e.data.idempotency_key === message.idempotency_key);
    expect(outcomeOf(good)).toMatchObject({ type: 'messages.processed', data: { status: 201 } });
    expect(outcomeOf(refused)).toMatchObject({ type: 'messages.refused', data: { status: 422 } });
    const [sample] = (await call('GET', `/api/v2/samples?filter[name]=${good.body.data.attributes.name}`)).body.data;
    expect(sample.attributes.name).toBe(good.body.data.attributes.name);
  });
});

describe('the sweeper', () => {
  it('ends a large write a crash abandoned once it has expired, as the schedule invokes it', async () => {
    const firstWell = async () => ({ type: 'wells', id: String(slotId(Number((await createPlate()).id), 1)) });
    const [well, twin] = [await firstWell(), await firstWell()];
    const bulk = (on: { type: string; id: string }, prefix: string) =>
      call('POST', '/api/v2/poly_metadata/bulk_create', { body: { data: metadataOn(on, 400, uniqueName(prefix)) } });
    // In this process: a write past one transaction, its process killed before its commit point (the store's test seam), expired at once.
    const { commands } = await commandsOf(() => bulk(twin, 'twin'));
    process.env.LTS_LARGE_WRITE_EXPIRY_MS = '0';
    resetConfig();
    try {
      expect((await killProcessAfter(commitPointOf(commands) - 1, () => bulk(well, 'abandoned'))).status).toBe(500);
    } finally {
      delete process.env.LTS_LARGE_WRITE_EXPIRY_MS;
      resetConfig();
    }
    expect(await readOpenEntries()).toHaveLength(1);
    const scheduled = { version: '0', 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), resources: [], detail: {} };
    expect(await (await container('sweeper')).invoke(scheduled)).toEqual({ ended: 1 });
    expect(await readOpenEntries()).toEqual([]);
    expect((await call('GET', `/api/v2/poly_metadata?filter[metadatable_id]=${well.id}`)).body.data).toEqual([]);
  });
});

/**
 * Grants the functions' code never uses: Lambda uses them, with the function's role — the pollers of the
 * event source mappings (reading the table's stream or the inbound queue, sending a batch given up on to
 * the publisher's dead-letter queue) and the runtime's X-Ray tracing. No call of a function can use them,
 * so they are held to what those services need, and to resources other than the table and the bus.
 */
const LAMBDA_SERVICE_ACTIONS = new Set([
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:SendMessage',
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
]);

describe('each function’s role, against the calls it made', () => {
  /** Each role's functions (the routes share one), their recorded IAM requests, and the role's statements. */
  const roles = () => {
    const byRole = new Map<string, string[]>();
    for (const name of Object.keys(stackFunctions)) {
      const role = roleOf(stack, stack.logicalId(stackFunctions[name]!));
      byRole.set(role, [...(byRole.get(role) ?? []), name]);
    }
    return [...byRole].map(([role, functions]) => {
      const requests = functions.flatMap((name) => (callsOf[name] ?? []).flatMap((c) => iamRequests(stack, c)));
      // The inbound consumer runs any write message a route serves through the same engine, query string
      // included (a response's `include=` reads related records as a GET does, through the indexes): its grants
      // are held to the engine's calls, its own and the routes'.
      const routeCalls = routes.flatMap((route) => callsOf[route.name] ?? []);
      const engine = functions.includes('inbound') ? routeCalls.flatMap((c) => iamRequests(stack, c)) : [];
      return { role, functions, requests, used: [...requests, ...engine], statements: roleStatements(stack, role) };
    });
  };
  /** The table, its indexes and the bus: what the functions' own calls may name. */
  const ownResource = (arn: string) => (arn.startsWith(stack.tableArn()) && !arn.includes('/stream/')) || arn.startsWith(stack.busArn(''));

  it('has every function of the stack called (the checks below see each function’s calls)', () => {
    expect(Object.keys(callsOf).sort()).toEqual(Object.keys(stackFunctions).sort());
  });

  it('denies no call any function made', () => {
    for (const { role, requests, statements } of roles()) {
      const denied = requests.filter((r) => !allows(statements, r));
      expect([...new Set(denied.map((r) => `${r.action} ${r.resource}`))], role).toEqual([]);
    }
  });

  it('grants nothing on the table or the bus that its functions never called', () => {
    const unused: string[] = [];
    for (const { role, used, statements } of roles()) {
      for (const statement of statements.filter((s) => s.resources.some(ownResource))) {
        expect(statement.effect).toBe('Allow');
        expect(statement.condition).toBeUndefined();
        for (const action of statement.actions) {
          for (const resource of statement.resources) {
            if (!used.some((r) => allows([{ ...statement, actions: [action], resources: [resource] }], r))) unused.push(`${role}: ${action} on ${resource}`);
          }
        }
      }
    }
    expect(unused).toEqual([]);
  });

  it('grants nothing else but what Lambda’s pollers and tracing use, on other resources than the table and the bus', () => {
    for (const { role, statements } of roles()) {
      for (const statement of statements.filter((s) => !s.resources.some(ownResource))) {
        expect(
          statement.actions.filter((a) => !LAMBDA_SERVICE_ACTIONS.has(a)),
          role,
        ).toEqual([]);
      }
      // The only policy attached besides: CloudWatch Logs writes.
      const managed = stack.resources[role]!.Properties.ManagedPolicyArns ?? [];
      expect(JSON.stringify(managed), role).toMatch(
        /^\[\{"Fn::Join":\["",\["arn:",\{"Ref":"AWS::Partition"\},":iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole"\]\]\}\]$/,
      );
    }
  });
});
