import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('heron');
