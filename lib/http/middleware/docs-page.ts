import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SWAGGER_UI_DIR, SWAGGER_UI_PACKAGE } from '#lib/http/docs-assets.ts';
import { finishResponse } from '#lib/http/middleware/request-log.ts';
import { toResult, type ChainMiddleware } from '#lib/http/request.ts';
import { errors } from '#lib/jsonapi/errors.ts';

/**
 * The docs page at `/api/v2/docs`: Swagger UI (the swagger-ui-dist package) on the OpenAPI document,
 * served by the service itself, without a key (the page and its assets hold no data; "Authorize" takes
 * the key the requests then send). Nothing comes from elsewhere: the Content-Security-Policy allows only
 * this origin (and data: images, which Swagger UI's stylesheet embeds).
 *
 * Swagger UI's bundle (1.7 MB) would take a function bundle past its 1 MB budget, so it is read from disk:
 * on Lambda from `swagger-ui/` beside the bundle (infra/bundling.ts, `bundleAssets`, copies them there), locally
 * from node_modules. Only the files named here are served; any other name is a 404, so no path reads a
 * file it does not name (`/api/v2/docs/../../package.json` included).
 */
export const DOCS_PATH = '/api/v2/docs';

const CSP = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Laboratory Tracking Service API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/docs.js"></script>
</body>
</html>
`;

// An external script, since the policy allows no inline one. No validator badge: it would call swagger.io.
const init = `window.ui = SwaggerUIBundle({ url: '/api/v2/openapi.json', dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true, docExpansion: 'none' });\n`;

/** Where swagger-ui-dist's files are: beside the bundle on Lambda, else the package in node_modules. */
export function swaggerUiDir(): string {
  const taskRoot = process.env.LAMBDA_TASK_ROOT;
  if (taskRoot) return join(taskRoot, SWAGGER_UI_DIR);
  return dirname(createRequire(join(process.cwd(), 'noop.js')).resolve(`${SWAGGER_UI_PACKAGE}/package.json`));
}

interface Asset {
  type: string;
  body: () => string;
}

/** Files read once per process, on first use. */
const cache = new Map<string, string>();
const fromDisk = (name: string) => () => {
  let body = cache.get(name);
  if (body === undefined) {
    body = readFileSync(join(swaggerUiDir(), name), 'utf8');
    cache.set(name, body);
  }
  return body;
};

const ASSETS: Record<string, Asset> = {
  '': { type: 'text/html; charset=utf-8', body: () => page },
  'docs.js': { type: 'text/javascript; charset=utf-8', body: () => init },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: fromDisk('swagger-ui-bundle.js') },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: fromDisk('swagger-ui.css') },
};

export function docsPage(): ChainMiddleware {
  return {
    before: (request) => {
      const { method, path } = request.context.lts.request;
      if (path !== DOCS_PATH && !path.startsWith(`${DOCS_PATH}/`)) return undefined;
      const name = path.slice(DOCS_PATH.length + 1);
      const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name]! : undefined;
      if (!asset) throw errors.routeNotFound(path);
      if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed(method, path, ['GET', 'HEAD']);
      const headers = {
        'Content-Type': asset.type,
        // The page is revalidated (it names the assets); the assets change only with a release.
        'Cache-Control': name === '' ? 'no-cache' : 'public, max-age=3600',
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
      };
      const body = asset.body();
      return finishResponse(request, toResult({ status: 200, headers, body: method === 'HEAD' ? '' : body }, request.context.lts.requestId));
    },
  };
}
