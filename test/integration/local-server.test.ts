import { once } from 'node:events';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalServer } from '#lib/http/local-server.ts';
import { KEY_COOKIE } from '#lib/http/middleware/labware-page.ts';
import type { LocalService } from '#lib/local/service.ts';
import { createPlate } from '../support/fixtures.ts';
import { http } from '../support/http.ts';
import { barcodeOf } from '../support/plate-map.ts';
import { freshHttpService, READ_KEY } from '../support/store.ts';

/**
 * The local server as API Gateway's HTTP API (payload format 2.0, lib/http/payload-v2.ts) over real HTTP:
 * the event a function gets from a request on the wire, the response a function's result becomes, the
 * plate map's key form from form to cookie to map, and X-Forwarded-Proto kept to `http`/`https`.
 */

/** One request written with node:http, so a header can be sent on two lines (fetch would join them). */
function send(url: string, method: string, headers: Record<string, string | string[]>, body?: Buffer) {
  return new Promise<{ status: number; rawHeaders: string[]; body: Buffer }>((resolve, reject) => {
    const req = httpRequest(url, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.end(body);
  });
}

describe('a request as the event API Gateway sends, a result as the response it sends', () => {
  let server: Server;
  let url: string;
  const events: APIGatewayProxyEventV2[] = [];
  /** What the function answers: a redirect setting two cookies, with a binary body. */
  const result: APIGatewayProxyStructuredResultV2 = {
    statusCode: 303,
    headers: { Location: '/next', 'Content-Type': 'application/octet-stream' },
    cookies: ['a=1; Path=/; HttpOnly', 'b=2'],
    body: Buffer.from([0, 1, 254, 255]).toString('base64'),
    isBase64Encoded: true,
  };

  beforeAll(async () => {
    // The transport alone: a function that records its event stands in for the route handlers.
    server = createLocalServer(() => async (event) => {
      events.push(event);
      return result;
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('builds the payload-2.0 event from the request on the wire', async () => {
    const body = Buffer.from('{"data":{"type":"samples"}}');
    await send(
      `${url}/api/v2/samples?filter%5Bname%5D=a%20b&filter[name]=c`,
      'POST',
      { 'Content-Type': 'application/vnd.api+json', Cookie: 'lts_key=k1; other=2', 'X-Trace': ['one', 'two'], 'User-Agent': 'limber/1' },
      body,
    );
    const event = events.at(-1)!;
    expect(event.cookies).toEqual(['lts_key=k1', 'other=2']);
    expect(event.headers).not.toHaveProperty('cookie');
    expect(event.headers['x-trace']).toBe('one,two');
    expect(Object.keys(event.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(event.rawPath).toBe('/api/v2/samples');
    expect(event.rawQueryString).toBe('filter%5Bname%5D=a%20b&filter[name]=c');
    expect(event.queryStringParameters).toEqual({ 'filter[name]': 'a b,c' });
    expect([event.body, event.isBase64Encoded]).toEqual([body.toString('base64'), true]);
    expect(event.requestContext.http).toMatchObject({ method: 'POST', path: '/api/v2/samples', sourceIp: '127.0.0.1', userAgent: 'limber/1' });
  });

  it('sends each of the result’s cookies as a Set-Cookie header and the body decoded from base64', async () => {
    const res = await send(`${url}/labware/X`, 'GET', {});
    expect(res.status).toBe(303);
    const pairs = res.rawHeaders.flatMap((value, i) => (i % 2 === 0 ? [[value.toLowerCase(), res.rawHeaders[i + 1]!]] : []));
    expect(pairs.filter(([name]) => name === 'set-cookie').map(([, value]) => value)).toEqual(['a=1; Path=/; HttpOnly', 'b=2']);
    expect(pairs.find(([name]) => name === 'location')?.[1]).toBe('/next');
    expect(res.body).toEqual(Buffer.from([0, 1, 254, 255]));
  });

  it.each([
    ['javascript', 'http'],
    ['', 'http'],
    ['https://evil.example', 'http'],
    ['HTTPS', 'https'],
    ['http', 'http'],
  ])('X-Forwarded-Proto %j reaches the function as %j (only http or https is kept; this server is http)', async (sent, proto) => {
    await send(`${url}/api/v2/samples`, 'GET', { 'X-Forwarded-Proto': sent });
    expect(events.at(-1)!.headers['x-forwarded-proto']).toBe(proto);
  });
});

describe('the local service', () => {
  let service: LocalService;
  let barcode: string;

  beforeAll(async () => {
    service = await freshHttpService();
    // The service's table is this process's store too: the plate is made through the in-process handlers.
    barcode = barcodeOf(await createPlate());
  });
  afterAll(() => service?.stop());

  it('signs a browser in through the plate map’s key form: the form, a cookie, then the map', async () => {
    const page = `${service.url}/labware/${barcode}`;
    const form = await fetch(page);
    expect(form.status).toBe(401);
    expect(await form.text()).toContain('<form method="post">');

    const signIn = await fetch(page, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `key=${encodeURIComponent(READ_KEY)}`,
      redirect: 'manual',
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe(page);
    const cookies = signIn.headers.getSetCookie();
    expect(cookies).toEqual([`${KEY_COOKIE}=${encodeURIComponent(READ_KEY)}; Path=/labware; HttpOnly; SameSite=Strict`]);

    const map = await fetch(page, { headers: { cookie: `other=1; ${cookies[0]!.split(';')[0]}` } });
    expect(map.status).toBe(200);
    expect(await map.text()).toContain(`<h1>${barcode}</h1>`);
  });

  it.each(['javascript', '', 'ftp'])('ignores X-Forwarded-Proto %j: links stay http', async (proto) => {
    const res = await http(service.url, 'GET', '/api/v2/samples', { headers: { 'x-forwarded-proto': proto } });
    expect(res.status).toBe(200);
    expect(res.body.links.first).toMatch(new RegExp(`^${service.url}/api/v2/samples\\?`));
  });
});
