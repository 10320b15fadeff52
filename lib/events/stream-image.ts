/**
 * A DynamoDB stream image in either of its two wire forms: the Lambda event's (binary values as base64
 * strings) and the DynamoDB Streams API's (binary values as bytes), which the local publisher reads.
 * DynamoDB Local's Streams API sends an empty map as `{}`, without its `M` (at any depth; AWS sends
 * `{"M": {}}`); every other form keeps its key even when empty (`{"L": []}`, `{"S": ""}`, `{"B": ""}`).
 */
export interface StreamAttribute {
  S?: string;
  N?: string;
  B?: string | Uint8Array;
  BOOL?: boolean;
  NULL?: boolean;
  M?: StreamImage;
  L?: StreamAttribute[];
  SS?: string[];
  NS?: string[];
  BS?: (string | Uint8Array)[];
}

export type StreamImage = Record<string, StreamAttribute>;

const bytes = (value: string | Uint8Array): Uint8Array => (typeof value === 'string' ? Buffer.from(value, 'base64') : value);

/** One attribute as a plain value (numbers as numbers, binary as bytes whichever form it came in). */
export function plainValue(attribute: StreamAttribute): unknown {
  if (attribute.S !== undefined) return attribute.S;
  if (attribute.N !== undefined) return Number(attribute.N);
  if (attribute.B !== undefined) return bytes(attribute.B);
  if (attribute.BOOL !== undefined) return attribute.BOOL;
  if (attribute.NULL) return null;
  if (attribute.M) return plainImage(attribute.M);
  if (attribute.L) return attribute.L.map(plainValue);
  if (attribute.SS) return new Set(attribute.SS);
  if (attribute.NS) return new Set(attribute.NS.map(Number));
  if (attribute.BS) return new Set(attribute.BS.map(bytes));
  // No form at all: DynamoDB Local's empty map (a value of any type has its key, so this is no other).
  if (Object.keys(attribute).length === 0) return {};
  throw new Error(`unknown attribute value: ${Object.keys(attribute).join(', ')}`);
}

/** A stream image as a plain item. */
export const plainImage = (image: StreamImage): Record<string, unknown> =>
  Object.fromEntries(Object.entries(image).map(([name, attribute]) => [name, plainValue(attribute)]));

/** A stream record or image in its JSON form, as Lambda hands it over: binary values as base64 strings. */
export const jsonForm = (value: unknown): unknown =>
  value instanceof Uint8Array
    ? Buffer.from(value).toString('base64')
    : Array.isArray(value)
      ? value.map(jsonForm)
      : value && typeof value === 'object' && !(value instanceof Date)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonForm(v)]))
        : value;
