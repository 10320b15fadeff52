import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** The official JSON:API 1.0 response schema (a CC0 copy beside this file), compiled once. */
const schemaPath = fileURLToPath(new URL('./jsonapi/schema-1.0.json', import.meta.url));
const ajv = new Ajv2020({ strict: false, allErrors: true, formats: fullFormats });
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));

/**
 * Member names of the reference that JSON:API 1.0 does not allow, rendered only when a client names them
 * in `fields[...]` (contract §6: Limber asks for submissions' `multiplexed?`): checked under a valid name.
 */
const REFERENCE_NAME = '"multiplexed?":';

/** Throws with the schema's complaints when a response document is not valid JSON:API. */
export function assertJsonApiDocument(document: unknown): void {
  const text = JSON.stringify(document);
  const checked = text?.includes(REFERENCE_NAME) ? JSON.parse(text.replaceAll(REFERENCE_NAME, '"multiplexed":')) : document;
  if (!validate(checked)) {
    throw new Error(`response is not a valid JSON:API document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(document).slice(0, 2000)}`);
  }
}
