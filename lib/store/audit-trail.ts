import { randomInt } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { bounded } from '#lib/store/bounded.ts';
import { dynamo } from '#lib/store/client.ts';
import { padId } from '#lib/store/records.ts';
import { tableDefinition } from '#lib/store/table.ts';
import { MARKER_ATTRIBUTES, readResolved, type Marked } from '#lib/store/visibility.ts';

/**
 * The audit trail of a labware (contract §7.6): one item per write that touched it, in the labware's own
 * partition (`$lts#audit_<family>_<id>`), sorted by the write's time. Written as a created item of the
 * write itself (lib/store/write-plan.ts), so it commits with what it records — in the one transaction, or
 * staged with its mark at a large write's commit point — and is never written over: its sort key holds a
 * number drawn for it, so writes to one labware never wait on each other for it, and writes to different
 * labware share no item. No TTL: it lives as long as the table keeps the labware (docs/decisions.md, "Audit trail").
 */

const { partitionKey: PK, sortKey: SK } = tableDefinition;

/** What an entry says about one write, as the engine derived it (lib/jsonapi/audit.ts). */
export interface AuditEntry {
  /** The labware's id (its trail's partition; the reader, which found the labware, knows its type). */
  labware_id: number;
  /** The write's time (its request's). */
  at: string;
  /** Drawn per entry: orders entries of one instant and names the entry (its JSON:API id). */
  n: number;
  /** Who: the user the write named (uuid, login) and the API key's name. */
  user: { uuid: string; login: string | null } | null;
  api_key: string | null;
  /** What: the event of the record the request was about (`state_changes.created`). */
  action: string;
  /** Every event of the write about this labware, its receptacles or records naming them, by event type. */
  changes: Record<string, number>;
  /** The request's own records that concern this labware, with their attributes (long values summarised). */
  subjects: { type: string; id: string; attributes: Record<string, unknown> }[];
  /** Subjects beyond those listed. */
  more_subjects: number;
}

const N_WIDTH = 15;

/**
 * An entry's number: drawn from 2^48 (15 digits, so its id is a record id: lib/jsonapi/resource.ts
 * isRecordId). Two entries of one labware at one millisecond draw the same one once in 10^14 pairs; the
 * Put's condition then refuses the second and its write starts again, drawing anew.
 */
export const drawEntryNumber = (): number => randomInt(1, 2 ** 48);

/** The family labware are stored in (lib/resources/labware.ts): a trail is a labware's, named by its id. */
export const LABWARE_FAMILY = 'labware';

export const auditPartition = (labwareId: number): string => `$lts#audit_${LABWARE_FAMILY}_${padId(labwareId)}`;
const auditSortKey = (at: string, n: number): string => `$audit_1#at_${at}#n_${String(n).padStart(N_WIDTH, '0')}`;

/** The Put of an entry: a new item (its key is drawn, so a taken one means a lost race: the write starts again). */
export function auditPut(entry: AuditEntry) {
  const Item = { ...entry, [PK]: auditPartition(entry.labware_id), [SK]: auditSortKey(entry.at, entry.n), __edb_e__: 'audit', __edb_v__: '1' };
  return {
    Item,
    TableName: config().LTS_TABLE_NAME,
    ConditionExpression: 'attribute_not_exists(#pk)',
    ExpressionAttributeNames: { '#pk': PK },
  };
}

/** Where an entry stands in its trail: its time, then its number (the order of its sort key). */
export interface TrailPosition {
  at: string;
  n: number;
}

/** One page of a trail, newest first, whether entries follow it, and how many entries the trail (or the ids asked for) holds. */
export interface TrailPage {
  entries: AuditEntry[];
  more: boolean;
  count: number;
}

/**
 * One page of a labware's trail, newest first, as readers see it: the entries of a large write not yet
 * committed are absent (lib/store/visibility.ts). A page reads what it shows, not the entries before it:
 * - the first page, or the page after a position (a walk's cursor): one Query from there for the page's
 *   entries and one more (more Queries only where uncommitted entries took places);
 * - a page by number, or of some entries (`ids`): the trail's keys first (sort key and marks, ~110 bytes
 *   an entry whatever its size), which count and locate the page, then its entries alone (`entriesAt`).
 * The count is exact: a walk's (`count`, carried by its cursor from its first page), or what a first page
 * that ends the trail read, or the keys counted.
 */
export async function readTrailPage(
  labwareId: number,
  page: { size: number; number: number; after?: TrailPosition; count?: number; ids?: ReadonlySet<number> },
): Promise<TrailPage> {
  const after = page.after && sortKeyOf(page.after);
  if (!page.ids && (after || page.number === 1)) {
    const read = await entriesFrom(labwareId, after, page.size);
    const count = page.count ?? (after || read.more ? (await visibleKeys(labwareId)).length : read.entries.length);
    return { ...read, count };
  }
  const keys = (await visibleKeys(labwareId)).filter((key) => !page.ids || page.ids.has(key.n));
  const start = after === undefined ? (page.number - 1) * page.size : keys.findIndex((key) => key.sk < after);
  const shown = start < 0 ? [] : keys.slice(start, start + page.size);
  return { entries: await entriesAt(labwareId, shown), more: start >= 0 && keys.length > start + page.size, count: keys.length };
}

/** Queries for a trail's entries run at once at most (the runs of entries `filter[id]` names). */
const MAX_PARALLEL_QUERIES = 4;

const sortKeyOf = (position: TrailPosition): string => auditSortKey(position.at, position.n);

/**
 * The trail's Query, newest first, resumed at `from` (DynamoDB's LastEvaluatedKey): its sort keys from
 * `high` down to `low` (inclusive), or only those below `below` — a walk's position, a key that may name no entry.
 */
function queryTrail(labwareId: number, range: { below?: string; high?: string; low?: string; limit?: number; keysOnly?: boolean }) {
  const pk = auditPartition(labwareId);
  const names = range.keysOnly ? Object.fromEntries(MARKER_ATTRIBUTES.map((a) => [`#${a}`, a])) : {};
  return (from: Record<string, unknown> | undefined) =>
    dynamo().send(
      new QueryCommand({
        TableName: config().LTS_TABLE_NAME,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
        ExpressionAttributeNames: { '#pk': PK, '#sk': SK, ...names },
        ExpressionAttributeValues: { ':pk': pk, ':low': range.low ?? PREFIX, ':high': range.high ?? PREFIX_END },
        ...(range.keysOnly ? { ProjectionExpression: ['#sk', ...Object.keys(names)].join(', ') } : {}),
        ...(range.limit ? { Limit: range.limit } : {}),
        ScanIndexForward: false,
        ConsistentRead: true,
        ...(from ? { ExclusiveStartKey: from } : range.below ? { ExclusiveStartKey: { [PK]: pk, [SK]: range.below } } : {}),
      }),
    );
}

/** Every sort key of a labware's trail (`$audit_1#…` sorts between these two), and the bound past them. */
const PREFIX = '$audit_1#';
const PREFIX_END = '$audit_1$';

/** A visible entry's key: its sort key, its number, and its place in the trail (0 the newest). */
interface TrailKey {
  sk: string;
  n: number;
  place: number;
}

/** The visible entries' keys, newest first (a page by number, or by id, is found in them). */
async function visibleKeys(labwareId: number): Promise<TrailKey[]> {
  const items = await readResolved(() => queryAll(queryTrail(labwareId, { keysOnly: true })) as Promise<Marked<Record<string, string>>[]>);
  return items.map((item, place) => ({ sk: item[SK]!, n: Number(item[SK]!.slice(item[SK]!.lastIndexOf('#n_') + 3)), place }));
}

/** Every item of a Query, following LastEvaluatedKey. */
async function queryAll(query: ReturnType<typeof queryTrail>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let from: Record<string, unknown> | undefined;
  do {
    const page = await query(from);
    items.push(...(page.Items ?? []));
    from = page.LastEvaluatedKey;
  } while (from);
  return items;
}

/** Up to `size` visible entries after `start` (or from the newest), read a Query of `size + 1` items at a time: more when one follows them. */
async function entriesFrom(labwareId: number, start: string | undefined, size: number): Promise<Omit<TrailPage, 'count'>> {
  const entries: AuditEntry[] = [];
  let from: Record<string, unknown> | undefined;
  let last: Record<string, unknown> | undefined;
  do {
    const query = queryTrail(labwareId, { ...(start ? { below: start } : {}), limit: size + 1 - entries.length });
    // Uncommitted entries read are not shown: the next Query goes on after the last item read, shown or not.
    const visible = await readResolved(async () => {
      const read = await query(from);
      last = read.LastEvaluatedKey;
      return (read.Items ?? []) as Marked<AuditEntry>[];
    });
    entries.push(...visible.map(entryOf));
    from = last;
  } while (from && entries.length <= size);
  return { entries: entries.slice(0, size), more: entries.length > size };
}

/**
 * The entries of these keys, newest first: one Query per run of adjacent keys (a page by number is one run;
 * the entries `filter[id]` names may be several), so nothing is read but them and uncommitted entries among them.
 */
async function entriesAt(labwareId: number, keys: readonly TrailKey[]): Promise<AuditEntry[]> {
  const runs: TrailKey[][] = [];
  for (const key of keys) {
    const run = runs.at(-1);
    if (run && run.at(-1)!.place === key.place - 1) run.push(key);
    else runs.push([key]);
  }
  const wanted = new Set(keys.map((key) => key.sk));
  const read = new Map<TrailKey[], Record<string, unknown>[]>();
  await bounded(runs, MAX_PARALLEL_QUERIES, async (run) => {
    read.set(run, await queryAll(queryTrail(labwareId, { high: run[0]!.sk, low: run.at(-1)!.sk })));
  });
  // Listed visible, they stay so (an entry is never changed or deleted once committed); others are of writes the keys did not show.
  return runs
    .flatMap((run) => read.get(run)!)
    .filter((item) => wanted.has(item[SK] as string))
    .map((item) => entryOf(item as unknown as Marked<AuditEntry>));
}

/** An entry as stored, less its keys, its entity names and a large write's marks. */
function entryOf(item: Marked<AuditEntry>): AuditEntry {
  const { [PK]: _pk, [SK]: _sk, __edb_e__: _e, __edb_v__: _v, tx: _tx, txOp: _op, ...entry } = item as Marked<AuditEntry> & Record<string, unknown>;
  return entry as unknown as AuditEntry;
}
