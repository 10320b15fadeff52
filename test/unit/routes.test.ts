import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { routePages } from '#lib/http/route-handlers.ts';
import { allowedMethods } from '#lib/jsonapi/request.ts';
import { registry } from '#lib/resources/index.ts';
import { entryFile, FALLBACK, LABWARE_PAGE, routeForPath, routes } from '#lib/routes.ts';

// The route table is data only and feeds the CDK stack, the local server and the tests: it must match
// the registry and the function entries exactly, so none of them can drift.
it('has one route per type, serving exactly that type, plus the fallback serving none', () => {
  expect(routes.map((r) => r.name).sort()).toEqual([...registry.types, FALLBACK].sort());
  for (const route of routes) expect(route.types, route.name).toEqual(route.name === FALLBACK ? [] : [route.name]);
});

it("lists each route's methods as its resource declares them", () => {
  const order = ['GET', 'POST', 'PATCH'];
  for (const type of registry.types) {
    const def = registry.require(type);
    // Every method some path under /api/v2/<type> answers: the collection, an item, a relationship, an action.
    const targets = [{ type }, { type, id: '1' }, { type, id: '1', relationship: 'x' }, ...Object.keys(def.actions ?? {}).map((action) => ({ type, action }))];
    const answered = new Set(targets.flatMap((target) => allowedMethods(def, target)));
    expect(routes.find((r) => r.name === type)?.methods, type).toEqual(order.filter((m) => answered.has(m)));
  }
  expect(routes.find((r) => r.name === FALLBACK)?.methods).toEqual([]);
});

it("lists each route's actions as its resource declares them, so the CDK app can make their routes", () => {
  for (const type of registry.types) {
    const actions = Object.entries(registry.require(type).actions ?? {}).map(([name, action]) => ({ name, method: action.method }));
    expect(routes.find((r) => r.name === type)?.actions, type).toEqual(actions);
  }
  expect(routes.find((r) => r.name === FALLBACK)?.actions).toEqual([]);
});

it('has an entry file for every route, wiring exactly that route and its pages, and no other entry files', () => {
  for (const route of routes) {
    const file = entryFile(route);
    expect(existsSync(file), file).toBe(true);
    // The fallback's function reads the OpenAPI document from beside its bundle where the tests generate it (route-handlers.ts).
    const pages = route.name === FALLBACK ? 'serviceRootPages' : routePages[route.name]?.name;
    expect(readFileSync(file, 'utf8')).toContain(`createHandler('${route.name}'${pages ? `, ${pages}` : ''})`);
  }
  // Beside the route entries only the events folder (the stream publisher and the inbound queue consumer).
  expect(readdirSync('functions').sort()).toEqual([...routes.map((r) => entryFile(r).replace('functions/', '')), 'events'].sort());
});

it('imports nothing, so reading it loads neither the handler, the store nor the registry', () => {
  expect(readFileSync('lib/routes.ts', 'utf8')).not.toMatch(/^\s*import\b/m);
});

it('routes a path to its type, anything else to the fallback', () => {
  expect(routeForPath('/api/v2/samples/1/studies').name).toBe('samples');
  expect(routeForPath('/api/v2/tube_racks').name).toBe('tube_racks');
  expect(routeForPath('/api/v2/nonsense').name).toBe(FALLBACK);
  expect(routeForPath('/elsewhere').name).toBe(FALLBACK);
});

it('routes a page for people to the function whose reads draw it, and nothing else outside /api/v2', () => {
  expect(routes.filter((r) => r.pages.length > 0).map((r) => [r.name, r.pages])).toEqual([['labware', [LABWARE_PAGE]]]);
  expect(routeForPath('/labware/DN1S').name).toBe('labware');
  expect(routeForPath('/labware/DN1S/more').name).toBe(FALLBACK);
  expect(routeForPath('/labware/').name).toBe(FALLBACK);
  expect(routeForPath('/plates/DN1S').name).toBe(FALLBACK);
});
