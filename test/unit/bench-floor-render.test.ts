import { expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import { relationshipNames } from '../bench/floor/render.ts';

// The floor renders by hand what the service renders from its definitions; a relationship the service
// gains must be rendered by the floor too, or the bench compares answers of different sizes.
it.each(Object.entries(relationshipNames))("the bench floor renders %s's relationships as the service declares them", (type, names) => {
  expect(names).toEqual(Object.keys(registry.get(type)?.relationships ?? {}));
});
