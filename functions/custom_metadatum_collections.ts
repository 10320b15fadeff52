import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('custom_metadatum_collections');
