import en from 'zod/v4/locales/en.js';
import { config } from 'zod/mini';

/**
 * The service's zod: the `zod/mini` API, whose load is a fraction of the classic API's (docs/decisions.md,
 * "Cold starts"), with the English messages clients see in error details. The classic API sets this locale
 * when it loads; mini sets none, so every module takes zod from here (`import * as z`) and the locale is
 * in place first. Named exports, not zod's `z` object: esbuild then keeps only what is used (the `z`
 * object would bring every locale, ~260 KB).
 */
config(en());

export * from 'zod/mini';
