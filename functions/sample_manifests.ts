import { createHandler } from '#lib/http/handler.ts';

export const handler = createHandler('sample_manifests');
