import { hash, randomFillSync } from 'node:crypto';

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
    code = parseInt(hash('sha256', family, 'hex').slice(0, CODE_DIGITS), 16);
    familyCodes.set(family, code);
  }
  return code;
}

/**
 * The payload's 14 hex digits are handled as two halves of 7 (28 bits each), so that masking and
 * unmasking are plain integer XORs: the whole payload (56 bits) is past a double's 53, and BigInt
 * arithmetic cost more than the rest of a decode. The uuids are the same as BigInt's made
 * (test/unit/uuids.test.ts holds uuids made before).
 */
const HALF_DIGITS = (ID_DIGITS + CODE_DIGITS) / 2;
/** The family code's range: it is the low 16 bits of the payload. */
const CODE_RANGE = 16 ** CODE_DIGITS;
/** The range of the id's bits in the low half, above the code (12 bits); the rest of the id is the high half. */
const LOW_ID_RANGE = 16 ** HALF_DIGITS / CODE_RANGE;

/** The mask derived from the random digits: the first 14 hex digits of their SHA-256, as two halves. */
function mask(random: string): [high: number, low: number] {
  const digest = hash('sha256', random, 'hex');
  return [parseInt(digest.slice(0, HALF_DIGITS), 16), parseInt(digest.slice(HALF_DIGITS, 2 * HALF_DIGITS), 16)];
}

const hexHalf = (n: number) => n.toString(16).padStart(HALF_DIGITS, '0');

/**
 * The random digits of new uuids (6 bytes each), drawn from a pool of the system's random bytes refilled
 * when spent, as `crypto.randomUUID` draws its own: a `randomBytes` call for each uuid cost more than
 * the rest of making it.
 */
const RANDOM_BYTES = 6;
const pool = Buffer.alloc(RANDOM_BYTES * 512);
let poolAt = pool.length;
function randomDigits(): string {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += RANDOM_BYTES;
  return pool.toString('hex', poolAt - RANDOM_BYTES, poolAt);
}

export function encodeUuid(family: string, id: number, random: string = randomDigits()): string {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ENCODED_ID) throw new RangeError(`id ${id} cannot be encoded in a uuid`);
  // (id << 16 | code), split at bit 28: the id's high bits, then its low 12 bits above the code.
  const [maskHigh, maskLow] = mask(random);
  const high = Math.floor(id / LOW_ID_RANGE) ^ maskHigh;
  const low = ((id % LOW_ID_RANGE) * CODE_RANGE + familyCode(family)) ^ maskLow;
  const p = hexHalf(high) + hexHalf(low);
  const variant = (8 + (parseInt(random.slice(-1), 16) & 3)).toString(16);
  const hex = `${random}4${p.slice(0, 3)}${variant}${p.slice(3)}0000`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What a uuid of this service carries. */
export type DecodedUuid = Readonly<{ code: number; id: number }>;

function decodeOnce(uuid: string): DecodedUuid | undefined {
  const match = /^([0-9a-f]{8})-([0-9a-f]{4})-4([0-9a-f]{3})-[89ab]([0-9a-f]{3})-([0-9a-f]{8})0000$/.exec(uuid.toLowerCase());
  if (!match) return undefined;
  const payload = match[3]! + match[4]! + match[5]!;
  const [maskHigh, maskLow] = mask(match[1]! + match[2]!);
  const high = parseInt(payload.slice(0, HALF_DIGITS), 16) ^ maskHigh;
  const low = parseInt(payload.slice(HALF_DIGITS), 16) ^ maskLow;
  const id = high * LOW_ID_RANGE + Math.floor(low / CODE_RANGE);
  return id >= 1 ? Object.freeze({ code: low % CODE_RANGE, id }) : undefined;
}

/**
 * Uuids decoded before, and what they carry (nothing, for text that is not one of this service's uuids).
 * A write decodes each uuid it names more than once (prefetched, then resolved), and a lab's requests
 * name the same labware again and again: in a profile of Limber's MX tube creation (a 96-entry transfer
 * request collection), decoding was ~4 ms of the service's ~50 ms of CPU a request. Decoding is a pure
 * function of the text, so a kept answer is never stale; only text of a uuid's length is kept, and the
 * map is emptied when full.
 */
const decoded = new Map<string, DecodedUuid | undefined>();
export const DECODED_UUIDS_KEPT = 10_000;
const UUID_LENGTH = 36;

/** The family code and id a uuid of this service carries; undefined for any other uuid. */
export function decodeUuid(uuid: string): DecodedUuid | undefined {
  if (uuid.length !== UUID_LENGTH) return undefined;
  const kept = decoded.get(uuid);
  if (kept !== undefined || decoded.has(uuid)) return kept;
  const fresh = decodeOnce(uuid);
  if (decoded.size >= DECODED_UUIDS_KEPT) decoded.clear();
  decoded.set(uuid, fresh);
  return fresh;
}

/** Whether a uuid is the one this service made for the record of this family and id (else a client chose it: an alias, lib/jsonapi/resource.ts `uuidAliasIndex`). */
export function namesItsRecord(uuid: string, family: string, id: number): boolean {
  const decoded = decodeUuid(uuid);
  return decoded !== undefined && decoded.id === id && decoded.code === familyCode(family);
}

/** The unique index scope of uuids a client chose for the records they name (lib/jsonapi/resource.ts, `uuidAliasIndex`). */
export const UUID_ALIAS_SCOPE = 'uuid';

/** How many decoded uuids this process keeps (tests). */
export const decodedUuidsKept = (): number => decoded.size;

/**
 * The uuid of a reference record (a purpose, a transfer template, …): the same for the same type, natural
 * key and id, so a fresh store with the default reference data gives every reference record the uuid it
 * gave before, and the API description's examples can name them (lib/resources/examples.ts).
 */
export const referenceUuid = (family: string, id: number, type: string, key: string): string =>
  encodeUuid(family, id, hash('sha256', `${type}\n${key}`, 'hex').slice(0, 2 * RANDOM_BYTES));
