import { basename, isAbsolute, relative } from 'node:path';

/**
 * Files as `GET /health` names them. The page answers anyone who can reach the port, without a key, so it
 * shows no absolute path (a home directory, a data dir's place on the machine): a file inside the working
 * directory by its path from there (`.lts/events.dead-letters.ndjson`, what an operator types), any other by
 * its name alone (the operator set where it is: LTS_EVENTS_FILE).
 */
export function shownPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere && !fromHere.startsWith('..') && !isAbsolute(fromHere) ? fromHere : basename(path);
}

/** A failure as `GET /health` tells it: its message, with the files a file system error names (`path`, `dest`) shown as shownPath shows them. */
export function shownFailure(error: unknown): string {
  let text = String(error);
  const { path, dest } = (error ?? {}) as { path?: unknown; dest?: unknown };
  for (const file of [path, dest]) if (typeof file === 'string' && isAbsolute(file)) text = text.replaceAll(file, shownPath(file));
  return text;
}
