import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

/**
 * `npm test` announces each phase before it runs (a quiet tsc on a slow machine looks hung otherwise),
 * and ends with `vitest run` so that arguments after `--` reach vitest: `.ci/run` passes its reporters
 * that way (`npm test -- --reporter=default --reporter=json …`).
 */
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
const steps = pkg.scripts.test!.split(' && ');

it('announces types, lint and tests before running each', () => {
  const commands = ['tsc --noEmit', 'biome check .', 'vitest run'];
  for (const command of commands) {
    const at = steps.indexOf(command);
    expect(at, command).toBeGreaterThan(0);
    expect(steps[at - 1], command).toMatch(/^echo '== \d\/3 /);
  }
  expect(steps.at(-1)).toBe('vitest run');
});

it('.ci/run hands its reporters to vitest through npm test', () => {
  expect(readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8')).toMatch(/^npm test -- --reporter=default --reporter=json /m);
});
