import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { LocalService } from '#lib/local/service.ts';
import { launchBrowser, reportBrowserSkip } from '../support/browser.ts';
import { barcodeOf, taggedPlate, type TaggedPlate } from '../support/plate-map.ts';
import { freshHttpService, READ_KEY } from '../support/store.ts';

/**
 * The plate map in a real browser (Debian's Chromium), over HTTP from the local service: a lab person
 * opens a labware's page, types a key once into the 401 page's form, sees the plate, points at a well to
 * read what it holds, and follows the links to its parent and child (the cookie carries the key). The
 * page's own script and style must run under its Content-Security-Policy: a violation fails the test.
 */

describe.skipIf(reportBrowserSkip('the plate map browser test'))('the plate map in a browser', () => {
  let service: LocalService;
  let browser: Browser;
  let page: Page;
  let demo: TaggedPlate;
  const problems: string[] = [];

  beforeAll(async () => {
    service = await freshHttpService();
    // The service's table is this process's store too: the labware is built through the in-process handlers.
    [demo, browser] = await Promise.all([taggedPlate(), launchBrowser()]);
    page = await browser.newPage();
    page.on('console', (message) => {
      // The 401 of the first visit is expected; anything else (a policy violation) is not.
      if (message.type() === 'error' && !message.text().includes('status of 401')) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const heading = () => page.locator('h1').textContent();

  it('asks for a key once, then draws the plate', async () => {
    const url = `${service.url}/labware/${barcodeOf(demo.plate)}`;
    const first = await page.goto(url);
    expect(first?.status()).toBe(401);
    await page.fill('#key', READ_KEY);
    await Promise.all([page.waitForURL(url), page.click('button[type=submit]')]);
    expect(await heading()).toBe(barcodeOf(demo.plate));
    expect(await page.locator('svg.grid .receptacle').count()).toBe(96);
    expect(await page.locator('.legend li').allTextContents()).toEqual(['pending', 'started', 'passed', 'failed', 'empty']);
  });

  it('shows what a well holds when pointed at or focused: sample, i7/i5 tags, QC result', async () => {
    await page.hover('[data-position="A1"]');
    const a1 = await page.locator('#details').textContent();
    expect(a1).toBe(`A1 · passed\nsample ${demo.names.get('A1')} · i7 1 AGAGTGTA · i5 1 CGACACTG\nQC concentration 12.3 ng/ul ISC v1.0`);
    await page.focus('[data-position="H12"]');
    expect(await page.locator('#details').textContent()).toBe('H12 · pending\nno aliquots');
    // The hover text is the well's SVG <title>, which assistive technology reads too.
    expect(await page.locator('[data-position="A1"] > title').textContent()).toBe(a1);
  });

  it("follows the links to the plate's parent and child, carrying the key", async () => {
    await Promise.all([page.waitForURL(`**/labware/${barcodeOf(demo.parent)}`), page.click(`.parents a:text("${barcodeOf(demo.parent)}")`)]);
    expect(await heading()).toBe(barcodeOf(demo.parent));
    await page.goBack();
    await Promise.all([page.waitForURL(`**/labware/${barcodeOf(demo.child)}`), page.click(`.children a:text("${barcodeOf(demo.child)}")`)]);
    expect(await heading()).toBe(barcodeOf(demo.child));
    expect(await page.locator('.parents a').allTextContents()).toEqual([barcodeOf(demo.plate)]);
    // Every page ran its script and style without a policy violation or an error.
    expect(problems).toEqual([]);
  });
});
