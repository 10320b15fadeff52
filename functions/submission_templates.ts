import { handlerFor } from '#lib/routes.ts';

export const handler = handlerFor('submission_templates');
