import { z } from 'zod';
import { QCABLE_STATES } from '#lib/domain/machines.ts';
import { attr, toMany, toOne } from '#lib/jsonapi/resource.ts';
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
    qcable_initial_state: attr('R', z.enum(QCABLE_STATES)),
  },
  { indexes: { name: uniqueIndex('name') }, relationships: { target_purpose: toOne('plate_purposes', 'R') } },
);

export const lots = referenceResource(
  'lots',
  {
    lot_number: attr('R', text, { required: true }),
    // Tag layout templates are not served yet: the lot keeps its template's name (never rendered) to be
    // linked when they are; until then `template` and `tag_layout_template` (the relationship names
    // limber includes) answer null.
    template_name: attr('W', text),
  },
  {
    indexes: { lot_number: uniqueIndex('lot_number') },
    relationships: {
      lot_type: toOne('lot_types', 'R', { required: true }),
      template: toOne('tag_layout_templates', 'R'),
      tag_layout_template: toOne('tag_layout_templates', 'R'),
      qcables: { ...toMany('qcables', 'R'), resolve: qcablesOfLots },
    },
  },
);
