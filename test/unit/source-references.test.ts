import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

/**
 * Comments and docs point readers at files and at sections of docs/decisions.md and docs/measurements.md;
 * nothing else checks those pointers, and a renamed file or retitled section would leave them pointing nowhere
 * (the 2026-11-27 review found two such). Each section of docs/measurements.md holds the measurements behind
 * the decision of the same title. And the lab rules in lib/domain/ are pure: they import only each other and Node's built-ins;
 * the kinds of problem they name are those some rule finds.
 */

const SOURCE_ROOTS = ['lib', 'functions', 'infra', 'test'];
const DOCS = ['README.md', 'docs/architecture.md', 'docs/decisions.md', 'docs/events.md', 'docs/measurements.md'];

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

/** The `## ` titles of a doc. */
const titlesOf = (doc: string) => [...readFileSync(doc, 'utf8').matchAll(/^## (.+)$/gm)].map((m) => m[1]!);

/** Every `<name>.md, "Title"` citation in code and docs whose title starts no `## ` title of docs/<name>.md. */
function unknownCitations(name: string) {
  const titles = titlesOf(`docs/${name}.md`);
  const cited = texts.flatMap(({ file, text }) =>
    [...text.matchAll(new RegExp(`${name}\\.md[,:]?\\s*\\(?(?:section\\s+)?"([^"]+)"`, 'g'))].map((m) => ({ file, title: unwrap(m[1]!) })),
  );
  // A citation may name a section by the start of its title.
  return { cited, unknown: cited.filter(({ title }) => !titles.some((t) => t.startsWith(title))).map(({ file, title }) => `${file}: "${title}"`) };
}

it('cites only sections of docs/decisions.md that exist', () => {
  const { cited, unknown } = unknownCitations('decisions');
  expect(cited.length).toBeGreaterThan(5);
  expect(unknown).toEqual([]);
});

it('cites only sections of docs/measurements.md that exist', () => {
  const { cited, unknown } = unknownCitations('measurements');
  expect(cited.length).toBeGreaterThan(5);
  expect(unknown).toEqual([]);
});

it('keeps each measurement under the title of the decision it supports', () => {
  const decisions = titlesOf('docs/decisions.md');
  const measurements = titlesOf('docs/measurements.md');
  expect(measurements.length).toBeGreaterThan(5);
  expect(measurements.filter((title) => !decisions.includes(title))).toEqual([]);
});

/** The modules a source file imports: static imports and re-exports (types included), and dynamic imports. */
const importsOf = (file: string): string[] => {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms), ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!);
};

it('keeps lib/domain pure: its modules import only each other and Node built-ins', () => {
  const outside = filesUnder('lib/domain').flatMap((file) =>
    importsOf(file)
      .filter((spec) => !spec.startsWith('#lib/domain/') && !spec.startsWith('./') && !spec.startsWith('node:'))
      .map((spec) => `${file}: ${spec}`),
  );
  expect(outside).toEqual([]);
});

it('keeps lib/operations below the definitions: no operation imports lib/resources/', () => {
  // The definitions call the operations (`create: (ctx, input) => createTransfer(ctx, input)`); an operation names a type's index through the registry (`ctx.registry.indexScope('tubes', 'pool_tube')`).
  const operations = filesUnder('lib/operations');
  expect(operations.length).toBeGreaterThan(5);
  const upward = operations.flatMap((file) =>
    importsOf(file)
      .filter((spec) => spec.startsWith('#lib/resources/') || /^(\.\.\/)+resources\//.test(spec))
      .map((spec) => `${file}: ${spec}`),
  );
  expect(upward).toEqual([]);
});

it('lists only kinds of problem that some rule or resource finds', () => {
  const codes = [...readFileSync('lib/domain/problems.ts', 'utf8').matchAll(/^\s*\| '([a-z_]+)'/gm)].map((m) => m[1]!);
  expect(codes.length).toBeGreaterThan(20);
  const finders = texts.filter(({ file }) => file.startsWith('lib/') && file !== 'lib/domain/problems.ts');
  expect(codes.filter((code) => !finders.some(({ text }) => text.includes(`code: '${code}'`) || text.includes(`'${code}' as const`)))).toEqual([]);
});
