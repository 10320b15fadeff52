import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('study_metadata');
