import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('specific_tube_creations');
