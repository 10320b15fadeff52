import * as z from '#lib/zod.ts';
import { aggregateIndex, attr, defineResource, lazySchema, timestamps, toOne } from '#lib/jsonapi/resource.ts';
import { LABWARE_TYPES } from '#lib/resources/labware.ts';

/**
 * Comments (contract §7.5, the reference's Comment): a title and a description about a labware or a
 * request (`commentable`, polymorphic), by a user. Written once; each labware and request lists its own
 * (`comments`, one Query per labware or request book). The commentable is always linked in what is
 * rendered, so the comment's event names it.
 */
const text = lazySchema(() => z.string().check(z.refine((value) => value.trim() !== '', 'must not be blank')));

const COMMENTABLE_TYPES = [...LABWARE_TYPES, 'requests'] as const;

export const comments = defineResource({
  type: 'comments',
  methods: ['list', 'read', 'create'],
  attributes: {
    // The reference's resource declares both required (its model does not check them).
    title: attr('WO', text, { required: true }),
    description: attr('WO', text, { required: true }),
    ...timestamps,
  },
  relationships: {
    user: toOne('users', 'WO'),
    commentable: toOne(COMMENTABLE_TYPES, 'WO', { required: true, alwaysLinked: true }),
  },
  indexes: { commentable: aggregateIndex('commentable') },
  // The reference's comments have no uuid (Comment does not include Uuidable): found by id, or through what they are about.
  filters: {},
});
