import { createHandler } from '#lib/http/handler.ts';
import { serviceRootPages } from '#lib/http/middleware/service-root.ts';

export const handler = createHandler('not-found', serviceRootPages);
