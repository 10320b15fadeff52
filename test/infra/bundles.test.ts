import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { OPENAPI_TEMPLATE_FILE, SWAGGER_UI_FILES } from '#lib/http/docs-assets.ts';
import { swaggerUiDir } from '#lib/http/middleware/docs-page.ts';
import { describedFor, templateBesideBundle } from '#lib/http/middleware/service-root.ts';
import { openApiDocument } from '#lib/jsonapi/openapi.ts';
import { examples } from '#lib/resources/examples.ts';
import { registry } from '#lib/resources/index.ts';
import { BUNDLE_LIMIT_BYTES, bundles, copyBundleAssets } from '../../infra/bundles.ts';
import { functionEntries } from '../../infra/bundling.ts';
import { FALLBACK, routes } from '#lib/routes.ts';

/** zod's classic API: ~440 KB and most of a cold start's own load (docs/decisions.md, "Cold starts"); functions use zod/mini. */
const ZOD_CLASSIC = 'node_modules/zod/v4/classic/';

/** Every function's bundle, built once for the tests of this file. */
let building: ReturnType<typeof bundles> | undefined;
const allBundles = () => (building ??= bundles());

it('bundles every function, as the stack does, under 1 MB each and without zod classic', async () => {
  const built = await allBundles();
  console.log(
    Object.entries(built)
      .map(([name, { bytes }]) => `${name} ${(bytes / 1024).toFixed(1)} KB`)
      .join('\n'),
  );
  const entries = functionEntries();
  expect(Object.keys(built).sort()).toEqual(Object.keys(entries).sort());
  // The routes', the stream publisher, the inbound consumer and the sweeper.
  expect(Object.keys(built)).toHaveLength(routes.length + 3);
  for (const [name, { bytes, inputs }] of Object.entries(built)) {
    // An empty bundle would pass the limit: each must hold at least its handler.
    expect(bytes, name).toBeGreaterThan(0);
    expect(bytes, name).toBeLessThan(BUNDLE_LIMIT_BYTES);
    // The metafile names the bundle's sources (so the check below reads a real list), zod classic not among them.
    expect(inputs, name).toContain(entries[name]);
    expect(
      inputs.filter((input) => input.includes(ZOD_CLASSIC)),
      name,
    ).toEqual([]);
  }
});

it('bundles the pinned AWS SDK, tree-shaken, into every function: nothing left for the runtime to supply, and no local-only client', async () => {
  const built = await allBundles();
  for (const [name, { inputs, requires }] of Object.entries(built)) {
    // A bundle requires only Node's own modules: the SDK Lambda runs is the one the tests ran (package-lock.json), not the runtime's copy.
    expect(requires.length, name).toBeGreaterThan(0);
    expect(
      requires.filter((path) => !isBuiltin(path)),
      name,
    ).toEqual([]);
    // The SDK's ES module builds (mainFields), which esbuild tree-shakes; its CommonJS builds would go in whole.
    expect(
      inputs.some((input) => input.includes('node_modules/@aws-sdk/lib-dynamodb/dist-es/')),
      name,
    ).toBe(true);
    expect(
      inputs.filter((input) => input.includes('/dist-cjs/') && input.includes('node_modules/@aws-sdk/')),
      name,
    ).toEqual([]);
    // Node's web streams are read on first use (lib/http/lazy-stream-web.cjs): middy imports them at load for streamed responses the service never sends.
    expect(requires, name).not.toContain('node:stream/web');
    // The DynamoDB Streams client reads DynamoDB Local's stream for `npm start` (lib/local/); on AWS the stream invokes the publisher.
    expect(
      inputs.filter((input) => input.includes('node_modules/@aws-sdk/client-dynamodb-streams/')),
      name,
    ).toEqual([]);
  }
});

it('runs at load only what the function needs for every request: ElectroDB not in the stream publisher, the OpenAPI generator nowhere', async () => {
  const built = await allBundles();
  const atStart = (name: string, part: string) => built[name]!.atStart.filter((input) => input.includes(part));
  // The publisher reads chunk items (through ElectroDB) only for payloads past the inline budget (lib/store/request-payload.ts).
  expect(built.publisher!.inputs.some((input) => input.includes('node_modules/electrodb/'))).toBe(true);
  expect(atStart('publisher', 'node_modules/electrodb/')).toEqual([]);
  // Functions that write load it at once: nearly every request they serve reads or writes through it.
  expect(atStart('samples', 'node_modules/electrodb/').length).toBeGreaterThan(0);
  expect(atStart('inbound', 'node_modules/electrodb/').length).toBeGreaterThan(0);
  for (const name of Object.keys(built)) {
    expect(atStart(name, 'lib/jsonapi/openapi.ts'), name).toEqual([]);
    expect(atStart(name, 'lib/resources/examples.ts'), name).toEqual([]);
  }
});

it('bundles the root pages with the fallback only and the plate maps with the labware function only', async () => {
  const built = await allBundles();
  const holding = (part: string) => Object.keys(built).filter((name) => built[name]!.inputs.some((input) => input.includes(part)));
  expect(holding('lib/http/middleware/service-root.ts')).toEqual([FALLBACK]);
  expect(holding('lib/http/middleware/docs-page.ts')).toEqual([FALLBACK]);
  // The OpenAPI document is generated at bundling and read from beside the fallback's bundle: no bundle holds the generator.
  expect(holding('lib/jsonapi/openapi.ts')).toEqual([]);
  expect(holding('lib/resources/examples.ts')).toEqual([]);
  expect(holding('lib/pages/labware-map.ts')).toEqual(['labware']);
});

it('puts the docs page’s Swagger UI files and the OpenAPI document beside the fallback bundle, where its pages read them on Lambda', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'lts-assets-'));
  const taskRoot = process.env.LAMBDA_TASK_ROOT;
  try {
    const copied = copyBundleAssets(outdir);
    expect(Object.keys(copied)).toEqual([FALLBACK]);
    expect(Object.keys(copied[FALLBACK]!).sort()).toEqual([...SWAGGER_UI_FILES.map((file) => `swagger-ui/${file}`), OPENAPI_TEMPLATE_FILE].sort());
    // The Lambda runtime sets LAMBDA_TASK_ROOT to the unpacked asset: the page finds the very files copied there.
    process.env.LAMBDA_TASK_ROOT = join(outdir, FALLBACK);
    for (const file of SWAGGER_UI_FILES) {
      const body = readFileSync(join(swaggerUiDir(), file));
      expect(body.length, file).toBe(copied[FALLBACK]![`swagger-ui/${file}`]);
      expect(body.length, file).toBeGreaterThan(100_000);
    }
    // The document the fallback function serves from the file written there: the bytes the generator gives, for any server.
    for (const server of ['https://lts.example', 'http://localhost:3000', 'https://a"quote\\and$&$1.example']) {
      expect(describedFor(templateBesideBundle(registry), server), server).toBe(JSON.stringify(openApiDocument(registry, server, examples)));
    }
  } finally {
    if (taskRoot === undefined) delete process.env.LAMBDA_TASK_ROOT;
    else process.env.LAMBDA_TASK_ROOT = taskRoot;
    rmSync(outdir, { recursive: true, force: true });
  }
});
