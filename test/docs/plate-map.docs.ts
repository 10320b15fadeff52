import { it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { barcodeOf, taggedPlate } from '../support/plate-map.ts';
import { freshHttpService, READ_KEY } from '../support/store.ts';

/** docs/plate-map.png: the map of a dual-tagged 96-well plate with a few states and QC results, hovered at A1. */
it('draws docs/plate-map.png', async () => {
  const service = await freshHttpService();
  const browser = await launchBrowser();
  try {
    const { plate } = await taggedPlate();
    const page = await browser.newPage({ viewport: { width: 1000, height: 720 }, deviceScaleFactor: 1 });
    const url = `${service.url}/labware/${barcodeOf(plate)}`;
    await page.goto(url);
    await page.fill('#key', READ_KEY);
    await Promise.all([page.waitForURL(url), page.click('button[type=submit]')]);
    await page.hover('[data-position="A1"]');
    await page.screenshot({ path: 'docs/plate-map.png', fullPage: true });
  } finally {
    await browser.close();
    await service.stop();
  }
});
