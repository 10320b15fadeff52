import { decodeBarcode } from '#lib/domain/barcode.ts';
import { poolingItems, withinRequest } from '#lib/domain/budgets.ts';
import { layoutForSize, positionAt } from '#lib/domain/geometry.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import { contentsOf, emptyReceptacles, labwareState, receptacleState, type Contents, type Labware } from '#lib/domain/labware.ts';
import { linkParents } from '#lib/domain/lineage.ts';
import { applyMoves } from '#lib/domain/material-moves.ts';
import { outcome } from '#lib/domain/problems.ts';
import { filledName, planTransfer, poolTubeIsDestination, transferredOnce, type LabwareAt, type Move, type TransferType } from '#lib/domain/transfers.ts';
import { refOf, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, show } from '#lib/jsonapi/errors.ts';
import { accepted, attributeAt, relationshipAt, type Locate } from '#lib/jsonapi/problems.ts';
import { lowerCase, own } from '#lib/jsonapi/resource.ts';
import { createLabware, reserveLabware } from '#lib/operations/labware-factory.ts';
import { labwareAttrs, parentsOf, receptacleType } from '#lib/operations/labware-records.ts';
import { destiniesOf } from '#lib/operations/material-moves.ts';
import { findHolders, findTerms, linkedTo, type StoredRecord } from '#lib/store/records.ts';

/**
 * A transfer (lib/resources/transfers.ts): read → plan → apply → write. readTransfer reads the template,
 * the labware and where the source's material goes on; planChecked plans by the template's type
 * (lib/domain/transfers.ts) and checks the destination's rules and the bound of one request; fill finds or makes
 * what the plan fills (the destination, the pools' tubes) and applies the moves to it
 * (lib/domain/material-moves.ts); writeFillings stages each once. The source is never written, so any number
 * of transfers out of one plate run at once; of two into one destination the second runs again from the
 * first's result.
 */

/** The transfer's write input, as the definition's attributes and relationships type it. */
interface TransferInput {
  attributes: { transfer_template_uuid?: string | null; transfers?: unknown };
  relationships: { source?: StoredRecord | null; destination?: StoredRecord | null; user?: StoredRecord | null };
}

/** A tube a plate's wells were pooled into, as the reference summarises it in `transfers` (the definition's `tubeSummary`). */
interface TubeSummary {
  uuid: string;
  name: string | null;
  state: string;
  label: { text: string };
  barcode: { number: string; prefix: string; two_dimensional: null; ean13: string | null; type: number };
}

/** The purpose of the tubes a "by submission" transfer makes (contract §2). */
const POOL_TUBE_PURPOSE = 'MX Tube';
const TEMPLATE = '/data/attributes/transfer_template_uuid';
/** Problems name attributes of the request (`transfers`) or its relationships (`source`, `destination`), as the type defines them. */
function inputAt(ctx: RequestContext): Locate {
  const { attributes } = ctx.registry.require('transfers');
  return (path) => (own(attributes, path[0]!) ? attributeAt : relationshipAt)(path);
}

/** The shape the planner needs of a labware: plates and tubes only. */
function labwareAt(record: StoredRecord, name: 'source' | 'destination'): LabwareAt {
  if (record.type === 'plates') return { kind: 'plate', size: labwareAttrs(record).receptacles.length };
  if (record.type === 'tubes') return { kind: 'tube', size: 1 };
  throw errors.invalidValue(`/data/relationships/${name}`, `${name} - ${record.type} ${record.id} cannot take part in a transfer; name a plate or a tube`);
}

/**
 * A labware the transfer fills: the record read, or, for a tube this transfer makes, the pool it is made
 * for; its contents as the moves change them, and the wells that went into it.
 */
type Filling = ({ record: StoredRecord } | { record?: undefined; pool: number }) & {
  contents: Contents;
  wells: string[];
  /** How problems name its receptacles. */
  label: (slot: number) => string;
};

/** Which labware a move fills: the destination the client named, or the tube of a pool (by the pool's id). */
type FillingKey = 'destination' | number;

const fillingKeyOf = (move: Move): FillingKey => ('pool' in move.into ? move.into.pool : 'destination');

const existingFilling = (record: StoredRecord): Filling => ({
  record,
  contents: contentsOf(labwareAttrs(record)),
  wells: [],
  label: (slot) => `${receptacleType(record.type)} ${slotId(record.id, slot)}`,
});

/** The tubes the pools go into: those made for them before (one batched read), else new ones (made at the end). */
async function poolTubes(ctx: WriteContext, pools: number[]): Promise<Map<number, Filling>> {
  const holders = await findHolders(ctx.registry.indexScope('tubes', 'pool_tube'), pools.map(String));
  const found = await ctx.loader.load([...holders.values()].map((hit) => ({ type: hit.type, id: hit.id })));
  return new Map(
    pools.map((pool) => {
      const hit = holders.get(String(pool));
      const tube = hit && found.get(`${hit.type}:${hit.id}`);
      const made: Filling = {
        pool,
        contents: { receptacles: emptyReceptacles(1), aliquotCount: 0 },
        wells: [],
        label: () => `the new tube of submission ${pool}`,
      };
      return [pool, tube ? existingFilling(tube) : made];
    }),
  );
}

async function poolTubePurpose(ctx: WriteContext): Promise<StoredRecord> {
  const [hit] = await findTerms(ctx.registry.indexScope('tube_purposes', 'name'), lowerCase(POOL_TUBE_PURPOSE));
  const purpose = hit && (await ctx.loader.one({ type: hit.type, id: hit.id }));
  if (purpose?.type !== 'tube_purposes')
    throw errors.invalidValue(
      TEMPLATE,
      `transfer_template_uuid - pooling by submission needs the tube purpose ${show(POOL_TUBE_PURPOSE)}, which the reference data lacks`,
    );
  return purpose;
}

/** The reference's summary of a pool tube in `transfers`: what limber reads to find the tubes. */
function summarise(tube: StoredRecord, purposeName: string): TubeSummary {
  const attrs = labwareAttrs(tube);
  const decoded = decodeBarcode(attrs.barcode.human_barcode);
  return {
    uuid: tube.uuid,
    name: attrs.name,
    state: labwareState(attrs),
    label: { text: purposeName },
    barcode: { number: String(decoded?.number ?? ''), prefix: decoded?.prefix ?? '', two_dimensional: null, ean13: attrs.barcode.ean13_barcode, type: 1 },
  };
}

/** Read → plan → apply → write: the rules are lib/domain/transfers.ts (which moves) and lib/domain/material-moves.ts (what a move does). */
export async function createTransfer(ctx: WriteContext, input: TransferInput): Promise<StoredRecord> {
  // The transfer's id first (beside the reads): its destination lists it (`transfers_as_destination`, read with the labware).
  const [read, [id]] = await Promise.all([
    readTransfer(ctx, {
      templateUuid: input.attributes.transfer_template_uuid!,
      source: input.relationships.source!,
      destination: input.relationships.destination ?? null,
      sent: input.attributes.transfers ?? undefined,
    }),
    ctx.uow.allocateIds('transfers', 1),
  ]);
  const locate = inputAt(ctx);
  const plan = planChecked(read, locate);
  const fillings = await fill(ctx, read, plan, locate);
  const { type, source, destination } = read;
  // The labware the transfer records as its destination: the one pool tube of a type that says so (when it filled any), else the one named.
  const destinationKey: FillingKey = (poolTubeIsDestination(type) ? plan.pools[0] : undefined) ?? 'destination';
  const written = await writeFillings(ctx, {
    type,
    source,
    fillings,
    transfer: { id: id!, destination: destinationKey, user: input.relationships.user!.id },
  });
  const recorded = plan.recorded;
  const transferred = Array.isArray(recorded) || recorded === null ? recorded : await withTubeSummaries(ctx, recorded, written);
  const poolDestination = destinationKey === 'destination' ? undefined : written.get(destinationKey);
  return ctx.uow.create('transfers', {
    id: id!,
    attrs: { transfer_type: type, transfers: transferred },
    rels: {
      source: refOf(source),
      destination: poolDestination ? refOf(poolDestination) : destination && refOf(destination),
      user: refOf(input.relationships.user!),
    },
  });
}

type TransferRead = Awaited<ReturnType<typeof readTransfer>>;

/** The type's plan (its moves and what `transfers` records), and the pools it fills, refused when it breaks a rule of the destination or the bound of one request. */
function planChecked({ type, source, destination, planInput }: TransferRead, inputAt: Locate) {
  const plan = accepted(planTransfer(planInput), inputAt);
  const pools = [...new Set(plan.moves.flatMap((m) => ('pool' in m.into ? [m.into.pool] : [])))];
  const sourceName = `${source.type} ${source.id}`;
  const once = destination
    ? transferredOnce(
        type,
        { name: `${destination.type} ${destination.id}`, receptacles: labwareAttrs(destination).receptacles },
        { name: sourceName, receptacles: new Set(labwareAttrs(source).receptacles.map((_, i) => slotId(source.id, i + 1))) },
      )
    : [];
  accepted(
    outcome([...once, ...withinRequest(poolingItems(pools.length), `${sourceName} pooled into ${pools.length} tubes`, ['source'])], () => undefined),
    inputAt,
  );
  return { ...plan, pools };
}

/** Every labware the plan fills (the destination, the pools' tubes: read or new), with the plan's moves applied to its contents. */
async function fill(ctx: WriteContext, read: TransferRead, plan: ReturnType<typeof planChecked>, inputAt: Locate): Promise<Map<FillingKey, Filling>> {
  const { source, destination } = read;
  const fillings = new Map<FillingKey, Filling>();
  if (destination && plan.moves.some((m) => 'slot' in m.into)) fillings.set('destination', existingFilling(destination));
  for (const [pool, filling] of await poolTubes(ctx, plan.pools)) fillings.set(pool, filling);
  const sourceReceptacles = labwareAttrs(source).receptacles;
  const tube = source.type === 'tubes';
  const applied = accepted(
    applyMoves(
      new Map([...fillings].map(([key, filling]) => [key, filling.contents])),
      plan.moves.map((move) => ({
        source: { id: slotId(source.id, move.source), receptacle: sourceReceptacles[move.source - 1]!, tube, ...read.destinies[move.source - 1]! },
        target: fillingKeyOf(move),
        slot: 'slot' in move.into ? move.into.slot : 1,
      })),
      (key, slot) => fillings.get(key)!.label(slot),
    ),
    inputAt,
  );
  for (const [key, contents] of applied) fillings.get(key)!.contents = contents;
  if (read.layout) for (const move of plan.moves) fillings.get(fillingKeyOf(move))!.wells.push(positionAt(read.layout, move.source - 1)!);
  return fillings;
}

/** What a transfer reads before planning: its template's type, its labware, and where the source's material goes on (its pools and outer requests). */
async function readTransfer(
  ctx: WriteContext,
  { templateUuid, source, destination, sent }: { templateUuid: string; source: StoredRecord; destination: StoredRecord | null; sent: unknown },
) {
  const template = await ctx.loader.byUuid(templateUuid, ['transfer_templates']);
  if (!template) throw errors.notFound(`transfer_template_uuid - no transfer_templates with uuid ${show(templateUuid)}`, { pointer: TEMPLATE });
  const type = template.attrs.transfer_type as TransferType;
  const sourceShape = labwareAt(source, 'source');
  const destinationShape = destination && labwareAt(destination, 'destination');
  // Every transfer needs them: the by-submission types group by them, and every copy carries its pool along.
  const destinies = await destiniesOf(ctx, source);
  const layout = layoutForSize(sourceShape.size);
  const planInput: Parameters<typeof planTransfer>[0] = {
    type,
    source: {
      ...sourceShape,
      receptacles: labwareAttrs(source).receptacles.map((r, i) => ({
        slot: i + 1,
        name: layout ? positionAt(layout, i)! : (labwareAttrs(source).name ?? ''),
        aliquots: r.aliquots.length,
        state: receptacleState(r),
        pool: destinies[i]?.pool ?? null,
      })),
    },
    destination: destinationShape,
    transfers: template.attrs.transfers ?? sent,
    clientTransfers: template.attrs.transfers === undefined && sent !== undefined,
  };
  return { type, source, destination, destinies, layout, planInput };
}

/**
 * Stages each labware the transfer filled, read or made, now owned by the transfer's user; returns them by
 * filling key. A plate that is the transfer's destination (`transfer.destination`) lists the transfer among
 * those into it.
 */
async function writeFillings(
  ctx: WriteContext,
  {
    type,
    source,
    fillings,
    transfer,
  }: { type: TransferType; source: StoredRecord; fillings: Map<FillingKey, Filling>; transfer: { id: number; destination: FillingKey; user: number } },
): Promise<Map<FillingKey, StoredRecord>> {
  const { barcode, name: sourceName, receptacles } = labwareAttrs(source);
  const named = { barcode: barcode.human_barcode, size: receptacles.length, name: sourceName };
  const made = [...fillings].filter(([, filling]) => !filling.record);
  const [reserved, purpose] = made.length > 0 ? await Promise.all([reserveLabware(ctx, made.length), poolTubePurpose(ctx)]) : [[], undefined];
  const written = new Map<FillingKey, StoredRecord>();
  for (const [key, filling] of fillings) {
    const name = filledName(type, filling.wells, named);
    if (filling.record) {
      const parents = accepted(linkParents(refOf(filling.record), parentsOf(filling.record), [refOf(source)]), relationshipAt);
      // A plate lists the transfers into it (the reference's `transfers_as_destination`, a relationship of plates only).
      const listed = key === transfer.destination && filling.record.type === 'plates' ? (labwareAttrs(filling.record).transfersAsDestination ?? []) : undefined;
      const into = listed ? { transfersAsDestination: [...listed, transfer.id] } : {};
      const attrs: Partial<Labware> = { ...filling.contents, ...into, owner: transfer.user, ...(name !== undefined ? { name } : {}) };
      written.set(key, ctx.uow.update(filling.record, { attrs: attrs as Record<string, unknown>, rels: { parents } }));
      continue;
    }
    const tube = await createLabware(
      ctx,
      'tubes',
      {
        purpose,
        parents: [refOf(source)],
        name: name ?? null,
        state: 'pending',
        ...filling.contents,
        owner: transfer.user,
        rackSlot: null,
        poolTube: filling.pool,
      },
      reserved[made.findIndex(([k]) => k === key)],
    );
    written.set(key, tube);
  }
  return written;
}

/** `transfers` of the plate-to-tubes types: each well's pool id replaced by the summary of its pool's tube. */
async function withTubeSummaries(ctx: WriteContext, recorded: Record<string, unknown>, written: Map<FillingKey, StoredRecord>) {
  const summaries = new Map<number, TubeSummary>();
  for (const [key, tube] of written) {
    if (key === 'destination') continue;
    const purpose = await ctx.loader.one(linkedTo(tube, 'purpose'));
    summaries.set(key, summarise(tube, String(purpose?.attrs.name ?? '')));
  }
  return Object.fromEntries(Object.entries(recorded).map(([well, value]) => [well, typeof value === 'number' ? summaries.get(value)! : value]));
}
