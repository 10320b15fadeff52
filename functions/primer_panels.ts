import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('primer_panels');
