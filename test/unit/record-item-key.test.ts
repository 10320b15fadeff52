import fc from 'fast-check';
import { expect, it } from 'vitest';
import { store } from '#lib/store/entities.ts';
import { recordItemKey } from '#lib/store/records.ts';

it('reads by key build the same record key ElectroDB writes', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('samples', 'labware', 'purposes', 'custom_metadatum_collections'),
      fc.integer({ min: 1, max: 999_999_999_999 }),
      (family, id) => {
        expect(recordItemKey(family, id)).toEqual(store().entities.record.get({ family, id }).params().Key);
      },
    ),
  );
});
