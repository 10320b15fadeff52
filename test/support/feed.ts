import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Envelope } from './table.ts';

/** The events of a local feed file (NDJSON), in the order written; none when there is no file yet. */
export const readFeed = (file: string): Envelope[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Envelope)
    : [];

/** Each resource's events, in the order given, must come in version order, one version after another. */
export function expectVersionOrder(events: Envelope[]): void {
  const versions = new Map<string, number[]>();
  for (const event of events) {
    const key = `${event.resource.type}/${event.resource.id}`;
    versions.set(key, [...(versions.get(key) ?? []), event.resource.version]);
  }
  for (const [resource, list] of versions) {
    const first = list[0]!;
    expect(list, resource).toEqual(list.map((_, i) => first + i));
  }
}
