import { handlerFor } from '#lib/routes.ts';

export const handler = handlerFor('custom_metadatum_collections');
