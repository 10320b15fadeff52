import * as z from '#lib/zod.ts';
import { attr, defineResource, toMany, uuidAttribute } from '#lib/jsonapi/resource.ts';

/**
 * Types whose records the reference's own pipelines make and this service has no writer for (its clients
 * only read them): served read-only with the attributes, relationships and filters of the reference's
 * resource files, so a client's reads and includes answer as the reference's do for a lab without such
 * records — an empty collection, a 404 by id. Why each has no writer here: docs/decisions.md, "Types
 * without a writer".
 */

/** Lanes (the reference's Lane: a flowcell's receptacle, made when a sequencing batch is released from its web pipelines). */
export const lanes = defineResource({
  type: 'lanes',
  methods: ['list', 'read'],
  attributes: { ...uuidAttribute, name: attr('R', () => z.string()) },
  relationships: { samples: toMany('samples', 'R'), studies: toMany('studies', 'R'), projects: toMany('projects', 'R') },
  filters: {},
});

/** Fragments (the reference's Fragment: legacy gel fragments, no longer created there either). */
export const fragments = defineResource({
  type: 'fragments',
  methods: ['list', 'read'],
  attributes: { ...uuidAttribute },
  relationships: {},
  filters: {},
});
