import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core, for the pages the service draws (the docs page, plate
 * maps). `.ci/run` installs the `chromium` package; where it is missing (a developer's machine without
 * it), `browserUnavailable()` says why, and the browser tests skip with that reason printed.
 */
export const CHROMIUM = process.env.LTS_CHROMIUM ?? '/usr/bin/chromium';

/** Why no browser can run here, or undefined when one can. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  return `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium) or set LTS_CHROMIUM`;
}

/** Prints the reason once per file, so a skipped browser test is never silent. */
export function reportBrowserSkip(what: string): boolean {
  const reason = browserUnavailable();
  if (reason) console.warn(`SKIPPED ${what}: ${reason}`);
  return reason !== undefined;
}

/**
 * A fresh headless Chromium (playwright gives it a new empty profile). The background-networking flags
 * keep it from calling out: this machine's network is closed, and a page must need nothing from outside.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
