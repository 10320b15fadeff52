// Sanger barcode format. Labware already in the lab carries labels printed by
// the reference system, and scanners send back whatever form the label
// encodes, so this must reproduce that system bit-for-bit: changing any rule
// here would make existing labels unreadable or new labels unscannable.
//
//   human form    DN12345U        prefix (2 letters) · number (1–7 digits) · check letter
//   machine form  1220012345855   EAN-13: numeric prefix (3) · number (7) ·
//                                 check letter's ASCII code (2) · EAN check digit
//
// In this format the machine form and the EAN-13 form are the same string.

import { outcome, quoted, type Outcome, type Problem } from '#lib/domain/problems.ts';

export interface EncodedBarcode {
  human_barcode: string;
  machine_barcode: string;
  ean13_barcode: string;
}

export interface DecodedBarcode extends EncodedBarcode {
  prefix: string;
  number: number;
}

const MAX_NUMBER = 9_999_999; // 7 digits in the machine form
const LETTER_BASE = 64; // 'A' → 1, so the numeric prefix never uses digit 0 for a letter

export function isValidPrefix(prefix: string): boolean {
  return typeof prefix === 'string' && /^[A-Z]{2}$/.test(prefix);
}

function isValidNumber(number: number): boolean {
  return Number.isInteger(number) && number >= 1 && number <= MAX_NUMBER;
}

/** Numeric prefix (DN → 122), or undefined if the prefix is not two letters A–Z. */
export function prefixToNumber(prefix: string): number | undefined {
  if (!isValidPrefix(prefix)) return undefined;
  return (prefix.charCodeAt(0) - LETTER_BASE) * 27 + (prefix.charCodeAt(1) - LETTER_BASE);
}

/** Inverse of prefixToNumber; undefined for numbers that are not a two-letter prefix. */
export function numberToPrefix(n: number): string | undefined {
  if (!Number.isInteger(n)) return undefined;
  const first = Math.floor(n / 27);
  const second = n % 27;
  // Base 27 with digit 0 unused: a 0 digit would mean "no letter", not a prefix.
  if (first < 1 || first > 26 || second < 1) return undefined;
  return String.fromCharCode(LETTER_BASE + first, LETTER_BASE + second);
}

function assertValid(prefix: string, number: number): void {
  if (!isValidPrefix(prefix)) throw new RangeError(`invalid barcode prefix: ${JSON.stringify(prefix)}`);
  if (!isValidNumber(number)) throw new RangeError(`invalid barcode number: ${number}`);
}

/** Check letter (A–W); throws RangeError on an invalid prefix or number. */
export function checkLetter(prefix: string, number: number): string {
  assertValid(prefix, number);
  const reversed = [...`${prefix}${number}`].reverse();
  const sum = reversed.reduce((total, char, i) => total + char.charCodeAt(0) * (i + 1), 0);
  return String.fromCharCode((sum % 23) + 65);
}

/** Standard EAN-13 check digit over the first 12 digits; throws on anything else. */
export function ean13CheckDigit(first12: string): number {
  if (!/^\d{12}$/.test(first12)) throw new RangeError(`expected 12 digits: ${JSON.stringify(first12)}`);
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
}

/** All forms of a barcode; throws RangeError on an invalid prefix or number. */
export function encodeBarcode(prefix: string, number: number): EncodedBarcode {
  const letter = checkLetter(prefix, number);
  const first12 = String(prefixToNumber(prefix)).padStart(3, '0') + String(number).padStart(7, '0') + String(letter.charCodeAt(0)); // A–W are 65–87: always two digits
  const machine = first12 + ean13CheckDigit(first12);
  return { human_barcode: `${prefix}${number}${letter}`, machine_barcode: machine, ean13_barcode: machine };
}

// No leading zeros: printers never produce them, and allowing them would give
// one barcode several spellings.
// Case-insensitive via the flag rather than toUpperCase() on the input, which
// would map non-ASCII letters such as 'ſ' onto 'S'.
const HUMAN = /^([A-Z]{2})([1-9][0-9]{0,6})([A-Z])$/i;
const MACHINE = /^(\d{3})(\d{7})\d{3}$/; // prefix · number · letter code + EAN digit

function decodeHuman(text: string): DecodedBarcode | undefined {
  const match = HUMAN.exec(text);
  if (!match) return undefined;
  const prefix = match[1]!.toUpperCase();
  const number = Number(match[2]);
  if (checkLetter(prefix, number) !== match[3]!.toUpperCase()) return undefined;
  return { prefix, number, ...encodeBarcode(prefix, number) };
}

function decodeMachine(text: string): DecodedBarcode | undefined {
  const match = MACHINE.exec(text);
  if (!match) return undefined;
  const prefix = numberToPrefix(Number(match[1]));
  const number = Number(match[2]);
  if (prefix === undefined || !isValidNumber(number)) return undefined;
  const encoded = encodeBarcode(prefix, number);
  // Re-encoding checks both the embedded check-letter code and the EAN digit at once.
  if (encoded.machine_barcode !== text) return undefined;
  return { prefix, number, ...encoded };
}

/** Decode any form (human, case-insensitive; or 13-digit machine/EAN-13). Never throws. */
export function decodeBarcode(input: string): DecodedBarcode | undefined {
  if (typeof input !== 'string') return undefined;
  const text = input.trim();
  return /^\d+$/.test(text) ? decodeMachine(text) : decodeHuman(text);
}

/** A labware's barcode in all its forms, as stored with the labware. */
export interface LabwareBarcode {
  human_barcode: string;
  machine_barcode: string | null;
  ean13_barcode: string | null;
  /** Given by the client rather than generated. */
  external: boolean;
}

export const generatedBarcode = (prefix: string, number: number): LabwareBarcode => ({ ...encodeBarcode(prefix, number), external: false });

/** A barcode the client gave: in this service's own format (migrated labware) it keeps all its forms. */
export function externalBarcode(value: string): LabwareBarcode {
  const text = value.trim();
  const own = decodeBarcode(text);
  if (own) return { ...encodeBarcode(own.prefix, own.number), external: true };
  return { human_barcode: text, machine_barcode: text, ean13_barcode: /^\d{13}$/.test(text) ? text : null, external: true };
}

/** The one spelling a barcode is indexed and looked up by: any form of a generated barcode → its human form. */
export const canonicalBarcode = (value: string): string => decodeBarcode(value)?.human_barcode ?? value.trim().toUpperCase();

/** A barcode a request gives to labware it makes, and the input that gave it. */
export interface GivenBarcode {
  barcode: string;
  input: readonly string[];
}

/** Each barcode one request gives names one labware: a barcode given again (in any of its forms) is a problem at each repeat. */
export function barcodesOnce(given: readonly GivenBarcode[]): Outcome<void> {
  const first = new Map<string, GivenBarcode>();
  const problems: Problem[] = [];
  for (const entry of given) {
    const canonical = canonicalBarcode(entry.barcode);
    const earlier = first.get(canonical);
    if (earlier)
      problems.push({ code: 'given_twice', input: entry.input, detail: `barcode ${quoted(entry.barcode)} is also given at ${earlier.input.join('.')}` });
    else first.set(canonical, entry);
  }
  return outcome(problems, () => undefined);
}
