import { bulkTransferItems, MAX_WELL_TRANSFERS_PER_BULK_TRANSFER } from '#lib/domain/budgets.ts';
import { layoutForSize, positionAt, positionIndex } from '#lib/domain/geometry.ts';
import { ANY_SERVED_TYPE, refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { checkEntryCount, moveMaterial, type Named, type NamedMove } from '#lib/operations/material-moves.ts';
import type { StoredRecord } from '#lib/store/records.ts';

/**
 * A bulk transfer (lib/resources/bulk-transfers.ts): read → plan → write. The plates its entries name are
 * read in one batched read and each entry's wells found (readWellTransfers); the entries go to the material
 * moves (lib/operations/material-moves.ts) as moves of the one planner; one `Transfer::BetweenPlates`
 * transfer is recorded per (source, destination) pair of plates, listed by its destination.
 */

const FIELD = 'well_transfers';

/** An entry as the definition's schema gives it. */
interface WellTransfer {
  source_uuid: string;
  source_location: string;
  destination_uuid: string;
  destination_location: string;
  submission_id?: number | null;
}

/** The bulk transfer's write input, as the definition's attributes and relationships type it. */
interface BulkTransferInput {
  attributes: { well_transfers?: readonly WellTransfer[] | null };
  relationships: { user?: StoredRecord | null };
}

const at = (i: number, field: string) => pointer('data', 'attributes', FIELD, i, field);

/** Reads the plates and submissions the entries name (one batched read) and finds each entry's wells; every problem points at its field. */
async function readWellTransfers(ctx: WriteContext, entries: readonly WellTransfer[]) {
  const uuids = entries.flatMap((e) => [e.source_uuid.toLowerCase(), e.destination_uuid.toLowerCase()]);
  const submissionRefs = entries.flatMap((e) => (e.submission_id ? [{ type: 'submissions', id: e.submission_id }] : []));
  await ctx.loader.prefetch(submissionRefs, uuids);
  const found = new Map((await ctx.loader.byUuids(uuids, ANY_SERVED_TYPE)).flatMap((r) => (r ? [[r.uuid, r] as const] : [])));
  const submissions = await ctx.loader.load(submissionRefs);
  const problems: JsonApiError[] = [];
  const well = (i: number, end: 'source' | 'destination', uuid: string, name: string): Named | undefined => {
    const plate = found.get(uuid.toLowerCase());
    const where = `${FIELD} - entry ${i}`;
    if (!plate) {
      problems.push(errors.notFound(`${where} ${end}_uuid: no plates with uuid ${show(uuid)}`, { pointer: at(i, `${end}_uuid`) }));
      return undefined;
    }
    if (plate.type !== 'plates') {
      problems.push(errors.invalidValue(at(i, `${end}_uuid`), `${where} ${end}_uuid: ${uuid} is ${plate.type} ${plate.id}, not a plate`));
      return undefined;
    }
    const layout = layoutForSize(labwareAttrs(plate).receptacles.length)!;
    const index = positionIndex(layout, name);
    if (index === undefined) {
      const last = positionAt(layout, layout.size - 1);
      problems.push(errors.invalidValue(at(i, `${end}_location`), `${where} ${end}_location: plate ${plate.id} has no well ${show(name)} (A1 to ${last})`));
      return undefined;
    }
    return { labware: plate, slot: index + 1 };
  };
  const read = entries.map((e, i) => {
    const source = well(i, 'source', e.source_uuid, e.source_location);
    const target = well(i, 'destination', e.destination_uuid, e.destination_location);
    if (e.submission_id && !submissions.has(`submissions:${e.submission_id}`))
      problems.push(errors.notFound(`${FIELD} - entry ${i} submission_id: no submissions with id ${e.submission_id}`, { pointer: at(i, 'submission_id') }));
    return { entry: e, source: source!, target: target! };
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  return read;
}

/** The well name of a slot of a plate. */
const wellName = ({ labware, slot }: Named): string => positionAt(layoutForSize(labwareAttrs(labware).receptacles.length)!, slot - 1)!;

export async function createBulkTransfer(ctx: WriteContext, input: BulkTransferInput): Promise<StoredRecord> {
  const entries = input.attributes.well_transfers!;
  checkEntryCount(FIELD, entries.length, MAX_WELL_TRANSFERS_PER_BULK_TRANSFER, { empty: 'source and destination well', holder: 'one bulk transfer' });
  // The bulk transfer's own id is reserved beside the reads (a refused one skips it, contract §1.3).
  const [read, [bulkId]] = await Promise.all([readWellTransfers(ctx, entries), ctx.uow.allocateIds('bulk_transfers', 1)]);
  const pairs = plateTransfers(read);
  const ids = await ctx.uow.allocateIds('transfers', pairs.length);
  const transfers = pairs.map((pair, i) => ({ ...pair, id: ids[i]! }));
  const user = input.relationships.user!;
  await moveMaterial(ctx, read.map(namedMove), {
    field: FIELD,
    user: user.id,
    items: (destinations, newLinks) => bulkTransferItems(destinations, transfers.length, newLinks),
    alsoSet: (plate) => ({
      transfersAsDestination: [
        ...(labwareAttrs(plate).transfersAsDestination ?? []),
        ...transfers.filter((t) => t.destination.id === plate.id).map((t) => t.id),
      ],
    }),
  });
  for (const { id, source, destination, map } of transfers)
    ctx.uow.create('transfers', {
      id,
      attrs: { transfer_type: 'Transfer::BetweenPlates', transfers: map },
      rels: { source: refOf(source), destination: refOf(destination), user: refOf(user) },
    });
  return ctx.uow.create('bulk_transfers', {
    id: bulkId!,
    attrs: {},
    rels: { transfers: transfers.map((t) => ({ type: 'transfers', id: t.id })), user: refOf(user) },
  });
}

type WellTransferRead = Awaited<ReturnType<typeof readWellTransfers>>[number];

/** One transfer per (source, destination) pair of plates, in the order first named: its map, source well → destination wells, as the reference records it. */
function plateTransfers(read: readonly WellTransferRead[]) {
  const pairs = new Map<string, { source: StoredRecord; destination: StoredRecord; map: Record<string, string[]> }>();
  for (const { source, target } of read) {
    const key = `${source.labware.id}>${target.labware.id}`;
    const pair = pairs.get(key) ?? pairs.set(key, { source: source.labware, destination: target.labware, map: {} }).get(key)!;
    pair.map[wellName(source)] = [...(pair.map[wellName(source)] ?? []), wellName(target)];
  }
  return [...pairs.values()];
}

/** An entry as a move: its own submission, no outer request named; problems name its plates and wells. */
const namedMove = ({ entry, source, target }: WellTransferRead, i: number): NamedMove => ({
  source,
  target,
  outerRequest: null,
  submission: entry.submission_id ?? null,
  volume: null,
  at: [FIELD, String(i)],
  names: {
    source: `${entry.source_uuid} ${entry.source_location}`,
    target: `${entry.destination_uuid} ${entry.destination_location}`,
    sourceField: 'source_location',
    targetField: 'destination_location',
  },
});
