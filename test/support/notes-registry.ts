import { z } from 'zod';
import { Registry } from '#lib/jsonapi/registry.ts';
import { aggregateIndex, attr, reverse, timestamps, toOne, type ResourceDef } from '#lib/jsonapi/resource.ts';
import { registry } from '#lib/resources/index.ts';
import { wells } from '#lib/resources/receptacles.ts';

/**
 * Test-only definitions that exercise reverse relationships before the types that need them exist: a
 * note points at a well (as a request points at its source well), and wells read their notes back.
 */
export const testNotes: ResourceDef = {
  type: 'test_notes',
  methods: ['read', 'create', 'update'],
  attributes: { text: attr('RW', () => z.string().min(1), { required: true }), ...timestamps },
  relationships: { well: toOne('wells', 'RW', { required: true }) },
  indexes: { well: aggregateIndex('well') },
  filters: {},
};

/** The service's definitions, with `notes` and with wells that declare `test_notes: reverse('test_notes', 'well', options)`. */
export const notesRegistryFor = (notes: ResourceDef, options: { max?: number } = {}): Registry =>
  new Registry([
    ...registry.types.filter((type) => type !== 'wells').map((type) => registry.require(type)),
    { ...wells, relationships: { ...wells.relationships, test_notes: reverse('test_notes', 'well', options) } },
    notes,
  ]);

export const notesRegistry = notesRegistryFor(testNotes);
