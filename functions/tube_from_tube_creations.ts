import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('tube_from_tube_creations');
