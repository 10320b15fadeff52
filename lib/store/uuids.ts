import { createHash, randomBytes } from 'node:crypto';

/**
 * Record uuids that name their record. A uuid is a v4-format uuid whose random part also carries the
 * record's id family and integer id (masked, so uuids still look random), and whose last four hex digits
 * are 0000 (the receptacles of a labware use them for their slot, lib/domain/labware-ids.ts).
 *
 * Why: a uuid named in a write (`*_uuid`, `tube_locations`, …) must resolve through a strongly consistent
 * read (a GSI lags the table on AWS). Decoding the uuid gives the record's key, so resolving any number of
 * uuids is one consistent BatchGetItem, with no lookup item to write and no index to wait for. The record
 * read back must carry exactly that uuid, so a forged uuid finds nothing.
 *
 * Layout of the 32 hex digits: 0–11 random, 12 the version (4), 13–15 and 17–27 the masked payload
 * (10 hex digits of id, 4 of family code), 16 the variant, 28–31 zero. The mask is derived from the
 * random digits.
 */
const ID_DIGITS = 10;
const CODE_DIGITS = 4;
export const MAX_ENCODED_ID = 16 ** ID_DIGITS - 1;

const familyCodes = new Map<string, number>();
/**
 * A family's 16-bit code: stable across releases because it derives from the name only. Kept once
 * computed: every new record's uuid needs it, and a hash per record was a measurable part of a create's CPU.
 */
export function familyCode(family: string): number {
  let code = familyCodes.get(family);
  if (code === undefined) {
    code = parseInt(createHash('sha256').update(family).digest('hex').slice(0, CODE_DIGITS), 16);
    familyCodes.set(family, code);
  }
  return code;
}

const mask = (random: string): bigint =>
  BigInt(
    `0x${createHash('sha256')
      .update(random)
      .digest('hex')
      .slice(0, ID_DIGITS + CODE_DIGITS)}`,
  );

export function encodeUuid(family: string, id: number, random: string = randomBytes(6).toString('hex')): string {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ENCODED_ID) throw new RangeError(`id ${id} cannot be encoded in a uuid`);
  const payload = ((BigInt(id) << BigInt(4 * CODE_DIGITS)) | BigInt(familyCode(family))) ^ mask(random);
  const p = payload.toString(16).padStart(ID_DIGITS + CODE_DIGITS, '0');
  const variant = (8 + (parseInt(random.slice(-1), 16) & 3)).toString(16);
  const hex = `${random}4${p.slice(0, 3)}${variant}${p.slice(3)}0000`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The family code and id a uuid of this service carries; undefined for any other uuid. */
export function decodeUuid(uuid: string): { code: number; id: number } | undefined {
  const match = /^([0-9a-f]{8})-([0-9a-f]{4})-4([0-9a-f]{3})-[89ab]([0-9a-f]{3})-([0-9a-f]{8})0000$/.exec(uuid.toLowerCase());
  if (!match) return undefined;
  const random = match[1]! + match[2]!;
  const payload = BigInt(`0x${match[3]}${match[4]}${match[5]}`) ^ mask(random);
  const id = Number(payload >> BigInt(4 * CODE_DIGITS));
  return id >= 1 ? { code: Number(payload & 0xffffn), id } : undefined;
}

/**
 * The uuid of a reference record (a purpose, a transfer template, …): the same for the same type, natural
 * key and id, so a fresh store with the default reference data gives every reference record the uuid it
 * gave before, and the API description's examples can name them (lib/resources/examples.ts).
 */
export const referenceUuid = (family: string, id: number, type: string, key: string): string =>
  encodeUuid(family, id, createHash('sha256').update(`${type}\n${key}`).digest('hex').slice(0, 12));
