import { randomInt, randomUUID } from 'node:crypto';
import { layoutForSize, positionIndex } from '#lib/domain/geometry.ts';
import { slotId } from '#lib/domain/labware-ids.ts';
import type { Labware, Tag } from '#lib/domain/labware.ts';
import { applyMoves, type MaterialMove, type OpenRequest } from '#lib/domain/material-moves.ts';
import { destinyOf } from '#lib/domain/material-moves.ts';
import { decodeUuid, familyCode } from '#lib/store/uuids.ts';
import type { EventEnvelope } from '#lib/store/request-payload.ts';
import { auditOps } from './audit.ts';
import { newRecord, nextId, problem, requestPut } from './create.ts';
import type { Db, Item } from './db.ts';
import { COUNT_SHARDS, countShardKey, parentLinkPut, recordKey } from './keys.ts';
import { final } from './large-write.ts';
import type { Answer } from './reads.ts';
import { openRequestsOut } from './requests-out.ts';

/**
 * The floor's lab writes: a stamp (POST /transfers with a plate-to-plate template) and a tag layout (POST
 * /tag_layouts, `column` / `wells of plate`) with the least DynamoDB work that writes the same items as the
 * service: one batched read of what the request names (for a stamp, with the requests out of its source
 * beside it), the new record's id, and one transaction of the changed plate, the new record, its index
 * item, the count shards and the request item with the events.
 * The changed plate goes to the floor's own table without the service's version condition (nothing else
 * writes it there), which makes the floor a little lower still.
 */

const FAMILIES = ['transfer_templates', 'labware', 'users', 'tag_groups'];
const byCode = new Map(FAMILIES.map((family) => [familyCode(family), family]));

/** The record key a uuid names (uuids encode their record's family and id). */
function keyOf(uuid: unknown) {
  const decoded = typeof uuid === 'string' ? decodeUuid(uuid) : undefined;
  const family = decoded && byCode.get(decoded.code);
  return family ? recordKey(family, decoded!.id) : undefined;
}

export type Attributes = Record<string, unknown>;

/** The attributes of a write document of `type`, if the body is one. */
export function parse(body: string | undefined, type: string): Attributes | undefined {
  try {
    const input = JSON.parse(body ?? '') as { data?: { type?: string; attributes?: Attributes } };
    return input.data?.type === type ? (input.data.attributes ?? {}) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the records the uuids name, in order (one BatchGetItem). */
async function load(db: Db, table: string, uuids: unknown[]): Promise<(Item | undefined)[] | undefined> {
  const keys = uuids.map(keyOf);
  if (keys.some((k) => !k)) return undefined;
  const items = await db.batchGet(table, keys as { pk: string; sk: string }[]);
  return keys.map((k) => items.find((item) => item.pk === k!.pk));
}

const labwareOf = (item: Item): Labware => item.attrs as Labware;

/** One more record of a family in one of its count shards (a plain ADD), as a transaction's Update. */
export const countUpdate = (table: string, family: string) => ({
  Update: {
    TableName: table,
    Key: countShardKey(family, randomInt(COUNT_SHARDS)),
    UpdateExpression: 'ADD #n :one',
    ExpressionAttributeNames: { '#n': `n:${family}` },
    ExpressionAttributeValues: { ':one': 1 },
  },
});

/** Commits the changed plate and a new record with its events, as one transaction. */
async function commit(
  db: Db,
  table: string,
  base: string,
  change: {
    plate: Item;
    plateAttrs: Labware;
    type: string;
    id: number;
    attrs: Attributes;
    rels: Attributes;
    /** Index entries the change adds (a stamp's parent link), as a transaction's Puts. */
    entries: object[];
    /** Families whose record counts change (the new record's; `labware` when aliquots were added). */
    counted: string[];
  },
): Promise<Answer> {
  const now = new Date().toISOString();
  const record = newRecord(now, change.type, change.id, change.attrs, change.rels);
  const plate: Item = { ...change.plate, attrs: change.plateAttrs, updatedAt: now, version: Number(change.plate.version) + 1 };
  const data = {
    type: change.type,
    id: String(change.id),
    attributes: { uuid: record.uuid, ...change.attrs },
    links: { self: `${base}/api/v2/${change.type}/${change.id}` },
  };
  const plateData = { type: 'plates', id: String(plate.id), attributes: { uuid: plate.uuid, name: change.plateAttrs.name } };
  const event = (type: string, resource: Item, body: unknown) => ({
    id: randomUUID(),
    type,
    occurred_at: now,
    resource: { type: resource.type, id: String(resource.id), uuid: resource.uuid },
    data: body,
    actor: null,
  });
  const events = [event(`${change.type}.created`, record, data), event('plates.updated', plate, plateData)] as EventEnvelope[];
  // The plate and the plates the change names (a stamp's source, which the plate's new transfer requests name too):
  // both events touch each.
  const named = Object.values(change.rels).filter((ref): ref is { type: 'plates'; id: number } => (ref as { type?: string } | null)?.type === 'plates');
  const plates = [...new Set([plate.id as number, ...named.map((ref) => ref.id)])];
  const audit = auditOps(
    now,
    events[0]!,
    plates.map((id) => ({ labware: { type: 'plates', id }, events })),
  );
  await db.transact({
    TransactItems: [
      { Put: { TableName: table, Item: plate } },
      { Put: { TableName: table, Item: record } },
      ...audit.map((op) => final(table, op)),
      ...change.entries,
      ...change.counted.map((family) => countUpdate(table, family)),
      requestPut(table, now, events),
    ],
  });
  return { status: 201, headers: { Location: data.links.self }, body: { data, links: data.links } };
}

/**
 * POST /api/v2/transfers by a plate-to-plate template with a map: each good listed well's aliquots copied,
 * with a transfer request, by the service's planner (lib/domain/material-moves.ts). Each copy carries its
 * pool and outer request along, from the requests out of the source's wells, looked up beside the batched
 * read as the service looks them up (lib/operations/material-moves.ts).
 */
export async function stamp(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  const input = parse(body, 'transfers');
  if (!input) return problem(400, 'a transfers document is needed');
  const sourceId = typeof input.source_uuid === 'string' ? decodeUuid(input.source_uuid)?.id : undefined;
  const [found, open] = await Promise.all([
    load(db, table, [input.transfer_template_uuid, input.source_uuid, input.destination_uuid, input.user_uuid]),
    sourceId === undefined ? new Map<number, OpenRequest[]>() : openRequestsOut(db, table, sourceId),
  ]);
  if (!found || found.some((item) => !item)) return problem(404, 'a record named is missing');
  const [template, source, destination, user] = found as Item[];
  const map = (template!.attrs as { transfers: Record<string, string> }).transfers;
  const [from, to] = [labwareOf(source!), labwareOf(destination!)];
  const [fromLayout, toLayout] = [layoutForSize(from.receptacles.length)!, layoutForSize(to.receptacles.length)!];
  const used: Record<string, string> = {};
  const moves: MaterialMove<'destination'>[] = [];
  for (const [sourceWell, destinationWell] of Object.entries(map)) {
    const slot = positionIndex(fromLayout, sourceWell)! + 1;
    const well = from.receptacles[slot - 1]!;
    if (well.aliquots.length === 0) continue;
    const id = slotId(source!.id as number, slot);
    const destiny = destinyOf(well, open.get(id) ?? []);
    moves.push({
      source: { id, receptacle: well, tube: false, ...destiny, volume: null },
      target: 'destination',
      slot: positionIndex(toLayout, destinationWell)! + 1,
    });
    used[sourceWell] = destinationWell;
  }
  const applied = applyMoves(new Map([['destination' as const, to]]), moves, (_, slot) => `well ${slot}`);
  if (!applied.ok) return problem(422, applied.problems.map((p) => p.detail).join('; '));
  const { receptacles, aliquotCount, transferRequestCount } = applied.value.get('destination')!;
  const id = await nextId(db, table, 'transfers');
  return commit(db, table, base, {
    plate: destination!,
    // Now the user's, and listing the transfer among those into it, as the service records a stamp (lib/operations/transfer.ts).
    plateAttrs: {
      ...to,
      receptacles,
      aliquotCount,
      transferRequestCount,
      transfersAsDestination: [...(to.transfersAsDestination ?? []), id],
      owner: user!.id as number,
    },
    type: 'transfers',
    id,
    attrs: { transfer_type: 'Transfer::BetweenPlates', transfers: used },
    rels: { source: { type: 'plates', id: source!.id }, destination: { type: 'plates', id: destination!.id }, user: { type: 'users', id: user!.id } },
    entries: [parentLinkPut(table, source!.id as number, destination!)],
    counted: ['transfers', 'labware'],
  });
}

/** POST /api/v2/tag_layouts, `column` / `wells of plate` with `replace_tags`: well n of the column order takes tag n + initial_tag. */
export async function tagLayout(db: Db, table: string, base: string, body: string | undefined): Promise<Answer> {
  const input = parse(body, 'tag_layouts');
  if (input?.direction !== 'column' || input.walking_by !== 'wells of plate') return problem(400, 'only column / wells of plate');
  const found = await load(db, table, [input.plate_uuid, input.tag_group_uuid, input.user_uuid]);
  if (!found || found.some((item) => !item)) return problem(404, 'a record named is missing');
  const [plate, group, user] = found as Item[];
  const tags = [...((group!.attrs as { tags: Tag[] }).tags ?? [])].sort((a, b) => a.index - b.index);
  const initial = Number(input.initial_tag ?? 0);
  const attrs = labwareOf(plate!);
  const receptacles = attrs.receptacles.map((well, i) => {
    const tag = tags[(i + initial) % tags.length]!;
    return well.aliquots.length === 0 ? well : { ...well, aliquots: well.aliquots.map((a) => ({ ...a, tag, tag2: null })) };
  });
  const id = await nextId(db, table, 'tag_layouts');
  return commit(db, table, base, {
    plate: plate!,
    plateAttrs: { ...attrs, receptacles },
    type: 'tag_layouts',
    id,
    attrs: { direction: 'column', walking_by: 'wells of plate', initial_tag: initial, tags_per_well: null, substitutions: {} },
    rels: {
      plate: { type: 'plates', id: plate!.id },
      tag_group: { type: 'tag_groups', id: group!.id },
      tag2_group: null,
      user: { type: 'users', id: user!.id },
    },
    entries: [],
    counted: ['tag_layouts'],
  });
}
