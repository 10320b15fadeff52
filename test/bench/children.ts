import { registry } from '#lib/resources/index.ts';
import { Db, documentClient } from './floor/db.ts';
import { recordKey } from './floor/keys.ts';
import type { Ref } from '#lib/store/records.ts';

/**
 * The uuids of the labware a creation made (its `child` or `children`; `racked_tubes`: the tubes of the
 * racks it made, rack by rack, in the order sent), read by the bench process straight from DynamoDB:
 * Limber reads them with a GET of the creation's related link, but that read is neither creator's write,
 * so it is taken out of both sides' measured time and CPU (neither server serves it).
 */
export type ChildrenOf = (type: string, id: string, relationship: string) => Promise<string[]>;

export function childrenReader(endpoint: string, table: string): { childrenOf: ChildrenOf; close: () => void } {
  const doc = documentClient(endpoint);
  const db = new Db(doc);
  const key = (ref: Ref) => recordKey(registry.familyOf(ref.type), Number(ref.id));
  const read = async (refs: Ref[]) => {
    const found = new Map((await db.batchGet(table, refs.map(key))).map((item) => [item.id as number, item]));
    return refs.map((ref) => found.get(Number(ref.id))!);
  };
  const childrenOf: ChildrenOf = async (type, id, relationship) => {
    const [creation] = await db.batchGet(table, [key({ type, id: Number(id) })]);
    const rels = creation?.rels as Record<string, Ref | Ref[]> | undefined;
    if (relationship !== 'racked_tubes') return (await read(([] as Ref[]).concat(rels?.[relationship] ?? []))).map((item) => item.uuid as string);
    const racks = await read(([] as Ref[]).concat(rels?.children ?? []));
    const tubes = racks.flatMap((rack) => (rack.attrs as { racked: { tube: number }[] }).racked.map(({ tube }) => ({ type: 'tubes', id: tube })));
    return (await read(tubes)).map((item) => item.uuid as string);
  };
  return { childrenOf, close: () => doc.destroy() };
}
