import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import { DECODED_UUIDS_KEPT, decodedUuidsKept, decodeUuid, encodeUuid, familyCode, MAX_ENCODED_ID, referenceUuid } from '#lib/store/uuids.ts';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuids that name their record', () => {
  it('are v4 uuids ending in 0000 that decode to their family code and id', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('samples', 'labware', 'purposes', 'custom_metadatum_collections'),
        fc.integer({ min: 1, max: MAX_ENCODED_ID }),
        (family, id) => {
          const uuid = encodeUuid(family, id);
          expect(uuid).toMatch(V4);
          expect(uuid.endsWith('0000')).toBe(true);
          expect(decodeUuid(uuid)).toEqual({ code: familyCode(family), id });
          expect(decodeUuid(uuid.toUpperCase())).toEqual({ code: familyCode(family), id });
        },
      ),
    );
  });

  it('look random: two uuids of one record differ, and consecutive ids share no visible pattern', () => {
    expect(encodeUuid('samples', 1)).not.toBe(encodeUuid('samples', 1));
    const prefixes = new Set(Array.from({ length: 50 }, (_, i) => encodeUuid('samples', i + 1).slice(0, 8)));
    expect(prefixes.size).toBe(50);
  });

  it('refuse what they cannot encode, and decode nothing from other text', () => {
    expect(() => encodeUuid('samples', 0)).toThrow(RangeError);
    expect(() => encodeUuid('samples', MAX_ENCODED_ID + 1)).toThrow(RangeError);
    for (const text of ['', 'nope', '00000000-0000-1000-8000-000000000000', '00000000-0000-4000-c000-000000000000', '00000000-0000-4000-8000-000000000001']) {
      expect(decodeUuid(text)).toBeUndefined();
    }
  });

  it('are the uuids earlier releases made: stored uuids keep naming their records', () => {
    // Made by the BigInt implementation before the mask was split into halves (and by every release since).
    const made = [
      ['00000000-0000-4f7b-8115-09f5f2cf0000', 'samples', 1, '000000000000'],
      ['a1b2c3d4-e5f6-4bde-a81e-a3bd933e0000', 'samples', 12345, 'a1b2c3d4e5f6'],
      ['ffffffff-ffff-4552-b587-eac1910e0000', 'labware', MAX_ENCODED_ID, 'ffffffffffff'],
      ['01234567-89ab-4d40-b7ad-8019e0180000', 'custom_metadatum_collections', 4097, '0123456789ab'],
    ] as const;
    for (const [uuid, family, id, random] of made) {
      expect(encodeUuid(family, id, random)).toBe(uuid);
      expect(decodeUuid(uuid)).toEqual({ code: familyCode(family), id });
    }
    expect(referenceUuid('transfer_templates', 15, 'transfer_templates', 'Custom pooling')).toBe('98315393-af45-4bab-96db-6765d0a20000');
    expect([familyCode('samples'), familyCode('labware'), familyCode('custom_metadatum_collections')]).toEqual([9402, 31427, 30058]);
  });

  it('decode the same text to the same answer again, keeping a bounded number of answers', () => {
    const uuid = encodeUuid('samples', 77);
    const first = decodeUuid(uuid);
    expect(decodeUuid(uuid)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(decodeUuid('00000000-0000-4000-8000-000000000001')).toBeUndefined();
    expect(decodeUuid('00000000-0000-4000-8000-000000000001')).toBeUndefined();
    for (let id = 1; id <= DECODED_UUIDS_KEPT + 50; id++) expect(decodeUuid(encodeUuid('labware', id))?.id).toBe(id);
    expect(decodedUuidsKept()).toBeLessThanOrEqual(DECODED_UUIDS_KEPT);
    expect(decodeUuid(uuid)).toEqual({ code: familyCode('samples'), id: 77 });
    // Text of any other length is never kept.
    const before = decodedUuidsKept();
    expect(decodeUuid(`${uuid}x`.repeat(100))).toBeUndefined();
    expect(decodedUuidsKept()).toBe(before);
  });

  it('draw different random digits for every new uuid, across refills of the pool', () => {
    const prefixes = new Set(Array.from({ length: 5_000 }, (_, i) => encodeUuid('samples', i + 1).slice(0, 13)));
    expect(prefixes.size).toBe(5_000);
  });

  it('every id family of the registry has a code of its own (the registry refuses a clash)', () => {
    const families = new Set(registry.types.map((t) => registry.familyOf(t)));
    for (const family of families) expect(registry.familyOfCode(familyCode(family))).toBe(family);
  });
});

it('gives a reference record the same uuid for the same type, key and id, naming that id', () => {
  const uuid = referenceUuid('transfer_templates', 15, 'transfer_templates', 'Custom pooling');
  expect(referenceUuid('transfer_templates', 15, 'transfer_templates', 'Custom pooling')).toBe(uuid);
  expect(decodeUuid(uuid)).toEqual({ code: familyCode('transfer_templates'), id: 15 });
  expect(referenceUuid('transfer_templates', 15, 'transfer_templates', 'Flip Plate')).not.toBe(uuid);
});
