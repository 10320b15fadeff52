import { describe, expect, it } from 'vitest';
import { allowedMethods, parsePath } from '#lib/jsonapi/engine.ts';
import { registry } from '#lib/resources/index.ts';
import { testNotes, testRegistry } from '../support/test-resources.ts';

describe('an action path', () => {
  it('is read as the action a type declares, never as an id', () => {
    expect(parsePath('/api/v2/test_notes/bulk_create', testRegistry)).toEqual({ type: 'test_notes', action: 'bulk_create' });
    expect(parsePath('/api/v2/test_notes/tally/', testRegistry)).toEqual({ type: 'test_notes', action: 'tally' });
  });

  it('is read as today when the type declares no action of that name', () => {
    expect(parsePath('/api/v2/test_notes/1', testRegistry)).toEqual({ type: 'test_notes', id: '1' });
    expect(parsePath('/api/v2/test_notes/nonsense', testRegistry)).toEqual({ type: 'test_notes', id: 'nonsense' });
    // The name of another type's action, and a path below an action name.
    expect(parsePath('/api/v2/samples/bulk_create', testRegistry)).toEqual({ type: 'samples', id: 'bulk_create' });
    expect(parsePath('/api/v2/test_notes/bulk_create/text', testRegistry)).toEqual({ type: 'test_notes', id: 'bulk_create', relationship: 'text' });
    // A name found only on the prototype of the definition's actions object.
    expect(parsePath('/api/v2/test_notes/constructor', testRegistry)).toEqual({ type: 'test_notes', id: 'constructor' });
    expect(parsePath('/api/v2/test_notes/bulk_create', registry)).toEqual({ type: 'test_notes', id: 'bulk_create' });
  });

  it("allows only the action's method (anything else is a 405 with this Allow)", () => {
    expect(allowedMethods(testNotes, { type: 'test_notes', action: 'bulk_create' })).toEqual(['POST']);
    expect(allowedMethods(testNotes, { type: 'test_notes' })).toEqual(['GET', 'POST']);
  });
});
