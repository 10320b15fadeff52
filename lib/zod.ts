import en from 'zod/v4/locales/en.js';
import { z } from 'zod/mini';

/**
 * The service's zod: the `zod/mini` API, whose load is a fraction of the classic API's (docs/decisions.md,
 * "Cold starts"), with the English messages clients see in error details. The classic API sets this locale
 * when it loads; mini sets none, so every module takes `z` from here and the locale is in place first.
 */
z.config(en());

export { z };
