import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('tag_group_adapter_types');
