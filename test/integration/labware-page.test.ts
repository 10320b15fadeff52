import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { KEY_COOKIE } from '#lib/http/middleware/labware-page.ts';
import { eventOf } from '#lib/http/payload-v2.ts';
import { handlerForRoute } from '#lib/http/route-handlers.ts';
import { routeForPath } from '#lib/routes.ts';
import { LABWARE_MAP_INCLUDE, TRAIL_SHOWN } from '#lib/pages/labware-map.ts';
import { call, warmKeyCache, type CallResult } from '../support/api.ts';
import { addAliquot, createPlate, createRack, createSample, createTube, tubeOf } from '../support/fixtures.ts';
import { barcodeOf, recordQc, taggedPlate, type TaggedPlate } from '../support/plate-map.ts';
import { createQcable, moveQcable } from '../support/qc.ts';
import { header } from '../support/responses.ts';
import { freshStore, READ_KEY } from '../support/store.ts';

/**
 * GET /labware/{barcode}, the plate map (lib/http/middleware/labware-page.ts, lib/pages/labware-map.ts),
 * through the real handler: the API's key rules (the header, or the key form's cookie), 400/404/405 as
 * pages, every value escaped, the contents of plates, a tube and a rack, and the DynamoDB cost of the
 * equivalent API request. The page in a browser: test/integration/plate-map.test.ts.
 */

let demo: TaggedPlate;
beforeAll(async () => {
  await freshStore();
  demo = await taggedPlate();
});

const page = (barcode: string, options: Parameters<typeof call>[2] = {}) => call('GET', `/labware/${barcode}`, { key: READ_KEY, ...options });

const decodeEntities = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** Each drawn position of a page: its state and its hover text (the SVG `<title>`), unescaped. */
function positions(html: string): Map<string, { state: string; title: string; href?: string }> {
  const found = new Map<string, { state: string; title: string; href?: string }>();
  const pattern = /<(?:g|a) class="receptacle" data-position="([^"]+)" data-state="([^"]+)" tabindex="0"(?: href="([^"]+)")?><title>([^<]*)<\/title>/g;
  for (const [, position, state, href, title] of html.matchAll(pattern))
    found.set(position!, { state: state!, title: decodeEntities(title!), ...(href ? { href: decodeEntities(href) } : {}) });
  return found;
}

function expectPage(res: CallResult, status: number): string {
  expect(res.status, typeof res.body === 'string' ? res.body.slice(0, 400) : JSON.stringify(res.body)).toBe(status);
  expect(header(res, 'Content-Type')).toBe('text/html; charset=utf-8');
  expect(header(res, 'Content-Security-Policy')).toContain("default-src 'none'");
  expect(header(res, 'Access-Control-Allow-Origin')).toBeUndefined();
  return res.body as string;
}

describe('keys', () => {
  it('answers 401 with the key form without a key, or with a key it does not know, before saying anything of the labware', async () => {
    for (const key of [null, 'not-a-key-0123456789']) {
      for (const barcode of [barcodeOf(demo.plate), 'NOPE1', '%3Cx%3E']) {
        const html = expectPage(await page(barcode, { key }), 401);
        expect(html).toContain('<form method="post">');
        expect(html).toContain('name="key"');
        expect(html).not.toContain(barcodeOf(demo.plate));
      }
    }
  });

  it('takes a key in the form: a cookie for these pages only (HttpOnly, SameSite=Strict), then a redirect to the map', async () => {
    // Payload 2.0 both ways (as API Gateway invokes the function): the form arrives base64-encoded, the cookie
    // leaves through the result's `cookies` (API Gateway makes it a Set-Cookie header) and comes back in `event.cookies`.
    const barcode = barcodeOf(demo.plate);
    const form = { key: null, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    const res = await call('POST', `/labware/${barcode}`, { ...form, body: `key=${encodeURIComponent(READ_KEY)}` });
    expect(res.status).toBe(303);
    expect(header(res, 'Location')).toBe(`https://lts.test/labware/${barcode}`);
    expect(res.cookies).toEqual([`${KEY_COOKIE}=${encodeURIComponent(READ_KEY)}; Path=/labware; HttpOnly; SameSite=Strict; Secure`]);
    expect(header(res, 'Set-Cookie')).toBeUndefined();

    const cookie = res.cookies[0]!.split(';')[0]!;
    expect(expectPage(await page(barcode, { key: null, headers: { cookie: `other=1; ${cookie}` } }), 200)).toContain(`<h1>${barcode}</h1>`);

    // A wrong or missing key is the form again, saying so; a cookie with an unknown key is cleared.
    expect(expectPage(await call('POST', `/labware/${barcode}`, { ...form, body: 'key=wrong-key-0123456789' }), 401)).toContain('That key is not valid.');
    expect(expectPage(await call('POST', `/labware/${barcode}`, { ...form, body: '' }), 401)).toContain('Enter a key.');
    const stale = await page(barcode, { key: null, headers: { cookie: `${KEY_COOKIE}=revoked-key-0123456789` } });
    expectPage(stale, 401);
    expect(stale.cookies).toEqual([expect.stringMatching(new RegExp(`^${KEY_COOKIE}=; Path=/labware; .*Max-Age=0$`))]);
  });

  it('reads the key cookie from event.cookies, where payload 2.0 puts it, not from a Cookie header', async () => {
    const barcode = barcodeOf(demo.plate);
    const cookie = `${KEY_COOKIE}=${encodeURIComponent(READ_KEY)}`;
    const handler = handlerForRoute(routeForPath(`/labware/${barcode}`).name);
    const invoke = (extra: Partial<APIGatewayProxyEventV2>) => {
      const event = eventOf({
        method: 'GET',
        target: `/labware/${barcode}`,
        headers: { host: 'lts.test', 'x-forwarded-proto': 'https' },
        sourceIp: '127.0.0.1',
      });
      return handler({ ...event, ...extra, headers: { ...event.headers, ...extra.headers } }, {} as Context);
    };
    const signedIn = await invoke({ cookies: ['other=1', cookie] });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.body).toContain(`<h1>${barcode}</h1>`);
    // A Cookie header is no part of payload 2.0: the key form again.
    expect((await invoke({ headers: { cookie } })).statusCode).toBe(401);
  });

  it('refuses the key form from another site, in another media type, or oversized', async () => {
    const url = `/labware/${barcodeOf(demo.plate)}`;
    const body = `key=${READ_KEY}`;
    const form = 'application/x-www-form-urlencoded';
    const crossOrigin = await call('POST', url, { key: null, body, headers: { 'content-type': form, origin: 'https://evil.example' } });
    expect(expectPage(crossOrigin, 403)).toContain('Forbidden');
    expect(crossOrigin.cookies).toEqual([]);
    expectPage(await call('POST', url, { key: null, body, headers: { 'content-type': form, 'sec-fetch-site': 'cross-site' } }), 403);
    expectPage(await call('POST', url, { key: null, body, headers: { 'content-type': 'text/plain' } }), 415);
    expectPage(await call('POST', url, { key: null, body: `key=${'x'.repeat(5000)}`, headers: { 'content-type': form } }), 413);
  });
});

describe('errors as pages', () => {
  it('answers 400 for what cannot be a barcode, 404 for a barcode no labware has, 405 for other methods; never a 500', async () => {
    for (const bad of ['%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'a%20b', `${'A'.repeat(65)}`, '%E0%A4%A', 'a,b']) {
      const html = expectPage(await page(bad), 400);
      expect(html).not.toContain('<script>alert');
    }
    expect(expectPage(await page('%3Cscript%3Ealert(1)%3C%2Fscript%3E'), 400)).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(expectPage(await page('DN9999999Z'), 404)).toContain('No labware has the barcode DN9999999Z.');
    const put = await call('PUT', `/labware/${barcodeOf(demo.plate)}`, { key: READ_KEY });
    expectPage(put, 405);
    expect(header(put, 'Allow')).toBe('GET, POST');
  });
});

describe('the map', () => {
  it('draws a dual-tagged 96-well plate: each well with its state, sample, i7/i5 tags and QC results; a legend; its family and documents', async () => {
    const barcode = barcodeOf(demo.plate);
    const html = expectPage(await page(barcode), 200);
    const wells = positions(html);
    expect(wells.size).toBe(96);
    expect(wells.get('A1')).toEqual({
      state: 'passed',
      title: `A1 · passed\nsample ${demo.names.get('A1')} · i7 1 AGAGTGTA · i5 1 CGACACTG\nQC concentration 12.3 ng/ul ISC v1.0`,
    });
    expect(wells.get('B1')!.title).toContain(`sample ${demo.names.get('B1')} · i7 2 `);
    expect(wells.get('B1')!.title).toContain('QC concentration 11.9 ng/ul');
    expect([wells.get('A2')!.state, wells.get('B2')!.state, wells.get('C2')!.state]).toEqual(['failed', 'started', 'pending']);
    // Why A2 failed: the reason its state change gave; the wells it did not name say none.
    expect(wells.get('A2')!.title).toMatch(new RegExp(`^A2 · failed \\(Low yield\\)\nsample ${demo.names.get('A2')} · i7 `));
    expect(wells.get('B2')!.title).toMatch(/^B2 · started\n/);
    expect(wells.get('H12')).toEqual({ state: 'pending', title: 'H12 · pending\nno aliquots' });
    expect([...html.matchAll(/<li data-state="([a-z_0-9]+)">/g)].map((m) => m[1])).toEqual(['pending', 'started', 'passed', 'failed', 'empty']);

    const base = 'https://lts.test';
    expect(html).toContain(`<ul class="parents"><li><a href="${base}/labware/${barcodeOf(demo.parent)}">${barcodeOf(demo.parent)}</a> (plates)</li></ul>`);
    expect(html).toContain(`<ul class="children"><li><a href="${base}/labware/${barcodeOf(demo.child)}">${barcodeOf(demo.child)}</a> (plates)</li></ul>`);
    expect(html).toContain(`href="${base}/api/v2/labware?filter[barcode]=${barcode}&amp;include=${LABWARE_MAP_INCLUDE}"`);
    expect(html).toContain(`href="${base}/api/v2/plates/${demo.plate.id}"`);
  });

  it('costs exactly the DynamoDB calls of the API requests it is drawn from: the labware, and its audit trail', async () => {
    const barcode = barcodeOf(demo.plate);
    await warmKeyCache(READ_KEY);
    const map = await page(barcode);
    const api = await call('GET', `/api/v2/labware?filter[barcode]=${barcode}&include=${LABWARE_MAP_INCLUDE}`, { key: READ_KEY });
    expect(map.status).toBe(200);
    expect(api.status).toBe(200);
    expect(api.body.data.map((r: any) => r.id)).toEqual([demo.plate.id]);
    const trail = await call('GET', `/api/v2/labware_audits?filter[labware]=${demo.plate.id}&page[size]=${TRAIL_SHOWN}`, { key: READ_KEY });
    expect(trail.status).toBe(200);
    expect(map.calls).toBeGreaterThan(0);
    expect(map.calls).toBe(api.calls + trail.calls);
  });

  it('draws a 384-well plate as 16 rows of 24', async () => {
    const plate = await createPlate('Stock Plate 384');
    const sample = await createSample();
    await addAliquot({ type: 'wells', id: String(Number(plate.id) * 1000 + 384) }, sample.id);
    const wells = positions(expectPage(await page(barcodeOf(plate)), 200));
    expect(wells.size).toBe(384);
    expect(wells.get('P24')).toEqual({ state: 'pending', title: `P24 · pending\nsample ${sample.attributes.name}` });
    expect(wells.get('A1')!.title).toBe('A1 · pending\nno aliquots');
  });

  it('draws a tube as one receptacle, escaping what users typed (a tube name, QC values) everywhere', async () => {
    const evil = '<script>alert("x")</script>';
    const tube = await createTube('Stock Tube', { name: evil });
    const sample = await createSample();
    await addAliquot({ type: 'receptacles', id: String(Number(tube.id) * 1000 + 1) }, sample.id);
    await recordQc(barcodeOf(tube), [{ key: 'volume"><img src=x onerror=alert(1)>', value: '<b>5</b>', units: "ul'" }]);
    const html = expectPage(await page(barcodeOf(tube)), 200);
    expect(html).not.toMatch(/<script>alert|<img|<b>5/);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    const receptacles = positions(html);
    expect([...receptacles.keys()]).toEqual(['tube']);
    expect(receptacles.get('tube')!.title).toBe(
      `tube · pending\nsample ${sample.attributes.name}\nQC volume"><img src=x onerror=alert(1)> <b>5</b> ul' ISC v1.0`,
    );
    // The only script is the page's own, allowed by its hash.
    expect(html.match(/<script>/g)).toHaveLength(1);
  });

  it('draws a rack as its grid of tube positions, each occupied one linking to its tube', async () => {
    const [a, b] = await Promise.all([createTube(), createTube()]);
    const sample = await createSample();
    await addAliquot({ type: 'receptacles', id: String(Number(a.id) * 1000 + 1) }, sample.id);
    const rack = await createRack('Tube Rack 48', { size: 48, name: 'rack', tube_locations: { A1: { uuid: tubeOf(a).uuid }, F8: { uuid: tubeOf(b).uuid } } });
    const cells = positions(expectPage(await page(barcodeOf(rack)), 200));
    expect(cells.size).toBe(48);
    expect(cells.get('A1')).toEqual({
      state: 'pending',
      title: `A1 · tube ${barcodeOf(a)} · pending\nsample ${sample.attributes.name}`,
      href: `https://lts.test/labware/${barcodeOf(a)}`,
    });
    expect(cells.get('F8')).toMatchObject({ title: `F8 · tube ${barcodeOf(b)} · pending\nno aliquots`, href: `https://lts.test/labware/${barcodeOf(b)}` });
    expect(cells.get('B1')).toEqual({ state: 'empty', title: 'B1: empty position' });
  });

  it("reads a tag plate by its qcable's QC, which passed, not by its own state (no transfers: pending)", async () => {
    const { plate } = await createQcable('LOT-0001');
    for (const state of ['pending', 'qc_in_progress', 'passed']) await moveQcable(plate.id, state, { reason: 'lab day' });
    expect((await call('GET', `/api/v2/plates/${plate.id}`)).body.data.attributes.state).toBe('pending');
    const html = expectPage(await page(barcodeOf(plate)), 200);
    expect(html).toContain('<p class="facts">plates · Tag Plate · QC passed</p>');
  });

  it('finds the labware by any form of its barcode', async () => {
    const { machine_barcode, human_barcode } = demo.plate.attributes.labware_barcode;
    expect(expectPage(await page(machine_barcode), 200)).toContain(`<h1>${human_barcode}</h1>`);
    expect(expectPage(await page(human_barcode.toLowerCase()), 200)).toContain(`<h1>${human_barcode}</h1>`);
  });
});
