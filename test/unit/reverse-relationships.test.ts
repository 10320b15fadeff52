import { describe, expect, it } from 'vitest';
import { Registry } from '#lib/jsonapi/registry.ts';
import { aggregateIndex, reverse } from '#lib/jsonapi/resource.ts';
import { registry } from '#lib/resources/index.ts';
import { wells } from '#lib/resources/receptacles.ts';
import type { StoredRecord } from '#lib/store/records.ts';
import { notesRegistry, notesRegistryFor, testNotes } from '../support/notes-registry.ts';

const note = (well: StoredRecord['rels'][string]): StoredRecord => ({
  family: 'test_notes',
  id: 7,
  type: 'test_notes',
  uuid: '',
  createdAt: '',
  updatedAt: '',
  version: 1,
  attrs: { text: 'x' },
  rels: { well },
});

describe('aggregates', () => {
  it('are the item a record is stored in: a well, a tube receptacle and an aliquot belong to their labware, anything else to itself', () => {
    expect(registry.aggregateKey({ type: 'wells', id: 17_096 })).toBe('labware:17');
    expect(registry.aggregateKey({ type: 'receptacles', id: 18_001 })).toBe('labware:18');
    expect(registry.aggregateKey({ type: 'aliquots', id: 17_000_003 })).toBe('labware:17');
    expect(registry.aggregateKey({ type: 'plates', id: 17 })).toBe('labware:17');
    expect(registry.aggregateKey({ type: 'samples', id: 17 })).toBe('samples:17');
  });

  it("index a pointing record under its target's aggregate, with an id-ordered entry, and nothing when it points nowhere", () => {
    expect(notesRegistry.termsOf(note({ type: 'wells', id: 17_005 }))).toEqual([
      { scope: 'test_notes.well', value: 'labware:17', ref: '000000000007#test_notes' },
    ]);
    expect(notesRegistry.termsOf(note(null))).toEqual([]);
    expect(notesRegistry.reverseScope({ type: 'test_notes', relationship: 'well' })).toBe('test_notes.well');
  });
});

describe('a reverse relationship is checked at start-up', () => {
  it('needs the pointing type to index the relationship by aggregate', () => {
    expect(() => notesRegistryFor({ ...testNotes, indexes: {} })).toThrow(
      "wells.test_notes reverses test_notes.well, but test_notes declares no aggregateIndex('well')",
    );
  });

  it('needs a pointing relationship that can point at the reversing type', () => {
    expect(() => notesRegistryFor({ ...testNotes, relationships: { well: { ...testNotes.relationships.well!, types: ['samples'] } } })).toThrow(
      'test_notes has no relationship well to wells',
    );
  });

  it('refuses an index that is eventually consistent or unique', () => {
    expect(() => notesRegistryFor({ ...testNotes, indexes: { well: { ...aggregateIndex('well'), slot: 1 } } })).toThrow('neither unique nor in a lookup slot');
    expect(() => notesRegistryFor({ ...testNotes, indexes: { well: { ...aggregateIndex('well'), unique: 'retry' } } })).toThrow(
      'neither unique nor in a lookup slot',
    );
  });

  it('needs the pointing type', () => {
    const others = registry.types.filter((type) => type !== 'wells').map((type) => registry.require(type));
    expect(() => new Registry([...others, { ...wells, relationships: { notes: reverse('test_notes', 'well') } }])).toThrow('there is no type test_notes');
  });
});
