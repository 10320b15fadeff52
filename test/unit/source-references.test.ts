import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

/**
 * Comments and docs point readers at files and at sections of docs/decisions.md; nothing else checks those
 * pointers, and a renamed file or retitled section would leave them pointing nowhere (the 2026-11-27 review
 * found two such). And the lab rules in lib/domain/ are pure: they import only each other and Node's built-ins;
 * the kinds of problem they name are those some rule finds.
 */

const SOURCE_ROOTS = ['lib', 'functions', 'infra', 'test'];
const DOCS = ['README.md', 'docs/architecture.md', 'docs/decisions.md', 'docs/events.md'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : /\.(ts|cjs|java)$/.test(entry.name) ? [path] : [];
  });
}

const sources = SOURCE_ROOTS.flatMap(filesUnder);
const texts = [...sources, ...DOCS].map((file) => ({ file, text: readFileSync(file, 'utf8') }));

/** A repository path as prose names it: a top-level folder, then segments, then a file's extension (no placeholders like `<type>`). */
const PATH = /(?<![\w/.#-])((?:lib|docs|test|functions|infra|bench)\/[\w-]+(?:\/[\w.-]+)*\.(?:ts|md|json|java|cjs|svg|png))\b/g;

it('names only files that exist', () => {
  const missing = texts.flatMap(({ file, text }) =>
    [...text.matchAll(PATH)]
      .map((m) => m[1]!)
      .filter((path) => !existsSync(path))
      .map((path) => `${file}: ${path}`),
  );
  expect(missing).toEqual([]);
});

/** A title as cited, with a comment's or paragraph's line breaks (and their `*` or `//`) made spaces again. */
const unwrap = (title: string) => title.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' ');

it('cites only sections of docs/decisions.md that exist', () => {
  const titles = [...readFileSync('docs/decisions.md', 'utf8').matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
  const cited = texts.flatMap(({ file, text }) =>
    [...text.matchAll(/decisions\.md[,:]?\s*\(?(?:section\s+)?"([^"]+)"/g)].map((m) => ({ file, title: unwrap(m[1]!) })),
  );
  expect(cited.length).toBeGreaterThan(5);
  // A citation may name a section by the start of its title.
  expect(cited.filter(({ title }) => !titles.some((t) => t.startsWith(title))).map(({ file, title }) => `${file}: "${title}"`)).toEqual([]);
});

it('keeps lib/domain pure: its modules import only each other and Node built-ins', () => {
  const outside = filesUnder('lib/domain').flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^import\s[^;]*?from\s+'([^']+)'/gms)]
      .map((m) => m[1]!)
      .filter((spec) => !spec.startsWith('#lib/domain/') && !spec.startsWith('./') && !spec.startsWith('node:'))
      .map((spec) => `${file}: ${spec}`),
  );
  expect(outside).toEqual([]);
});

it('lists only kinds of problem that some rule or resource finds', () => {
  const codes = [...readFileSync('lib/domain/problems.ts', 'utf8').matchAll(/^\s*\| '([a-z_]+)'/gm)].map((m) => m[1]!);
  expect(codes.length).toBeGreaterThan(20);
  const finders = texts.filter(({ file }) => file.startsWith('lib/') && file !== 'lib/domain/problems.ts');
  expect(codes.filter((code) => !finders.some(({ text }) => text.includes(`code: '${code}'`) || text.includes(`'${code}' as const`)))).toEqual([]);
});
