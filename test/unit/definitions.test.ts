import { describe, expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';

describe('resource definitions', () => {
  const types = [...registry.types];

  it('give every attribute a schema, read-only ones included (it validates writes and describes responses)', () => {
    expect(types.length).toBeGreaterThan(20);
    for (const type of types) {
      for (const [name, attribute] of Object.entries(registry.require(type).attributes)) {
        expect(typeof attribute.schema?.safeParse, `${type}.${name}`).toBe('function');
      }
    }
  });
});
