import { describe, expect, it } from 'vitest';
import { allowedMethods, parsePath } from '#lib/jsonapi/request.ts';
import { registry } from '#lib/resources/index.ts';
import { testCounters, countersRegistry } from '../support/counters-registry.ts';

describe('an action path', () => {
  it('is read as the action a type declares, never as an id', () => {
    expect(parsePath('/api/v2/test_counters/bulk_create', countersRegistry)).toEqual({ type: 'test_counters', action: 'bulk_create' });
    expect(parsePath('/api/v2/test_counters/tally/', countersRegistry)).toEqual({ type: 'test_counters', action: 'tally' });
  });

  it('is read as today when the type declares no action of that name', () => {
    expect(parsePath('/api/v2/test_counters/1', countersRegistry)).toEqual({ type: 'test_counters', id: '1' });
    expect(parsePath('/api/v2/test_counters/nonsense', countersRegistry)).toEqual({ type: 'test_counters', id: 'nonsense' });
    // The name of another type's action, and a path below an action name.
    expect(parsePath('/api/v2/samples/bulk_create', countersRegistry)).toEqual({ type: 'samples', id: 'bulk_create' });
    expect(parsePath('/api/v2/test_counters/bulk_create/text', countersRegistry)).toEqual({ type: 'test_counters', id: 'bulk_create', relationship: 'text' });
    // A name found only on the prototype of the definition's actions object.
    expect(parsePath('/api/v2/test_counters/constructor', countersRegistry)).toEqual({ type: 'test_counters', id: 'constructor' });
    expect(parsePath('/api/v2/test_counters/bulk_create', registry)).toEqual({ type: 'test_counters', id: 'bulk_create' });
  });

  it('on one record (`on: member`) is read below its id, never as a relationship; elsewhere as before', () => {
    expect(parsePath('/api/v2/plates/7/register_stock_for_plate', registry)).toEqual({ type: 'plates', id: '7', action: 'register_stock_for_plate' });
    expect(parsePath('/api/v2/plates/x/register_stock_for_plate/', registry)).toEqual({ type: 'plates', id: 'x', action: 'register_stock_for_plate' });
    // Not an action of the collection; not one of another type; not below a relationship path.
    expect(parsePath('/api/v2/plates/register_stock_for_plate', registry)).toEqual({ type: 'plates', id: 'register_stock_for_plate' });
    expect(parsePath('/api/v2/tubes/7/register_stock_for_plate', registry)).toEqual({ type: 'tubes', id: '7', relationship: 'register_stock_for_plate' });
    expect(parsePath('/api/v2/plates/7/relationships/register_stock_for_plate', registry)).toEqual({
      type: 'plates',
      id: '7',
      relationship: 'register_stock_for_plate',
      linkageOnly: true,
    });
    expect(parsePath('/api/v2/plates/7/wells', registry)).toEqual({ type: 'plates', id: '7', relationship: 'wells' });
    expect(allowedMethods(registry.require('plates'), { type: 'plates', id: '7', action: 'register_stock_for_plate' })).toEqual(['POST']);
  });

  it('on one record never shares its name with a relationship of its type (the action would hide it)', () => {
    const clashes = registry.types.flatMap((type) => {
      const def = registry.require(type);
      return Object.entries(def.actions ?? {}).flatMap(([name, action]) => (action.on === 'member' && name in def.relationships ? [`${type}/${name}`] : []));
    });
    expect(clashes).toEqual([]);
  });

  it("allows only the action's method (anything else is a 405 with this Allow)", () => {
    expect(allowedMethods(testCounters, { type: 'test_counters', action: 'bulk_create' })).toEqual(['POST']);
    expect(allowedMethods(testCounters, { type: 'test_counters' })).toEqual(['GET', 'POST']);
  });
});
