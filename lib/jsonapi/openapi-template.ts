import { writeFileSync } from 'node:fs';
import { OPENAPI_TEMPLATE_SERVER } from '#lib/http/docs-assets.ts';
import { rootPages } from '#lib/http/middleware/service-root.ts';
import { openApiDocument } from '#lib/jsonapi/openapi.ts';
import type { Registry } from '#lib/jsonapi/registry.ts';
import { examples } from '#lib/resources/examples.ts';
import { registry } from '#lib/resources/index.ts';

/**
 * The OpenAPI document's text for OPENAPI_TEMPLATE_SERVER, which names the server once: the service fills in
 * each request's server (`describedFor` in lib/http/middleware/service-root.ts). The fallback function reads
 * it from beside its bundle, written there at bundling (infra/bundling.ts runs this file); the processes that
 * run from source (the local server, the tests) generate it in-process on first request, from the same code.
 */
export function openApiTemplate(registry: Registry): string {
  const text = JSON.stringify(openApiDocument(registry, OPENAPI_TEMPLATE_SERVER, examples));
  if (text.split(JSON.stringify(OPENAPI_TEMPLATE_SERVER)).length !== 2)
    throw new Error(`the OpenAPI document names ${OPENAPI_TEMPLATE_SERVER} other than as its server`);
  return text;
}

/** The service root's pages with the document generated in-process (lib/http/route-handlers.ts: the local server and the tests). */
export const generatedRootPages = rootPages(openApiTemplate);

/** At bundling: `tsx lib/jsonapi/openapi-template.ts <file>` writes the template to `<file>`. */
if (process.argv[1] === import.meta.filename) writeFileSync(process.argv[2] ?? '', openApiTemplate(registry));
