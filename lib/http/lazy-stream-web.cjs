'use strict';
/**
 * `node:stream/web` as the bundles see it (infra/bundling.ts aliases the module here): the same classes,
 * each read on first use from Node's globals, which are these very classes and load lazily. @middy/core
 * imports `ReadableStream` from `node:stream/web` at the top of its module for streamed responses, which
 * this service never sends; loading Node's web streams for that costs every route function ~4 ms of
 * its cold start (docs/decisions.md, "Cold starts"). CommonJS, because only a
 * getter keeps an export from being read at load. test/unit/lazy-stream-web.test.ts holds the names to
 * Node's module.
 */
const NAMES = [
  'ReadableStream',
  'ReadableStreamDefaultReader',
  'ReadableStreamBYOBReader',
  'ReadableStreamBYOBRequest',
  'ReadableByteStreamController',
  'ReadableStreamDefaultController',
  'TransformStream',
  'TransformStreamDefaultController',
  'WritableStream',
  'WritableStreamDefaultWriter',
  'WritableStreamDefaultController',
  'ByteLengthQueuingStrategy',
  'CountQueuingStrategy',
  'TextEncoderStream',
  'TextDecoderStream',
  'CompressionStream',
  'DecompressionStream',
];

for (const name of NAMES) Object.defineProperty(exports, name, { enumerable: true, get: () => globalThis[name] });
