import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('pooled_plate_creations');
