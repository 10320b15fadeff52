import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('tube_from_plate_creations');
