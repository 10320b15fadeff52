import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('faculty_sponsors');
