import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { registry } from '#lib/resources/index.ts';
import { entryFile, FALLBACK, routeForPath, routes } from '#lib/routes.ts';

// The route table feeds the CDK stack, the local server and the tests: it must match the registry and
// the function entries exactly, so none of them can drift.
it('has one route per type plus the fallback', () => {
  expect(routes.map((r) => r.name).sort()).toEqual([...registry.types, FALLBACK].sort());
});

it('has an entry file for every route, wiring exactly that route, and no other entry files', () => {
  for (const route of routes) {
    const file = entryFile(route);
    expect(existsSync(file), file).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain(`handlerFor('${route.name}')`);
  }
  expect(readdirSync('functions').sort()).toEqual(routes.map((r) => entryFile(r).replace('functions/', '')).sort());
});

it('derives each route\'s methods from its resource', () => {
  expect(routes.find((r) => r.name === 'samples')?.methods).toEqual(['GET', 'POST', 'PATCH']);
  expect(routes.find((r) => r.name === 'barcode_printers')?.methods).toEqual(['GET']);
  expect(routes.find((r) => r.name === 'plates')?.methods).toEqual(['GET', 'POST']);
});

it('routes a path to its type, anything else to the fallback', () => {
  expect(routeForPath('/api/v2/samples/1/studies').name).toBe('samples');
  expect(routeForPath('/api/v2/tube_racks').name).toBe('tube_racks');
  expect(routeForPath('/api/v2/nonsense').name).toBe(FALLBACK);
  expect(routeForPath('/elsewhere').name).toBe(FALLBACK);
});
