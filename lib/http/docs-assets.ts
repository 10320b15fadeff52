/**
 * The swagger-ui-dist files the docs page serves (lib/http/middleware/docs-page.ts) and the folder they
 * sit in beside the fallback function's bundle on Lambda (infra/bundling.ts copies them). Data only, so
 * the CDK app reads it without loading the handler.
 */
export const SWAGGER_UI_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'] as const;
export const SWAGGER_UI_DIR = 'swagger-ui';
export const SWAGGER_UI_PACKAGE = 'swagger-ui-dist';

/**
 * The OpenAPI document beside the fallback function's bundle: generated at bundling
 * (lib/jsonapi/openapi-template.ts, run by infra/bundling.ts) for this stand-in server URL, which the function
 * replaces by each request's own (lib/http/middleware/service-root.ts). Generating it at load instead put the
 * generator, its examples and zod's JSON Schema code in the bundle: ~0.13× the stack floor's load
 * (docs/decisions.md, "Cold starts").
 */
export const OPENAPI_TEMPLATE_FILE = 'openapi.json';
export const OPENAPI_TEMPLATE_SERVER = 'https://server-url.invalid';
export const OPENAPI_TEMPLATE_SCRIPT = 'lib/jsonapi/openapi-template.ts';
