import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * What a server's transactions write, by shape: each TransactWriteItems as its items' operations and keys
 * with the numbers and uuids taken out (`Put $lts#family_labware#id_# $record_#`), sorted. The service and
 * the floor write the same items for the same request exactly when their shapes are equal (ids, uuids
 * and shards differ from request to request, the kinds and counts of items do not): the bench's write
 * parity check (./parity.ts). Kept per process, the last few only.
 */
const KEPT = 4;

type Keyed = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === 'object' && value !== null && 'S' in value ? String((value as { S: unknown }).S) : String(value));
const shape = (value: unknown): string =>
  text(value)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d+[A-Z]$/, '#') // a barcode's number and check letter
    .replace(/\d+/g, '#');

function itemShape(entry: Keyed): string {
  const [op, body] = Object.entries(entry)[0] as [string, { Key?: Keyed; Item?: Keyed }];
  const key = body.Key ?? body.Item ?? {};
  return `${op} ${shape(key.pk)} ${shape(key.sk)}`;
}

/** A TransactWriteItems' shape: its items' operations and keys, numbers and uuids taken out, sorted. */
export const transactionShape = (items: readonly Keyed[]): string[] => items.map(itemShape).sort();

/**
 * Where two sides' transactions differ by shape, compared in order: for each that differs, the items only
 * one side wrote (as many times as it wrote them more). Empty when both wrote the same.
 */
export function shapeDifferences(service: readonly string[][], floor: readonly string[][]): string[] {
  const surplus = (x: readonly string[], y: readonly string[]) => {
    const left = [...y];
    return x.filter((item) => {
      const at = left.indexOf(item);
      if (at >= 0) left.splice(at, 1);
      return at < 0;
    });
  };
  const found: string[] = [];
  for (let i = 0; i < Math.max(service.length, floor.length); i++) {
    const [a, b] = [service[i] ?? [], floor[i] ?? []];
    const [more, fewer] = [surplus(a, b), surplus(b, a)];
    if (more.length + fewer.length > 0)
      found.push(
        `transaction ${i + 1} (${a.length} items against ${b.length}): service only ${more.join(', ') || 'none'}; floor only ${fewer.join(', ') || 'none'}`,
      );
  }
  return found;
}

/**
 * Records the shapes of the transactions `client` sends; returns what reads them (oldest first). The items
 * are kept as sent and shaped when read: shaping each one as it is sent ran inside the measured requests,
 * costing each side CPU in proportion to the items it writes (~7 ms a rack split on the service).
 */
export function recordWriteShapes(client: DynamoDBDocumentClient): () => string[][] {
  const kept: (readonly Keyed[])[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TransactItems?: Keyed[] };
      if (/^TransactWrite/.test(String(context.commandName)) && input.TransactItems) {
        kept.push([...input.TransactItems]);
        if (kept.length > KEPT) kept.shift();
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchWriteShapes' },
  );
  return () => kept.map(transactionShape);
}
