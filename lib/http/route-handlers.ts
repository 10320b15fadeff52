import { createHandler, type LambdaHandler, type PagesOf } from '#lib/http/handler.ts';
import { labwarePages } from '#lib/http/middleware/labware-page.ts';
import { serviceRootPages } from '#lib/http/middleware/service-root.ts';
import { FALLBACK } from '#lib/routes.ts';

/**
 * The pages each route's function serves besides its type (what its entry file in functions/ passes to
 * createHandler; test/unit/routes.test.ts holds the two together), for the processes that serve every
 * route at once: the local server and the tests. Functions import only their own.
 */
export const routePages: Readonly<Record<string, PagesOf>> = { [FALLBACK]: serviceRootPages, labware: labwarePages };

/** The handler of the route named `name`, as its function on AWS has it. */
export const handlerForRoute = (name: string): LambdaHandler => createHandler(name, routePages[name]);
