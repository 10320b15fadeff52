import { expect, it } from 'vitest';
import { BUNDLE_LIMIT_BYTES, bundleSizes } from '../../infra/bundles.ts';
import { functionEntries } from '../../infra/bundling.ts';
import { routes } from '#lib/routes.ts';

it('bundles every function, as the stack does, under 1 MB each', async () => {
  const sizes = await bundleSizes();
  console.log(
    Object.entries(sizes)
      .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(1)} KB`)
      .join('\n'),
  );
  expect(Object.keys(sizes).sort()).toEqual(Object.keys(functionEntries()).sort());
  expect(Object.keys(sizes)).toHaveLength(routes.length + 2);
  for (const [name, bytes] of Object.entries(sizes)) {
    // An empty bundle would pass the limit: each must hold at least its handler.
    expect(bytes, name).toBeGreaterThan(0);
    expect(bytes, name).toBeLessThan(BUNDLE_LIMIT_BYTES);
  }
});
