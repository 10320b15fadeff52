import { show } from '#lib/jsonapi/errors.ts';

/**
 * What any value a client writes may hold, whatever its attribute (docs/decisions.md, "Hostile input"):
 * the one rule every attribute value meets as sent — and again as its schema made it, since a schema may
 * make numbers of text — before anything is read or written (lib/jsonapi/write.ts, validateValues). Free-form
 * JSON (request options, metadata, volumes) is stored as it came, so what DynamoDB or JavaScript cannot
 * keep faithfully is refused here, at the member that holds it, rather than failing at the store as a 500.
 */

export const MAX_STRING_LENGTH = 4096;
/**
 * Objects and arrays may be nested at most this deep inside an attribute value (`{"a": {"b": 1}}` is 2).
 * No attribute needs more than 2; DynamoDB stores at most 32 levels in an item, and a record's attributes
 * (and an event's copy of them) already sit a few levels down.
 */
export const MAX_NESTING_DEPTH = 16;
/**
 * Numbers are refused past ±(2^53 − 1): JSON.parse has already rounded such an integer to a neighbour
 * (9007199254740993 arrives as 9007199254740992), so what the client meant is lost and storing the
 * neighbour would be a silent change; DynamoDB's SDK refuses them too. Such a value is sent as a string.
 */
export const LARGEST_EXACT_NUMBER = Number.MAX_SAFE_INTEGER;
/** DynamoDB stores no number nearer 0 than this (its exponents run from -130); 0 itself is stored. */
export const SMALLEST_STORED_NUMBER = 1e-130;
/**
 * Keys refused wherever they are in a value: `__proto__` is dropped by every JavaScript object built by
 * assignment (zod's records, the SDK's unmarshalling of every read, the events' consumers), an own
 * `constructor` makes the SDK take the object for a class instance it refuses to store, and `prototype`
 * completes the set that prototype-pollution guards refuse (clients' own code merging what they read).
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/**
 * A surrogate that is not half of a pair (a `u` regex reads a pair as one code point). The range is `\p{Cs}`
 * spelt out: made at load, `\p{Cs}` had ICU build its character set, ~0.005× of a function's cold start
 * (docs/decisions.md, "Cold starts").
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A problem with a value: where in it (keys and indexes, empty for the value itself) and what is wrong. */
export interface ValueProblem {
  at: (string | number)[];
  detail: string;
}

/**
 * The first problem in a value, wherever it is: a string longer than `maxString` or not well-formed
 * Unicode (a lone surrogate, which DynamoDB's UTF-8 cannot hold: two different ones would be stored as one),
 * a key reserved or not well-formed, a number DynamoDB cannot store exactly, nesting deeper than
 * MAX_NESTING_DEPTH (reported at the value itself). Walks with an explicit stack, so no depth of nesting
 * (a 1 MiB body holds half a million levels) can overflow the call stack.
 */
export function valueProblem(value: unknown, maxString: number): ValueProblem | undefined {
  const stack: Visit[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const problem = scalarProblem(item.value, maxString);
    if (problem) return { at: pathOf(item), detail: problem };
    if (typeof item.value !== 'object' || item.value === null) continue;
    const depth = item.depth + 1;
    if (depth > MAX_NESTING_DEPTH) return { at: [], detail: `values may be nested at most ${MAX_NESTING_DEPTH} levels deep` };
    const entries: [string | number, unknown][] = Array.isArray(item.value) ? item.value.map((v, i) => [i, v]) : Object.entries(item.value);
    for (const [key] of entries) {
      const problem = typeof key === 'string' && keyProblem(key);
      if (problem) return { at: [...pathOf(item), key], detail: problem };
    }
    // Pushed in reverse so the first offending member is the first one reported.
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], depth, key: entries[i]![0], parent: item });
  }
  return undefined;
}

function scalarProblem(value: unknown, maxString: number): string | undefined {
  if (typeof value === 'string') {
    if (value.length > maxString) return `strings may be at most ${maxString} characters`;
    return surrogateProblem(value);
  }
  if (typeof value !== 'number' || value === 0) return undefined;
  const magnitude = Math.abs(value);
  if (!(magnitude <= LARGEST_EXACT_NUMBER))
    return `${value} is past ±${LARGEST_EXACT_NUMBER} (2^53 − 1): a JSON number that large has lost digits when read (9007199254740993 reads as 9007199254740992), so it is refused as imprecise; send it as a string`;
  if (magnitude < SMALLEST_STORED_NUMBER) return `${value} is nearer 0 than ${SMALLEST_STORED_NUMBER}, the smallest number DynamoDB stores`;
  return undefined;
}

function keyProblem(key: string): string | undefined {
  if (RESERVED_KEYS.has(key)) return `${JSON.stringify(key)} is reserved and cannot be used as a key`;
  const problem = surrogateProblem(key);
  return problem && `the key ${problem}`;
}

function surrogateProblem(text: string): string | undefined {
  const lone = LONE_SURROGATE.exec(text)?.[0];
  if (lone === undefined) return undefined;
  const code = lone.charCodeAt(0).toString(16).toUpperCase();
  return `${show(text)} holds a lone surrogate U+${code}: strings must be well-formed Unicode (a surrogate only as half of a pair)`;
}

/** A member valueProblem walks, and where it sits: the path is spelled out only for the member at fault (most values have none). */
interface Visit {
  value: unknown;
  depth: number;
  key?: string | number;
  parent?: Visit;
}

const pathOf = (visit: Visit): (string | number)[] => {
  const keys: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.push(at.key!);
  return keys.reverse();
};
