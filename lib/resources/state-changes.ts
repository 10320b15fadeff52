import * as z from '#lib/zod.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, timestamps, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { createStateChange } from '#lib/operations/state-change.ts';

/**
 * State changes (contract §2, §6; reference-behaviour.md §7.3): a request to move a labware to a target
 * state. A labware with a qcable, while of its qcable's purpose (a tag plate), moves its qcable by the qcable
 * machine; any other moves the transfer requests into its targeted receptacles, and the requests their
 * material is bound for, by the state changer of its purpose (lib/domain/state-changers.ts). The operation
 * is lib/operations/state-change.ts: the labware, the request books of the requests moved (a plate's first
 * pass is one book, whatever its wells) and the state change are written together, as one write.
 *
 * The state change is a record of its own; its labware lists it (`stateChanges` in the aggregate), so the
 * `state_changes` relationship of labware costs no read and the change no index item (the budget:
 * stateChangeItems in lib/domain/budgets.ts).
 */
const FAILURE_STATES: readonly string[] = ['failed', 'cancelled'];

export const stateChanges = defineResource({
  type: 'state_changes',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    previous_state: attr('R', () => z.string()),
    target_state: attr('WO', () => z.string().check(z.minLength(1)), { required: true }),
    reason: attr('WO', () => z.string()),
    contents: attr('WO', () => z.array(z.string())),
    // A boolean; also the strings Limber's forms send as it (a check box's "1"/"0", a check_box_tag's "true"), which the reference casts.
    customer_accepts_responsibility: attr('WO', () => z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])])),
    target_uuid: uuidOfAttribute('target'),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    target: toOne('labware', 'WO', { required: true, linkedAs: 'labware' }),
    user: toOne('users', 'WO', { required: true }),
    qcable: toOne('qcables', 'R'),
  },
  filters: { uuid: uuidFilter },

  // The reference requires a reason for a failure (StateChange: `validates :reason, if: :targetted_for_failure?`).
  validate: (_ctx, input) =>
    FAILURE_STATES.includes(input.attributes.target_state ?? '') && !input.attributes.reason?.trim()
      ? [errors.missingRequired('/data/attributes/reason', 'reason')]
      : [],

  create: (ctx, input) => createStateChange(ctx, input),
});
