import { describe, expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import { countDeltas } from '#lib/store/counts.ts';
import type { StoredRecord } from '#lib/store/records.ts';

const record = (type: string, id: number, attrs: Record<string, unknown> = {}): StoredRecord => ({
  family: registry.familyOf(type),
  id,
  type,
  uuid: '',
  createdAt: '',
  updatedAt: '',
  version: 1,
  attrs,
  rels: {},
});

const asObject = (deltas: Map<string, Map<string, number>>) => Object.fromEntries([...deltas].map(([name, keys]) => [name, Object.fromEntries(keys)]));

describe('count deltas (lib/store/counts.ts)', () => {
  it('go to the counter of the family, or of the family a type is counted with', () => {
    expect(registry.counterOf('samples')).toBe('samples');
    expect(registry.counterOf('sample_metadata')).toBe('samples');
    expect(registry.counterOf('labware')).toBe('labware');
  });

  it("put a sample's create and its metadata record's into one counter, so the write adds to one count item", () => {
    const deltas = countDeltas(registry, { created: [record('samples', 1), record('sample_metadata', 1)], updated: [], deleted: [] });
    expect(asObject(deltas)).toEqual({ samples: { samples: 1, sample_metadata: 1 } });
  });

  it('net out: a metadata record replacing another adds nothing; other families keep their own counters', () => {
    const replaced = countDeltas(registry, { created: [record('sample_metadata', 2)], updated: [], deleted: [record('sample_metadata', 1)] });
    expect(asObject(replaced)).toEqual({});
    const both = countDeltas(registry, { created: [record('sample_metadata', 3), record('studies', 4)], updated: [], deleted: [] });
    expect(asObject(both)).toEqual({ samples: { sample_metadata: 1 }, studies: { studies: 1 } });
  });
});
