import { handlerFor } from '#lib/routes.ts';

export const handler = handlerFor('request_types');
