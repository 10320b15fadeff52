import { barcodesOnce, canonicalBarcode, externalBarcode, generatedBarcode, type GivenBarcode } from '#lib/domain/barcode.ts';
import { emptyReceptacles, type Labware } from '#lib/domain/labware.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError } from '#lib/jsonapi/errors.ts';
import { accepted, attributeAt, relationshipAt } from '#lib/jsonapi/problems.ts';
import { findHolders, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * The labware factory: every write that makes labware (a POST of plates, tubes or racks, the creators, a
 * transfer's pool tubes) reserves its ids and barcode numbers and creates it here, and checks the barcodes
 * it was given with checkGivenBarcodes. The barcode guards are indexes of the labware definitions
 * (lib/resources/labware.ts), named here through the registry.
 */

/** The highest number a generated barcode takes (seven digits). */
const MAX_BARCODE_NUMBER = 9_999_999;

/**
 * Barcodes a write gives to labware it makes (a creator's tubes and racks): each given once, and none
 * already on a labware (the guards, read consistently; they still refuse one taken meanwhile, at commit),
 * unless `takes` accepts that labware as the one meant (a rack creation racks existing tubes by barcode):
 * a 422 at each offending input. Answers the labware each accepted barcode names.
 */
export async function checkGivenBarcodes(
  ctx: WriteContext,
  given: readonly GivenBarcode[],
  takes: (entry: GivenBarcode, holder: Ref) => boolean = () => false,
): Promise<Map<GivenBarcode, Ref>> {
  accepted(barcodesOnce(given), attributeAt);
  const holders = await findHolders(ctx.registry.indexScope('plates', 'barcode_guard'), [...new Set(given.map((g) => canonicalBarcode(g.barcode)))]);
  const held = new Map<GivenBarcode, Ref>();
  const taken = given.flatMap((entry) => {
    const hit = holders.get(canonicalBarcode(entry.barcode));
    if (!hit) return [];
    const holder = { type: hit.type, id: hit.id };
    if (takes(entry, holder)) {
      held.set(entry, holder);
      return [];
    }
    const { pointer, field } = attributeAt(entry.input);
    return [errors.notUnique(pointer, field, entry.barcode, `${hit.type} ${hit.id}`)];
  });
  if (taken.length > 0) throw JsonApiError.all(taken);
  return held;
}

/** Barcode numbers come from their own sequence (labware ids may have gaps and racks share them). */
const BARCODE_SEQUENCE = 'barcodes';

/** What new labware is: its purpose (whose prefix its generated barcode takes, unless `barcodePrefix`), a barcode given, its parents, its contents, a new tube's rack. */
export type NewLabware = Omit<Labware, 'barcode' | 'aliquotCount' | 'name'> & {
  aliquotCount?: number;
  purpose?: StoredRecord;
  barcode?: string;
  barcodePrefix?: string;
  name?: string | null;
  parents?: Ref[];
  tubeRack?: Ref;
};

/** A new labware's id, and the number of its generated barcode (none when the client gives one). */
export interface Reserved {
  id: number;
  number?: number;
}

/** Ids and barcode numbers for `count` new labware: one call each, however many (a pooling makes tens of tubes). */
export async function reserveLabware(ctx: WriteContext, count: number, generated = true): Promise<Reserved[]> {
  const [ids, numbers] = await Promise.all([ctx.uow.allocateIds('labware', count), generated ? reserveBarcodeNumbers(ctx, count) : undefined]);
  return ids.map((id, i) => ({ id, ...(numbers ? { number: numbers[i]! } : {}) }));
}

/** Generated barcode numbers for `count` new labware given no barcode (no call for none). */
export const reserveBarcodeNumbers = async (ctx: WriteContext, count: number): Promise<number[]> =>
  count > 0 ? ctx.uow.allocateIds(BARCODE_SEQUENCE, count) : [];

/**
 * Creates a labware record: id from the labware family, barcode given or made from the purpose's prefix
 * and the next barcode number (both reserved here unless `reserved`). A child records its parents, each
 * once (lib/domain/lineage.ts); the parents are not written.
 */
export async function createLabware(
  ctx: WriteContext,
  type: string,
  { purpose, barcode: given, barcodePrefix, parents = [], tubeRack, ...attrs }: NewLabware,
  reserved?: Reserved,
): Promise<StoredRecord> {
  const { id, number } = reserved ?? (await reserveLabware(ctx, 1, !given))[0]!;
  if (number !== undefined && number > MAX_BARCODE_NUMBER)
    throw errors.invalidValue('/data/attributes/barcode', `barcode - generated barcodes are exhausted (number ${number}); give a barcode`);
  const barcode = given ? externalBarcode(given) : generatedBarcode(barcodePrefix ?? String(purpose!.attrs.barcode_prefix), number!);
  const stored: Labware = { name: null, aliquotCount: 0, ...attrs, barcode };
  return ctx.uow.create(type, {
    id,
    attrs: stored as unknown as Record<string, unknown>,
    rels: {
      purpose: purpose ? refOf(purpose) : null,
      parents: accepted(linkParents({ type, id }, [], parents), relationshipAt),
      custom_metadatum_collection: null,
      ...(type === 'tubes' ? { tube_rack: tubeRack ?? null } : {}),
    },
  });
}

/** A new plate of a purpose: as many empty wells as the purpose's size, `pending`. */
export const emptyPlateOf = (purpose: StoredRecord) => {
  const size = Number(purpose.attrs.size ?? 96);
  return { size, state: 'pending', receptacles: emptyReceptacles(size) };
};

/** A new tube: one empty receptacle, `pending`, in no rack unless made in one. */
export const emptyTube = () => ({ state: 'pending', receptacles: emptyReceptacles(1), rackSlot: null });
