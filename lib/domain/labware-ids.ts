/**
 * Identifiers of the records that live inside labware. A plate and its wells (or a tube and its
 * receptacle, a rack and its racked tubes, labware and its aliquots) are one DynamoDB item, so these
 * records carry ids and uuids derived from their labware's: a GET by id or a uuid filter finds the
 * labware without a lookup table, and creating a 384-well plate is one write.
 *
 * - receptacles (wells and tube receptacles) and racked tubes: labware id × 1,000 + slot (1-based,
 *   column order). Slots never exceed 384, and labware ids are never reused, so neither are these.
 * - aliquots: labware id × 1,000,000 + n, n counting the aliquots the labware ever held.
 * - QC results: labware id × 1,000,000 + n, n counting the QC results the labware ever held (another id
 *   family than aliquots', so the two never meet).
 * - transfer requests: labware id × 1,000,000 + n, n counting the transfer requests the labware (their
 *   target's) ever received (their own id family too).
 * - requests: request book id × 1,000 + n, n (0–999) the request's place in its book (lib/domain/request-books.ts):
 *   a book holds at most 1,000 requests, and book ids are never reused.
 * - uuids: a labware's uuid, like every record's (lib/store/uuids.ts), ends in the four hex digits 0000;
 *   a receptacle's uuid is its labware's with the slot in those four digits, a request's its book's with
 *   n + 1 there.
 */
export const SLOTS_PER_LABWARE = 1_000;
export const ALIQUOTS_PER_LABWARE = 1_000_000;

export const slotId = (labwareId: number, slot: number): number => labwareId * SLOTS_PER_LABWARE + slot;
export const labwareOfSlot = (id: number): number => Math.floor(id / SLOTS_PER_LABWARE);
export const slotOf = (id: number): number => id % SLOTS_PER_LABWARE;

export const aliquotId = (labwareId: number, n: number): number => labwareId * ALIQUOTS_PER_LABWARE + n;
export const labwareOfAliquot = (id: number): number => Math.floor(id / ALIQUOTS_PER_LABWARE);

export const QC_RESULTS_PER_LABWARE = 1_000_000;
export const qcResultId = (labwareId: number, n: number): number => labwareId * QC_RESULTS_PER_LABWARE + n;
export const labwareOfQcResult = (id: number): number => Math.floor(id / QC_RESULTS_PER_LABWARE);

export const TRANSFER_REQUESTS_PER_LABWARE = 1_000_000;
export const transferRequestId = (labwareId: number, n: number): number => labwareId * TRANSFER_REQUESTS_PER_LABWARE + n;
export const labwareOfTransferRequest = (id: number): number => Math.floor(id / TRANSFER_REQUESTS_PER_LABWARE);

export const REQUESTS_PER_BOOK = 1_000;
export const requestId = (bookId: number, n: number): number => bookId * REQUESTS_PER_BOOK + n;
export const bookOfRequest = (id: number): number => Math.floor(id / REQUESTS_PER_BOOK);
export const placeInBook = (id: number): number => id % REQUESTS_PER_BOOK;

/** A uuid as the reference's Uuid validates it (lowercase hex, 8-4-4-4-12): what a client may choose for a record (a Heron sample's). */
export const UUID_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The uuid of a record held in another at `slot` (1–65,535: a well in its plate, a request in its book): the holder's uuid with the slot in its last four hex digits. */
export function slotUuid(holderUuid: string, slot: number): string {
  return `${holderUuid.slice(0, 32)}${slot.toString(16).padStart(4, '0')}`;
}

/** For a uuid made by `slotUuid`: its holder's uuid and the slot; undefined for anything else (a record's own uuid ends in 0000). */
export function parseHeldUuid(uuid: string): { holderUuid: string; slot: number } | undefined {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{8})([0-9a-f]{4})$/.exec(uuid.toLowerCase());
  if (!match) return undefined;
  const slot = parseInt(match[2]!, 16);
  return slot > 0 ? { holderUuid: `${match[1]}0000`, slot } : undefined;
}

/** For a receptacle uuid: its labware's uuid and its slot; undefined for anything else. */
export function parseSlotUuid(uuid: string): { labwareUuid: string; slot: number } | undefined {
  const held = parseHeldUuid(uuid);
  return held && held.slot < SLOTS_PER_LABWARE ? { labwareUuid: held.holderUuid, slot: held.slot } : undefined;
}
