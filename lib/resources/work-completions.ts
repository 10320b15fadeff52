import * as z from '#lib/zod.ts';
import { attr, defineResource, timestamps, toMany, toOne, uuidAttribute, uuidFilter, uuidOfAttribute } from '#lib/jsonapi/resource.ts';
import { createWorkCompletion } from '#lib/operations/work-completion.ts';

/**
 * Work completions (contract §6, reference-behaviour.md §7.4): the lab says the work of some submissions is
 * done on a labware ("Charge and pass" in Limber). The requests that carry it pass and are linked to the
 * receptacles it ended in (lib/domain/work-completion.ts); the record and the request books of every
 * request it changes are one write, within workCompletionItems (lib/domain/budgets.ts). The operation
 * is lib/operations/work-completion.ts.
 */
export const workCompletions = defineResource({
  type: 'work_completions',
  methods: ['list', 'read', 'create'],
  attributes: {
    ...uuidAttribute,
    target_uuid: uuidOfAttribute('target'),
    user_uuid: uuidOfAttribute('user'),
    submission_uuids: attr('W', () => z.array(z.string()), { transient: true, acceptOnCreate: true }),
    ...timestamps,
  },
  relationships: {
    target: toOne('labware', 'WO', { required: true }),
    user: toOne('users', 'WO', { required: true }),
    submissions: toMany('submissions', 'WO'),
  },
  filters: { uuid: uuidFilter },

  create: (ctx, input) => createWorkCompletion(ctx, input),
});
