import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('pick_lists');
