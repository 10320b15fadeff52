import { createHandler, type LambdaHandler, type PagesOf } from '#lib/http/handler.ts';
import { labwarePages } from '#lib/http/middleware/labware-page.ts';
import { generatedRootPages } from '#lib/jsonapi/openapi-template.ts';
import { FALLBACK } from '#lib/routes.ts';

/**
 * The pages each route's function serves besides its type (what its entry file in functions/ passes to
 * createHandler; test/unit/routes.test.ts holds the two together), for the processes that serve every
 * route at once: the local server and the tests. Functions import only their own. The fallback's are its
 * function's but for where the OpenAPI document comes from: generated in-process here, read from beside the
 * bundle there (lib/http/middleware/service-root.ts).
 */
export const routePages: Readonly<Record<string, PagesOf>> = { [FALLBACK]: generatedRootPages, labware: labwarePages };

/** The handler of the route named `name`, as its function on AWS has it. */
export const handlerForRoute = (name: string): LambdaHandler => createHandler(name, routePages[name]);
