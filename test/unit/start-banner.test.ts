import { describe, expect, it } from 'vitest';
import { README_URL, startBanner } from '#lib/local/banner.ts';

/**
 * What `npm start` prints once it listens (lib/local/banner.ts): the key, the docs page's and the plate
 * maps' addresses on its own port, and, when the README's commands would not find it by their defaults
 * (another port, another key than `.lts/dev-api-key` holds), the line that points them at it.
 */

const facts = { devKey: 'dev-key-0123456789', adminKey: false, eventsFile: '/data/events.ndjson', readmeKeyFileHolds: true };

describe('the start banner', () => {
  it('on another port: the docs page and plate maps there, and LTS_URL for the README', () => {
    const lines = startBanner({ ...facts, url: 'http://localhost:3100' });
    expect(lines).toContain('Docs page (no key needed): http://localhost:3100/api/v2/docs');
    expect(lines).toContain('Plate maps: http://localhost:3100/labware/<barcode>');
    expect(lines.slice(-3)).toEqual([
      "For the README's lab day and examples, in their shell:",
      '  export LTS_URL=http://localhost:3100',
      'listening on http://localhost:3100',
    ]);
  });

  it('on the README’s address with the key file it reads: nothing to export', () => {
    const lines = startBanner({ ...facts, url: README_URL });
    expect(lines.some((line) => line.includes('export'))).toBe(false);
    expect(lines).toContain(`Docs page (no key needed): ${README_URL}/api/v2/docs`);
    expect(lines.at(-1)).toBe(`listening on ${README_URL}`);
  });

  it('with a key the README cannot read (LTS_DEV_API_KEY, another data dir): LTS_KEY too', () => {
    expect(startBanner({ ...facts, url: README_URL, readmeKeyFileHolds: false })).toContain(`  export LTS_KEY=${facts.devKey}`);
    expect(startBanner({ ...facts, url: 'http://localhost:3100', readmeKeyFileHolds: false })).toContain(
      `  export LTS_URL=http://localhost:3100 LTS_KEY=${facts.devKey}`,
    );
  });

  it('names the admin key and the webhook when there are', () => {
    const lines = startBanner({ ...facts, url: README_URL, adminKey: true, webhookUrl: 'http://localhost:8080/hook' });
    expect(lines).toContain('Development admin key: LTS_DEV_ADMIN_API_KEY (named dev-admin)');
    expect(lines).toContain('Events: /data/events.ndjson and POST http://localhost:8080/hook');
  });
});
