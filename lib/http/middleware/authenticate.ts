import { config } from '#lib/config.ts';
import { errors } from '#lib/jsonapi/errors.ts';
import type { ChainMiddleware } from '#lib/http/request.ts';
import { authenticateKey } from '#lib/store/api-keys.ts';

/** `LTS_KEYLESS` (e.g. `GET:labware,POST:qc_assays`) as a set of `METHOD:type`. */
export function keylessRoutes(setting: string): Set<string> {
  return new Set(
    setting
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => {
        const [method = '', type = ''] = s.split(':');
        return `${method.toUpperCase()}:${type}`;
      }),
  );
}

/**
 * The first check of a request's own (contract §1.2), after the chain's bookkeeping, CORS preflight and the
 * open pages (lib/http/handler.ts): a missing or unknown `X-Sequencescape-Client-Id` is a 401 before
 * anything about the route is revealed, except on the routes configured as keyless. Key lookups are cached per
 * process for up to a minute (lib/store/api-keys.ts), so a revocation takes effect within a minute.
 */
export function authenticate(): ChainMiddleware {
  const keyless = keylessRoutes(config().LTS_KEYLESS);
  return {
    before: async ({ context }) => {
      const { request, target } = context.lts;
      const key = request.headers['x-sequencescape-client-id'];
      // Only paths under /api/v2/<type> can be keyless, not any path whose third segment names the type.
      const type = target?.type;
      if (key) {
        const identity = await authenticateKey(key);
        if (identity) {
          context.lts.apiKey = { name: identity.name, scope: identity.scope };
          return;
        }
      }
      if (!key && type !== undefined && keyless.has(`${request.method}:${type}`)) return;
      throw errors.unauthorized();
    },
  };
}
