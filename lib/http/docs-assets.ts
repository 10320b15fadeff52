/**
 * The swagger-ui-dist files the docs page serves (lib/http/middleware/docs-page.ts) and the folder they
 * sit in beside the fallback function's bundle on Lambda (infra/bundling.ts copies them). Data only, so
 * the CDK app reads it without loading the handler.
 */
export const SWAGGER_UI_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'] as const;
export const SWAGGER_UI_DIR = 'swagger-ui';
export const SWAGGER_UI_PACKAGE = 'swagger-ui-dist';
