import * as z from '#lib/zod.ts';
import { attr, defineResource, toMany, toOne, uuidAttribute, uuidFilter, type RelationshipDef } from '#lib/jsonapi/resource.ts';

/**
 * Types Limber's pages name in their include strings and field lists (contract §6) that this service
 * records nothing of yet: primer panels, pre-capture pools and tag records.
 * They are served so that those reads answer (a listing is empty, the relationships that lead to them
 * render empty data), never a 400; nothing creates them. docs/decisions.md, "What Limber's pages read".
 * (Submission pools are served since: lib/resources/submission-pools.ts.)
 */

/** A relationship to records this service does not record (yet): always empty (null, or no records). */
export const unrecorded = (kind: 'one' | 'many', type: string): RelationshipDef => ({
  ...(kind === 'one' ? toOne(type, 'R') : toMany(type, 'R')),
  resolve: async (_ctx, records) => new Map(records.map((r) => [r, kind === 'one' ? null : []])),
});

export const primerPanels = defineResource({
  type: 'primer_panels',
  methods: ['list', 'read'],
  attributes: { name: attr('R', () => z.string()), programs: attr('R', () => z.record(z.string(), z.unknown())) },
  relationships: {},
  filters: {},
});

export const preCapturePools = defineResource({
  type: 'pre_capture_pools',
  methods: ['list', 'read'],
  attributes: { ...uuidAttribute },
  relationships: {},
  filters: { uuid: uuidFilter },
});

export const tags = defineResource({
  type: 'tags',
  methods: ['list', 'read'],
  attributes: { oligo: attr('R', () => z.string()), map_id: attr('R', () => z.number().check(z.int())) },
  relationships: { tag_group: toOne('tag_groups', 'R') },
  filters: {},
});
