import { handlerFor } from '#lib/routes.ts';

export const handler = handlerFor('aliquots');
