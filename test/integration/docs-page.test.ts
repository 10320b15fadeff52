import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWAGGER_UI_FILES } from '#lib/http/docs-assets.ts';
import type { LocalService } from '#lib/local/service.ts';
import { registry } from '#lib/resources/index.ts';
import { launchBrowser, reportBrowserSkip } from '../support/browser.ts';
import { WAIT_MS } from '../support/limits.ts';
import { freshHttpService, WRITE_KEY } from '../support/store.ts';

/**
 * The docs page (issue 12): Swagger UI served by the service at /api/v2/docs without a key, its assets
 * from the service itself with their types, cache headers and a self-only Content-Security-Policy; then,
 * in a real browser, the page loads with no console error and no request off loopback, lists every type,
 * and a "Try it out" request with a key entered through "Authorize" succeeds.
 */

let service: LocalService;
beforeAll(async () => {
  service = await freshHttpService();
});
afterAll(() => service?.stop());

const get = (path: string, init: RequestInit = {}) => fetch(`${service.url}${path}`, init);

describe('over HTTP', () => {
  it('serves the page and its assets without a key, with their types, cache headers and policy', async () => {
    for (const [path, type] of [
      ['/api/v2/docs', 'text/html'],
      ...SWAGGER_UI_FILES.map((file) => [`/api/v2/docs/${file}`, file.endsWith('.css') ? 'text/css' : 'text/javascript']),
      ['/api/v2/docs/docs.js', 'text/javascript'],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toContain(type);
      expect(res.headers.get('content-security-policy'), path).toMatch(/^default-src 'self';/);
      expect(res.headers.get('cache-control'), path).toBe(path === '/api/v2/docs' ? 'no-cache' : 'public, max-age=3600');
      expect((await res.text()).length, path).toBeGreaterThan(50);
    }
    const page = await (await get('/api/v2/docs')).text();
    // Everything it loads is its own.
    expect(page).not.toMatch(/(src|href)="https?:/);
    const head = await get('/api/v2/docs/swagger-ui.css', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('text/css');
    expect(await head.text()).toBe('');
  });

  it('answers other methods 405, and unknown files 404, as JSON:API', async () => {
    const post = await get('/api/v2/docs', { method: 'POST', headers: { 'X-Sequencescape-Client-Id': WRITE_KEY }, body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.headers.get('content-type')).toBe('application/vnd.api+json');
    for (const path of ['/api/v2/docs/index.html', '/api/v2/docs/swagger-ui.js.map', '/api/v2/docs/constructor', '/api/v2/docs/x/swagger-ui.css']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toBe('application/vnd.api+json');
      expect(((await res.json()) as any).errors[0].code, path).toBe('route_not_found');
    }
  });

  it('reads no file outside its list: a raw `..` path is a 404 JSON:API error', async () => {
    const { request } = await import('node:http');
    const url = new URL(service.url);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/api/v2/docs/../../package.json' }, (r) => {
        let body = '';
        r.on('data', (c) => {
          body += c;
        });
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('laboratory-tracking-service');
    expect(JSON.parse(res.body).errors[0].status).toBe('404');
  });
});

describe.skipIf(reportBrowserSkip('docs page in a browser'))('in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('lists every type, and "Try it out" with a key from Authorize lists samples', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    page.on('request', (request) => {
      if (!/^(https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/|data:)/.test(request.url())) problems.push(`left loopback: ${request.url()}`);
    });
    // Deep-linked to the samples listing (the operations are collapsed, so every type's section is drawn).
    await page.goto(`${service.url}/api/v2/docs#/samples/list-samples`);
    const operation = page.locator('#operations-samples-list-samples');
    // On failure, say what the page reported. (Drawing the 37 types takes seconds on a busy machine.)
    await operation.waitFor({ timeout: WAIT_MS }).catch((error: Error) => {
      throw new Error(`${error.message}\n${problems.join('\n')}`);
    });
    // In the order the examples work in (test/integration/openapi-examples.test.ts), samples first.
    const tags = await page.locator('.opblock-tag').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-tag')));
    expect(tags).toEqual(registry.types);

    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.modal-ux input#api_key_value').fill(WRITE_KEY);
    await page.locator('.modal-ux .auth-btn-wrapper .authorize').click();
    await page.locator('.modal-ux .btn-done').click();

    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('200');
    // The request carried the key (without it the answer is a 401).
    expect(await operation.locator('.curl-command').textContent()).toContain(WRITE_KEY);
    expect(problems).toEqual([]);
    await page.close();
  });
});
