import { execSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { assetCommands, bundleAssets, esbuildOptions, functionEntries } from './bundling.ts';
import { PROJECT_ROOT } from './function.ts';

/** Lambda accepts larger code, but a bundle past 1 MB means something heavy slipped onto the request path. */
export const BUNDLE_LIMIT_BYTES = 1_048_576;

/** A built bundle: its size in bytes (its index.js, without the source map) and the source files esbuild put in it. */
export interface Bundle {
  bytes: number;
  /** Paths as esbuild's metafile gives them, relative to the project root (symlinks resolved). */
  inputs: string[];
  /** The inputs the bundle runs when it loads; the others only after a dynamic `import()`, on first use. */
  atStart: string[];
  /** What the bundle still `require`s at run time (esbuild's external imports): Node's own modules only, the SDK being bundled. */
  requires: string[];
}

/** The inputs reachable from `entry` without crossing a dynamic `import()`: what loading the bundle runs. */
function loadedAtStart(metafile: Metafile, entry: string): string[] {
  const seen = new Set([entry]);
  const queue = [entry];
  for (let input = queue.pop(); input !== undefined; input = queue.pop()) {
    for (const { path, kind, external } of metafile.inputs[input]?.imports ?? []) {
      if (kind === 'dynamic-import' || external || seen.has(path)) continue;
      seen.add(path);
      queue.push(path);
    }
  }
  return [...seen];
}

async function bundleAll(outdir: string, extra: Record<string, string>) {
  const all = { ...functionEntries(), ...extra };
  const entries = Object.fromEntries(Object.entries(all).map(([name, entry]) => [`${name}/index`, join(PROJECT_ROOT, entry)]));
  const { metafile } = await build({ ...esbuildOptions(entries, outdir), absWorkingDir: PROJECT_ROOT, metafile: true });
  const files = Object.fromEntries(Object.keys(all).map((name) => [name, join(outdir, name, 'index.js')]));
  return { files, metafile };
}

/**
 * Bundles every function (the route entries and the event entries), and any `extra` entries, with the
 * options the stack gives NodejsFunction, in one esbuild call, into `outdir`; returns each bundle's file
 * (`<outdir>/<name>/index.js`) by name.
 */
export async function buildBundles(outdir: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return (await bundleAll(outdir, extra)).files;
}

/** Every function's bundle by name, built in a temporary directory removed afterwards. */
export async function bundles(): Promise<Record<string, Bundle>> {
  const outdir = mkdtempSync(join(tmpdir(), 'lts-bundles-'));
  try {
    return await bundlesIn(outdir);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Every function's bundle, and any `extra` entries', built into `outdir` and left there: each with its file. */
export async function bundlesIn(outdir: string, extra: Record<string, string> = {}): Promise<Record<string, Bundle & { file: string }>> {
  const { files, metafile } = await bundleAll(outdir, extra);
  const entries = { ...functionEntries(), ...extra };
  return Object.fromEntries(
    Object.entries(files).map(([name, file]) => {
      const output = metafile.outputs[relative(PROJECT_ROOT, file)];
      const bundle = {
        file,
        bytes: statSync(file).size,
        inputs: Object.keys(output?.inputs ?? {}),
        atStart: loadedAtStart(metafile, entries[name]!),
        requires: [...new Set(output?.imports.filter(({ external }) => external).map(({ path }) => path))],
      };
      return [name, bundle];
    }),
  );
}

/**
 * Copies each function's assets into `<outdir>/<name>/` with the commands the stack's `afterBundling` hook
 * runs (a written file included); returns the files each function's asset then holds beside its bundle, with their sizes in bytes.
 */
export function copyBundleAssets(outdir: string): Record<string, Record<string, number>> {
  const copied: Record<string, Record<string, number>> = {};
  for (const [name, assets] of Object.entries(bundleAssets)) {
    for (const command of assetCommands(assets, PROJECT_ROOT, join(outdir, name))) execSync(command);
    const dir = join(outdir, name, assets.to);
    copied[name] = Object.fromEntries(readdirSync(dir).map((file) => [`${assets.to}/${file}`, statSync(join(dir, file)).size]));
    const { written } = assets;
    if (written) copied[name][written.file] = statSync(join(outdir, name, written.file)).size;
  }
  return copied;
}

/** `npm run bundles`: one line per function, largest first, and exit 1 if any is over the limit. */
async function main(): Promise<void> {
  const sizes = Object.entries(await bundles())
    .map(([name, { bytes }]) => [name, bytes] as const)
    .sort(([, a], [, b]) => b - a);
  for (const [name, bytes] of sizes) console.log(`${(bytes / 1024).toFixed(1).padStart(8)} KB  ${name}`);
  const over = sizes.filter(([, bytes]) => bytes > BUNDLE_LIMIT_BYTES);
  if (over.length > 0) {
    console.error(`over ${BUNDLE_LIMIT_BYTES} bytes: ${over.map(([name]) => name).join(', ')}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] === import.meta.filename) await main();
