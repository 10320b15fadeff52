import { createHandler } from '#lib/http/handler.ts';
import { labwarePages } from '#lib/http/middleware/labware-page.ts';

export const handler = createHandler('labware', labwarePages);
