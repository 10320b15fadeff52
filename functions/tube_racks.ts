import { handlerFor } from '#lib/routes.ts';

export const handler = handlerFor('tube_racks');
