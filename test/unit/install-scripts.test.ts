import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What `npm ci` runs besides unpacking: every dependency with an install script is decided in package.json's
 * `allowScripts` (npm warns about each one that is not, and a new one fails here until someone looks at
 * it), and swagger-ui-dist's install telemetry (@scarf/scarf) is off both ways: npm does not run its
 * script, and scarf's own check, run on this project's dependency tree as its script would run it, refuses
 * to report.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const json = (file: string) => JSON.parse(readFileSync(new URL(file, new URL('../../', import.meta.url)), 'utf8'));
const manifest = json('package.json') as { allowScripts?: Record<string, boolean>; scarfSettings?: { enabled?: boolean } };
const lock = json('package-lock.json') as { packages: Record<string, { version?: string; hasInstallScript?: boolean }> };

/** The packages of the lock file that have an install script, as `name@version`. */
const withInstallScripts = Object.entries(lock.packages)
  .filter(([, entry]) => entry.hasInstallScript)
  .map(([path, entry]) => `${path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${entry.version}`);

const decision = (nameAtVersion: string) => {
  const name = nameAtVersion.slice(0, nameAtVersion.lastIndexOf('@'));
  return manifest.allowScripts?.[nameAtVersion] ?? manifest.allowScripts?.[name];
};

describe('install scripts', () => {
  it('each one is decided in allowScripts, so npm ci warns about none', () => {
    expect(withInstallScripts).toContain('@scarf/scarf@1.4.0');
    expect(withInstallScripts.filter((p) => decision(p) === undefined)).toEqual([]);
  });

  it("denies swagger-ui-dist's install telemetry, and opts out of it where scarf looks", () => {
    expect(decision(withInstallScripts.find((p) => p.startsWith('@scarf/scarf@'))!)).toBe(false);
    expect(manifest.scarfSettings).toEqual({ enabled: false });
  });

  it("scarf's own check on this project's tree refuses to report (no request is made: the check only reads the tree)", async () => {
    const scarf = createRequire(import.meta.url)('@scarf/scarf/report.js') as {
      processDependencyTreeOutput: (resolve: (info: unknown) => void, reject: (error: Error) => void) => (error: null, stdout: string, stderr: string) => void;
    };
    // What its postinstall runs to find the project and its settings (report.js, getDependencyInfo).
    const tree = execFileSync('npm', ['ls', '@scarf/scarf', '--json', '--long'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const outcome = await new Promise<unknown>((resolve, reject) => scarf.processDependencyTreeOutput(resolve, reject)(null, tree, '')).then(
      (info) => ({ reports: info }),
      (error: Error) => ({ refused: error.message }),
    );
    expect(outcome).toEqual({ refused: 'Scarf has been disabled via a package.json in the dependency chain.' });
  });
});
