import type { BuildOptions } from 'esbuild';
import { OPENAPI_TEMPLATE_FILE, OPENAPI_TEMPLATE_SCRIPT, SWAGGER_UI_DIR, SWAGGER_UI_FILES, SWAGGER_UI_PACKAGE } from '#lib/http/docs-assets.ts';
import { entryFile, FALLBACK, routes } from '#lib/routes.ts';

/**
 * How every function is bundled, in one place: the stack hands these options to `NodejsFunction`
 * (infra/function.ts), and `npm run bundles` (infra/bundles.ts) runs esbuild with the same ones, so the
 * sizes it reports are the sizes deployed.
 */
export const bundling = {
  target: 'node22',
  minify: true,
  sourceMap: true,
  /** CommonJS: nothing on the request path needs ESM (no top-level await, no import.meta), and CJS dependencies bundle without a require shim. */
  format: 'cjs',
  /**
   * Nothing external: the pinned AWS SDK (package-lock.json) is bundled, so Lambda runs the SDK the tests
   * ran, not the runtime's own copy — and, tree-shaken and minified, it loads faster than that copy
   * (docs/decisions.md, "Cold starts").
   */
  externalModules: [],
  /** Packages' ES module builds first: esbuild tree-shakes those (the SDK's CommonJS builds would bundle whole). */
  mainFields: ['module', 'main'],
  /**
   * Modules replaced in every bundle, by a path from the project root (esbuild's working directory, here
   * and in NodejsFunction's local bundling). `node:stream/web` is read lazily: @middy/core imports it at
   * load for streamed responses the service never sends (lib/http/lazy-stream-web.cjs).
   */
  alias: { 'node:stream/web': './lib/http/lazy-stream-web.cjs' },
} as const;

/** The functions beyond HTTP: DynamoDB stream publisher and inbound queue consumer (lib/events/), and the scheduled sweeper of abandoned large writes (lib/store/recovery.ts). */
export const eventEntries = {
  publisher: 'functions/events/publisher.ts',
  inbound: 'functions/events/inbound.ts',
  sweeper: 'functions/events/sweeper.ts',
} as const;

/** Every function of the app by name: one per route of lib/routes.ts, and the three functions beyond HTTP. */
export function functionEntries(): Record<string, string> {
  return { ...Object.fromEntries(routes.map((route) => [route.name, entryFile(route)])), ...eventEntries };
}

/** The esbuild options `NodejsFunction` derives from `bundling` (its CLI call: `--bundle --platform=node …`), for a build of several entries. */
export function esbuildOptions(entryPoints: Record<string, string>, outdir: string): BuildOptions {
  return {
    entryPoints,
    outdir,
    bundle: true,
    platform: 'node',
    target: bundling.target,
    format: bundling.format,
    minify: bundling.minify,
    sourcemap: bundling.sourceMap,
    external: [...bundling.externalModules],
    mainFields: [...bundling.mainFields],
    alias: { ...bundling.alias },
    logLevel: 'warning',
  };
}

/** Files a function reads from disk at run time, copied beside its bundle: from a folder of the project into one of the asset. */
export interface BundleAssets {
  from: string;
  to: string;
  files: readonly string[];
  /** A file written beside the bundle by a script of the project (run with tsx, given the file's path). */
  written?: { file: string; script: string };
}

/**
 * Assets by function name. The fallback serves the docs page (every path no route serves reaches it), whose
 * Swagger UI files would take its bundle past 1 MB: they go beside it and are read on first use. So does the
 * OpenAPI document, generated here rather than by the function, whose load would carry the generator.
 */
export const bundleAssets: Readonly<Record<string, BundleAssets>> = {
  [FALLBACK]: {
    from: `node_modules/${SWAGGER_UI_PACKAGE}`,
    to: SWAGGER_UI_DIR,
    files: SWAGGER_UI_FILES,
    written: { file: OPENAPI_TEMPLATE_FILE, script: OPENAPI_TEMPLATE_SCRIPT },
  },
};

/** The shell commands that copy a function's assets after esbuild (NodejsFunction's `afterBundling` hook; `npm run bundles` runs them too). */
export function assetCommands(assets: BundleAssets | undefined, inputDir: string, outputDir: string): string[] {
  if (!assets) return [];
  const to = `${outputDir}/${assets.to}`;
  const copies = [`mkdir -p "${to}"`, ...assets.files.map((file) => `cp "${inputDir}/${assets.from}/${file}" "${to}/${file}"`)];
  const { written } = assets;
  return written ? [...copies, `cd "${inputDir}" && npx tsx ${written.script} "${outputDir}/${written.file}"`] : copies;
}
