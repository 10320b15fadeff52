import { describe, expect, it } from 'vitest';
import { linkedTo, linkOf, type StoredRecord } from '#lib/store/records.ts';

const tube = (rels: StoredRecord['rels']): StoredRecord => ({
  family: 'labware',
  id: 7,
  type: 'tubes',
  uuid: '',
  createdAt: '',
  updatedAt: '',
  version: 1,
  attrs: {},
  rels,
});

describe('a record read through its links (lib/store/records.ts)', () => {
  it('linkOf: the record a to-one relationship names, or null when it names none or is not stored', () => {
    expect(linkOf(tube({ purpose: { type: 'tube_purposes', id: 3 } }), 'purpose')).toEqual({ type: 'tube_purposes', id: 3 });
    expect(linkOf(tube({ purpose: null }), 'purpose')).toBeNull();
    expect(linkOf(tube({}), 'purpose')).toBeNull();
  });

  it('linkOf: a list is a to-many relationship, never read as one record', () => {
    expect(() => linkOf(tube({ parents: [{ type: 'plates', id: 1 }] }), 'parents')).toThrow('tubes.parents holds a list');
  });

  it('linkedTo: a required link, named when a stored record lacks it', () => {
    expect(linkedTo(tube({ purpose: { type: 'tube_purposes', id: 3 } }), 'purpose').id).toBe(3);
    expect(() => linkedTo(tube({ purpose: null }), 'purpose')).toThrow('tubes 7 names no purpose');
  });
});
