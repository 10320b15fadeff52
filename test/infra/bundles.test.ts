import { expect, it } from 'vitest';
import { BUNDLE_LIMIT_BYTES, bundles } from '../../infra/bundles.ts';
import { functionEntries } from '../../infra/bundling.ts';
import { routes } from '#lib/routes.ts';

/** zod's classic API: ~440 KB and most of a cold start's own load (docs/decisions.md, "Cold starts"); functions use zod/mini. */
const ZOD_CLASSIC = 'node_modules/zod/v4/classic/';

it('bundles every function, as the stack does, under 1 MB each and without zod classic', async () => {
  const built = await bundles();
  console.log(
    Object.entries(built)
      .map(([name, { bytes }]) => `${name} ${(bytes / 1024).toFixed(1)} KB`)
      .join('\n'),
  );
  const entries = functionEntries();
  expect(Object.keys(built).sort()).toEqual(Object.keys(entries).sort());
  expect(Object.keys(built)).toHaveLength(routes.length + 2);
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
