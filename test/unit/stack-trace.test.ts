import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../infra/bundling.ts';
import { sourceMappedStack } from '#lib/stack-trace.ts';

const dir = mkdtempSync(join(tmpdir(), 'lts-stack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle built as the stack builds functions (minified, with its map beside it) whose handler throws from line 4 of its source. */
async function throwingBundle(): Promise<() => void> {
  const source = join(dir, 'thrower.ts');
  writeFileSync(
    source,
    [
      'export function handler(): void {',
      '  const items: number[] = [];',
      '  if (items.length === 0) {',
      "    throw new Error('nothing to do');",
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  await build({ ...esbuildOptions({ thrower: source }, dir), absWorkingDir: dir });
  return createRequire(import.meta.url)(join(dir, 'thrower.js')).handler;
}

function stackOf(f: () => void): string {
  try {
    f();
  } catch (error) {
    return (error as Error).stack!;
  }
  throw new Error('did not throw');
}

describe('sourceMappedStack', () => {
  it("names the source file, line and column of a minified bundle's frame, from the map beside it", async () => {
    const stack = stackOf(await throwingBundle());
    expect(stack).toMatch(/thrower\.js:1:\d+/);
    const mapped = sourceMappedStack(stack);
    expect(mapped).toMatch(/thrower\.ts:4:\d+/);
    expect(mapped).not.toMatch(/thrower\.js:/);
    expect(mapped.split('\n')[0]).toBe('Error: nothing to do');
  });

  it('leaves frames without a map as they are', () => {
    const stack = 'Error: x\n    at f (/nowhere/plain.js:3:7)\n    at node:internal/process/task_queues:95:5';
    expect(sourceMappedStack(stack)).toBe(stack);
  });
});
