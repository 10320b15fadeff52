import * as z from '#lib/zod.ts';
import { QCABLE_STATES } from '#lib/domain/machines.ts';
import { qcableStateChange } from '#lib/domain/qcables.ts';
import { refOf } from '#lib/jsonapi/context.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import { attr, defineResource, timestamps, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { qcableOfLabware } from '#lib/resources/qcables.ts';

/**
 * State changes (extension, contract §2): a request to move the qcable of a labware to a target state.
 * The qcable's update is conditional on the version read, so of two concurrent changes from one state
 * only one commits; the other is re-run from fresh reads and then refused by the machine (422).
 */
export const stateChanges = defineResource({
  type: 'state_changes',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    previous_state: attr('R', () => z.enum(QCABLE_STATES)),
    target_state: attr('WO', () => z.string().check(z.minLength(1)), { required: true }),
    reason: attr('WO', () => z.string()),
    target_uuid: uuidOfAttribute('target'),
    user_uuid: uuidOfAttribute('user'),
    ...timestamps,
  },
  relationships: {
    target: toOne('labware', 'WO', { required: true }),
    user: toOne('users', 'WO'),
    qcable: toOne('qcables', 'R'),
  },
  filters: { uuid: uuidFilter },

  create: async (ctx, input) => {
    const target = input.relationships.target!;
    const user = input.relationships.user;
    const qcable = await qcableOfLabware(ctx, target);
    if (!qcable) throw errors.invalidValue('/data/relationships/target', `target - ${target.type} ${target.id} has no qcable whose state could change`);
    const step = qcableStateChange(qcable.attrs.state, input.attributes.target_state!);
    if (!step.ok) throw errors.invalidTransition('/data/attributes/target_state', `target_state - ${step.detail}`);
    ctx.uow.update(qcable, { attrs: { state: step.state } });
    return ctx.uow.create('state_changes', {
      attrs: { previous_state: qcable.attrs.state, target_state: step.state, reason: input.attributes.reason ?? null },
      rels: { target: refOf(target), user: user ? refOf(user) : null, qcable: refOf(qcable) },
    });
  },
});
