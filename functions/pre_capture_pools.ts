import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('pre_capture_pools');
