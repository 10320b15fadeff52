import * as z from '#lib/zod.ts';
import { QCABLE_STATES } from '#lib/domain/machines.ts';
import { attr, computed, toMany, toOne } from '#lib/jsonapi/resource.ts';
import { linkOf } from '#lib/store/records.ts';
import { qcablesOfLots } from '#lib/resources/qcables.ts';
import { referenceResource, text, uniqueIndex } from '#lib/resources/reference.ts';

/**
 * Lots of consumables (tag plates, QC plates) and their types: reference data, read-only through the
 * API and loaded by the admin command line (contract §5).
 */
export const lotTypes = referenceResource(
  'lot_types',
  {
    name: attr('R', text, { required: true }),
    // The reference takes this from the target purpose's default state (reference-behaviour §3.1); here
    // the lot type says it, since QC plates have no target purpose. Absent: qcables start `created`.
    qcable_initial_state: attr('R', () => z.enum(QCABLE_STATES)),
  },
  { indexes: { name: uniqueIndex('name') }, relationships: { target_purpose: toOne('plate_purposes', 'R') } },
);

export const lots = referenceResource(
  'lots',
  {
    lot_number: attr('R', text, { required: true }),
  },
  {
    indexes: { lot_number: uniqueIndex('lot_number') },
    relationships: {
      lot_type: toOne('lot_types', 'R', { required: true }),
      // Lots of tag plates name the tag layout template their plates carry; limber includes it by either name.
      template: toOne('tag_layout_templates', 'R'),
      tag_layout_template: computed('one', 'tag_layout_templates', (lot) => linkOf(lot, 'template')),
      qcables: { ...toMany('qcables', 'R'), resolve: qcablesOfLots },
    },
  },
);
