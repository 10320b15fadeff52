/**
 * What `npm start` prints once it listens. The README's lab day and client examples assume the default
 * address and the key file of the default data dir (`LTS_URL`, `LTS_KEY` override them); when this start
 * differs from either, the banner gives the line that points them here, since without it every step of
 * the day fails with a connection error or a 401.
 */

/** The address the README's commands use unless `LTS_URL` is set. */
export const README_URL = 'http://localhost:3000';

export interface BannerFacts {
  /** Where the service listens (`http://localhost:<port>`). */
  url: string;
  devKey: string;
  /** Whether `LTS_DEV_ADMIN_API_KEY` registered an admin key. */
  adminKey: boolean;
  eventsFile: string;
  webhookUrl?: string;
  /** Whether `.lts/dev-api-key` of the working directory, which the README's commands read, holds `devKey`. */
  readmeKeyFileHolds: boolean;
}

export function startBanner(facts: BannerFacts): string[] {
  const { url, devKey } = facts;
  const readmeNeeds = [...(url === README_URL ? [] : [`LTS_URL=${url}`]), ...(facts.readmeKeyFileHolds ? [] : [`LTS_KEY=${devKey}`])];
  return [
    'Laboratory Tracking Service',
    `Development API key (write): ${devKey}`,
    ...(facts.adminKey ? ['Development admin key: LTS_DEV_ADMIN_API_KEY (named dev-admin)'] : []),
    `  curl -H 'X-Sequencescape-Client-Id: ${devKey}' ${url}/api/v2/samples`,
    `Docs page (no key needed): ${url}/api/v2/docs`,
    `Plate maps: ${url}/labware/<barcode>`,
    `Events: ${facts.eventsFile}${facts.webhookUrl ? ` and POST ${facts.webhookUrl}` : ''}`,
    ...(readmeNeeds.length > 0 ? ["For the README's lab day and examples, in their shell:", `  export ${readmeNeeds.join(' ')}`] : []),
    `listening on ${url}`,
  ];
}
