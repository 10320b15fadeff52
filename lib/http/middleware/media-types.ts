import { errors } from '#lib/jsonapi/errors.ts';
import { JSON_API, type ChainMiddleware } from '#lib/http/request.ts';
import { own } from '#lib/jsonapi/resource.ts';

interface MediaType {
  type: string;
  params: Map<string, string>;
}

function parseMediaTypes(header: string): MediaType[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [type = '', ...params] = part.split(';').map((p) => p.trim());
      return {
        type: type.toLowerCase(),
        params: new Map(params.filter(Boolean).map((p) => [p.split('=')[0]!.trim().toLowerCase(), p.slice(p.indexOf('=') + 1).trim()])),
      };
    });
}

/** JSON:API allows only the `ext` and `profile` parameters on its media type. */
const plainJsonApi = (m: MediaType, ignore: string[] = []) =>
  m.type === JSON_API && [...m.params.keys()].every((k) => k === 'ext' || k === 'profile' || ignore.includes(k));

/**
 * Content negotiation (contract §1.1): 415 for a write in another media type, 406 for an Accept we cannot
 * meet. An action its reference's client posts as plain JSON (`acceptsJson`: lighthouse's Heron receptions)
 * also takes `application/json`.
 */
export function mediaTypes(): ChainMiddleware {
  return {
    before: async ({ context }) => {
      const { request, def, target } = context.lts;
      if (request.method === 'POST' || request.method === 'PATCH') {
        const contentType = request.headers['content-type'];
        const parsed = contentType === undefined ? [] : parseMediaTypes(contentType);
        const action = target?.action === undefined ? undefined : own(def?.actions, target.action);
        const json =
          parsed.length === 1 && parsed[0]!.type === 'application/json' && action !== undefined && 'acceptsJson' in action && action.acceptsJson === true;
        if (!json && (parsed.length !== 1 || !plainJsonApi(parsed[0]!))) {
          // A JSON:API type with a parameter it does not allow (`charset=utf-8`): say the parameter is the problem.
          const extra = parsed.length === 1 && parsed[0]!.type === JSON_API ? [...parsed[0]!.params.keys()].filter((k) => k !== 'ext' && k !== 'profile') : [];
          throw errors.unsupportedMediaType(contentType, extra);
        }
      }
      const accept = request.headers.accept;
      if (accept === undefined || accept.trim() === '') return;
      const ok = parseMediaTypes(accept).some((m) => m.type === '*/*' || m.type === 'application/*' || plainJsonApi(m, ['q']));
      if (!ok) throw errors.notAcceptable(accept);
    },
  };
}
