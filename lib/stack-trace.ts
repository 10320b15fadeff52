import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';

/**
 * Stack traces in the source's terms, for the log of an unexpected error. A deployed function is a minified
 * bundle with its source map beside it (`index.js.map`). Node's `--enable-source-maps` would read and parse
 * that 2 MB map at every cold start (~12 ms, a fifth of the module load: docs/decisions.md, "Cold starts");
 * unexpected errors are rare, so a map is read the first time a stack passes through its bundle, and kept.
 */
const maps = new Map<string, SourceMap | undefined>();

function mapOf(file: string): SourceMap | undefined {
  if (!maps.has(file)) {
    let map: SourceMap | undefined;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      // No map beside the file (a dependency's), or an unreadable one: the stack stays as it is.
    }
    maps.set(file, map);
  }
  return maps.get(file);
}

/** A V8 stack frame's location: `/path/file.js:line:column`, in parentheses or after `at `. */
const LOCATION = /(\/[^\s():]+\.c?js):(\d+):(\d+)/g;

/** The stack with every location in a bundle that has a source map replaced by the original file, line and column. */
export function sourceMappedStack(stack: string): string {
  return stack.replace(LOCATION, (location, file: string, line: string, column: string) => {
    const origin = mapOf(file)?.findOrigin(Number(line), Number(column));
    return origin && 'fileName' in origin ? `${origin.fileName}:${origin.lineNumber}:${origin.columnNumber}` : location;
  });
}
