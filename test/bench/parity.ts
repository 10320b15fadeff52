import { isDeepStrictEqual } from 'node:util';
import type { Side } from './measure.ts';
import type { Scenario } from './scenarios.ts';
import { shapeDifferences } from './write-shapes.ts';

/**
 * Checks that each floor gives the same answer as the service (the first side) for a read: the same
 * document once each base URL is taken out and resources are put in one order (type, id). Returns the
 * first differences, each floor's named, or undefined when there is none. A floor is only a floor if it
 * reads and renders the same data.
 */
export async function compareAnswers(sides: readonly Side[], scenario: Scenario): Promise<string | undefined> {
  const [service, ...floors] = await Promise.all(sides.map(async (side) => normalize(side, (await scenario.send(side, 0)).text)));
  const found = floors.flatMap((floor, i) => {
    const difference = firstDifference(service, floor, '');
    return difference ? [`${sides[i + 1]!.role}: ${difference}`] : [];
  });
  return found.length > 0 ? found.join('; ') : undefined;
}

function normalize(side: Side, text: string): unknown {
  const doc = JSON.parse(text.split(side.server.url).join('')) as { data?: unknown; included?: { type: string; id: string }[] };
  const order = (a: { type: string; id: string }, b: { type: string; id: string }) =>
    a.type === b.type ? Number(a.id) - Number(b.id) : a.type < b.type ? -1 : 1;
  if (Array.isArray(doc.data)) doc.data = [...doc.data].sort(order);
  if (doc.included) doc.included = [...doc.included].sort(order);
  return doc;
}

/** The first few differences (MAX_DIFFERENCES), each a path and both values: enough to fix a floor in one run. */
const MAX_DIFFERENCES = 5;

function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  const found: string[] = [];
  differences(a, b, path, found);
  return found.length > 0 ? found.join('; ') : undefined;
}

function differences(a: unknown, b: unknown, path: string, found: string[]): void {
  if (found.length >= MAX_DIFFERENCES || isDeepStrictEqual(a, b)) return;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}/${key}`, found);
    return;
  }
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 120));
  found.push(`${path || '/'}: service ${show(a)}, floor ${show(b)}`);
}

/**
 * Checks that the floor wrote the items the service wrote: the shapes of each side's last `count`
 * transactions (./write-shapes.ts: operations and keys, ids and uuids taken out), compared in order.
 * Returns the items only one side wrote, or undefined when both wrote the same.
 */
export async function compareWrites(sides: readonly Side[], count: number): Promise<string | undefined> {
  const [service, floor] = await Promise.all(sides.map(async (side) => (await side.server.writes()).slice(-count)));
  const found = shapeDifferences(service!, floor!);
  return found.length > 0 ? found.slice(0, MAX_DIFFERENCES).join('; ') : undefined;
}
