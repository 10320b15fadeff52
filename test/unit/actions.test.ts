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

  it("allows only the action's method (anything else is a 405 with this Allow)", () => {
    expect(allowedMethods(testCounters, { type: 'test_counters', action: 'bulk_create' })).toEqual(['POST']);
    expect(allowedMethods(testCounters, { type: 'test_counters' })).toEqual(['GET', 'POST']);
  });
});
