import { rackCreationItems, withinRequest } from '#lib/domain/budgets.ts';
import type { GivenBarcode } from '#lib/domain/barcode.ts';
import { layoutForSize } from '#lib/domain/geometry.ts';
import { labwareState } from '#lib/domain/labware.ts';
import type { Problem } from '#lib/domain/problems.ts';
import { planPlacements, rackSlot, rackState, takeTubes } from '#lib/domain/racks.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { accepted, attributeAt, problemErrors, sentAt, throwProblems } from '#lib/jsonapi/problems.ts';
import type { WriteInput } from '#lib/jsonapi/resource.ts';
import { creationId } from '#lib/operations/labware-creation.ts';
import { checkGivenBarcodes, createLabware, emptyTube, reserveBarcodeNumbers, reserveLabware } from '#lib/operations/labware-factory.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { linkOf, type StoredRecord } from '#lib/store/records.ts';

/**
 * A specific tube rack creation (lib/resources/tube-rack-creations.ts): read → plan → write.
 * readRackCreation refuses what one request cannot write whatever its tubes, reads the purposes named,
 * checks each rack's positions (lib/domain/racks.ts) and reads the tubes its barcodes name (an existing tube
 * is racked as it is); planRackCreation counts the items with those tubes; writeRackCreation makes the racks
 * and the new tubes and racks the existing ones.
 */

/** The racks as the definition's schema gives them. */
type RackAttributes = readonly {
  tube_rack_name?: string | null;
  tube_rack_barcode?: string | null;
  tube_rack_purpose_uuid: string;
  racked_tubes: readonly { tube_barcode: string; tube_name?: string | null; tube_purpose_uuid: string; tube_position: string }[];
}[];

/** The creation's write input, as the definition's attributes and relationships type it. */
interface RackCreationInput extends Pick<WriteInput, 'sent'> {
  attributes: { tube_rack_attributes?: RackAttributes | null };
  relationships: { parents?: StoredRecord[] | null; user?: StoredRecord | null };
}

export async function createTubeRacks(ctx: WriteContext, input: RackCreationInput): Promise<StoredRecord> {
  const read = await readRackCreation(ctx, input);
  planRackCreation(input, read);
  return writeRackCreation(ctx, input, read);
}

/** Every racked tube of the creation, in order, with where its members are in the request. */
const tubesOf = (racks: RackAttributes) =>
  racks.flatMap((rack, i) => rack.racked_tubes.map((tube, j) => ({ tube, at: (member: string) => tubeAt(i, j, member) })));

/** The purposes named, each rack's coordinates (checked), and the existing tube each racked tube names, if any. */
async function readRackCreation(ctx: WriteContext, input: RackCreationInput) {
  const racks = input.attributes.tube_rack_attributes!;
  const tubes = tubesOf(racks);
  // Every tube costs at least one item (an existing tube's update): what cannot fit whatever its tubes are is refused before any read.
  withinOneRequest(input, racks.length, 0, input.relationships.parents!.length, tubes.length);
  const [rackPurposes, tubePurposes] = await Promise.all([
    purposesNamed(
      ctx,
      racks.map((rack, i) => ({ uuid: rack.tube_rack_purpose_uuid, input: rackAt(i, 'tube_rack_purpose_uuid') })),
      'tube_rack_purposes',
    ),
    purposesNamed(
      ctx,
      tubes.map(({ tube, at }) => ({ uuid: tube.tube_purpose_uuid, input: at('tube_purpose_uuid') })),
      'tube_purposes',
    ),
  ]);
  const coordinates = checkPositions(racks, rackPurposes);
  const existing = await existingTubes(
    ctx,
    racks.flatMap((rack, i) => (rack.tube_rack_barcode ? [{ barcode: rack.tube_rack_barcode, input: rackAt(i, 'tube_rack_barcode') }] : [])),
    tubes.map(({ tube, at }, k) => ({ barcode: tube.tube_barcode, input: at('tube_barcode'), purpose: tubePurposes[k]! })),
  );
  return { racks, rackPurposes, tubePurposes, coordinates, existing };
}

type RackCreationRead = Awaited<ReturnType<typeof readRackCreation>>;

/** The creation with the existing tubes it racks counted: within the bound of one request, or refused. */
function planRackCreation(input: RackCreationInput, { racks, existing }: RackCreationRead): void {
  const racking = existing.filter((tube) => tube !== undefined).length;
  withinOneRequest(input, racks.length, existing.length - racking, input.relationships.parents!.length, racking);
}

/** Makes each rack (a child of the parents) with its tubes: new tubes made in it, existing ones racked; answers the creation. */
async function writeRackCreation(ctx: WriteContext, input: RackCreationInput, { racks, rackPurposes, tubePurposes, coordinates, existing }: RackCreationRead) {
  const { parents, user } = input.relationships;
  // In one round trip: the ids of the new tubes and, after them, of the racks (one ADD), barcode numbers for
  // the racks given no barcode, and the creation's id — not a call for each rack and the creation after them.
  const [reserved, numbers, id] = await Promise.all([
    reserveLabware(ctx, existing.filter((tube) => !tube).length + racks.length, false),
    reserveBarcodeNumbers(ctx, racks.filter((rack) => !rack.tube_rack_barcode).length),
    creationId(ctx, 'specific_tube_rack_creations'),
  ]);
  const rackIds = reserved.splice(reserved.length - racks.length);
  const ids = existing.map((tube) => tube?.id ?? reserved.shift()!.id);
  const newTubeState = emptyTube().state;
  const made: StoredRecord[] = [];
  let first = 0;
  for (const [i, rack] of racks.entries()) {
    const racked = coordinates[i]!.map((coordinate, j) => ({ coordinate, tube: ids[first + j]! }));
    const child = await createLabware(
      ctx,
      'tube_racks',
      {
        purpose: rackPurposes[i]!,
        ...(rack.tube_rack_barcode ? { barcode: rack.tube_rack_barcode } : {}),
        name: rack.tube_rack_name ?? null,
        size: Number(rackPurposes[i]!.attrs.size ?? 96),
        // An existing tube's state is the one its transfer requests give it.
        state: rackState(racked.map((_, j) => (existing[first + j] ? labwareState(labwareAttrs(existing[first + j]!)) : newTubeState))),
        receptacles: [],
        racked,
        parents: parents!.map(refOf),
        owner: user!.id,
      },
      // A rack given no barcode takes a generated one's number.
      { ...rackIds[i]!, number: rack.tube_rack_barcode ? undefined : numbers.shift() },
    );
    made.push(child);
    await rackTubes(ctx, child, rack.racked_tubes, racked, { existing: existing.slice(first), purposes: tubePurposes.slice(first), owner: user!.id });
    first += racked.length;
  }
  return ctx.uow.create('specific_tube_rack_creations', {
    id,
    attrs: {},
    rels: { children: made.map(refOf), parents: parents!.map(refOf), user: refOf(user!) },
  });
}

/** Puts a new rack's tubes in it: an existing tube moved in, a new one made there (`racked` gives each its coordinate and id). */
async function rackTubes(
  ctx: WriteContext,
  rack: StoredRecord,
  given: RackAttributes[number]['racked_tubes'],
  racked: readonly { coordinate: string; tube: number }[],
  { existing, purposes, owner }: { existing: readonly (StoredRecord | undefined)[]; purposes: readonly StoredRecord[]; owner: number },
): Promise<void> {
  for (const [j, { coordinate, tube: id }] of racked.entries()) {
    const place = { rackSlot: rackSlot(coordinate) };
    const taken = existing[j];
    if (taken) ctx.uow.update(taken, { rels: { tube_rack: refOf(rack) }, attrs: place });
    else
      await createLabware(
        ctx,
        'tubes',
        { purpose: purposes[j], barcode: given[j]!.tube_barcode, name: given[j]!.tube_name ?? null, ...emptyTube(), ...place, tubeRack: refOf(rack), owner },
        { id },
      );
  }
}

const FIELD = 'tube_rack_attributes';
const rackAt = (i: number, ...rest: (string | number)[]) => [FIELD, String(i), ...rest.map(String)];
const tubeAt = (i: number, j: number, member: string) => rackAt(i, 'racked_tubes', j, member);

/** The purposes the entries name, each found among `type` (one batched read), else a 404 at every entry naming it. */
async function purposesNamed(ctx: WriteContext, named: { uuid: string; input: string[] }[], type: string): Promise<StoredRecord[]> {
  const found = await ctx.loader.byUuids(
    named.map((n) => n.uuid),
    [type],
  );
  const missing = named.flatMap(({ uuid, input }, k) =>
    found[k] ? [] : [errors.notFound(`${FIELD} - no ${type} with uuid ${show(uuid)}`, { pointer: pointer('data', 'attributes', ...input) })],
  );
  if (missing.length > 0) throw JsonApiError.all(missing);
  return found as StoredRecord[];
}

/** Each rack's tubes at coordinates of the rack's size (its purpose's), each coordinate once: every problem a 422 at its position. */
function checkPositions(racks: RackAttributes, rackPurposes: readonly StoredRecord[]): string[][] {
  const problems: Problem[] = [];
  const coordinates = racks.map((rack, i) => {
    // Tubes are told apart by barcode across the whole creation (checkGivenBarcodes), so here only their positions count.
    const planned = planPlacements(
      layoutForSize(Number(rackPurposes[i]!.attrs.size ?? 96))!,
      rack.racked_tubes.map((tube, j) => ({ key: tube.tube_position, uuid: String(j) })),
      { coordinate: (j) => tubeAt(i, j, 'tube_position'), tube: (j) => tubeAt(i, j, 'tube_barcode') },
    );
    if (!planned.ok) problems.push(...planned.problems);
    return planned.ok ? planned.value.map((p) => p.coordinate) : [];
  });
  if (problems.length > 0) throw JsonApiError.all(problemErrors(problems, attributeAt));
  return coordinates;
}

/** Refuses a creation past the bound of one request (lib/domain/budgets.ts) before anything is written: a 422 at the racks naming what they write and the bound. */
function withinOneRequest(input: Pick<WriteInput, 'sent'>, racks: number, tubes: number, parents: number, existing: number): void {
  const { field } = sentAt(input, 'parents', 'parent_uuids');
  // Before the tubes are read (`tubes` 0), each counts as one item at least.
  const what =
    existing === 0 ? `${tubes} new tubes` : tubes === 0 ? `${existing} tubes (one item each at least)` : `${tubes} new and ${existing} existing tubes`;
  throwProblems(
    withinRequest(rackCreationItems(racks, tubes, parents, existing), `${racks} rack(s) of ${what} in all, from ${parents} parent(s) (${field}),`, [FIELD]),
    attributeAt,
  );
}

/**
 * The barcodes given, each once and free (checkGivenBarcodes), except a racked tube's barcode that
 * names an existing tube: that tube is racked as it is, if it is in no rack and of the purpose named for it.
 * Answers, for each racked tube, the existing tube it names, if any.
 */
async function existingTubes(
  ctx: WriteContext,
  rackBarcodes: GivenBarcode[],
  tubeBarcodes: (GivenBarcode & { purpose: StoredRecord })[],
): Promise<(StoredRecord | undefined)[]> {
  const held = await checkGivenBarcodes(ctx, [...rackBarcodes, ...tubeBarcodes], (entry, holder) => holder.type === 'tubes' && !rackBarcodes.includes(entry));
  const loaded = await ctx.loader.load([...held.values()]);
  const found = tubeBarcodes.map((entry) => {
    const holder = held.get(entry);
    return holder && loaded.get(`${holder.type}:${holder.id}`);
  });
  accepted(
    takeTubes(
      tubeBarcodes.flatMap(({ input, purpose }, k) => {
        const tube = found[k];
        return tube
          ? [
              {
                input,
                id: tube.id,
                rack: linkOf(tube, 'tube_rack')?.id ?? null,
                purpose: linkOf(tube, 'purpose')?.id ?? null,
                named: purpose.id,
              },
            ]
          : [];
      }),
    ),
    attributeAt,
  );
  return found;
}
