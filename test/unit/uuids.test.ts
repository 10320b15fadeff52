import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import { decodeUuid, encodeUuid, familyCode, MAX_ENCODED_ID, referenceUuid } from '#lib/store/uuids.ts';

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
