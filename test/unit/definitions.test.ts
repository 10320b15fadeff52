import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from '#lib/zod.ts';
import { attr, lazySchema } from '#lib/jsonapi/resource.ts';
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

  it('build every attribute schema on first use, not at load (a function validates only its own types: docs/decisions.md, "Cold starts")', () => {
    for (const type of types) {
      for (const [name, attribute] of Object.entries(registry.require(type).attributes)) {
        expect(typeof Object.getOwnPropertyDescriptor(attribute, 'schema')?.get, `${type}.${name} is made with attr()`).toBe('function');
      }
    }
  });

  it('build no schema at module load: no zod schema assigned at the top of a module the functions load', () => {
    // A schema built at the top of a module is built by every function bundling it, at every cold start
    // (one in lib/resources/tube-rack-creations.ts cost the labware function ~0.01× of the stack floor).
    const topLevelSchema = /^(?:export )?(?:const|let) \w+(?:: [^=]+)? =\s*z\s*\./m;
    const modules = ['lib/resources', 'lib/operations', 'lib/jsonapi', 'lib/domain', 'lib/http', 'lib/store', 'lib/events'].flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join(dir, file)),
    );
    expect(modules.length).toBeGreaterThan(100);
    expect(modules.filter((file) => topLevelSchema.test(readFileSync(file, 'utf8')))).toEqual([]);
  });
});

describe('lazySchema and attr', () => {
  it('build the schema once, when it is first read', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds++;
      return z.string();
    });
    const attribute = attr('RW', schema, { required: true });
    expect(builds).toBe(0);
    expect(attribute.schema.safeParse('x').success).toBe(true);
    expect(attribute.schema).toBe(schema());
    expect(builds).toBe(1);
    expect(attribute).toMatchObject({ access: 'RW', required: true });
  });
});
