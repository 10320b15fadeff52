import { randomInt } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config.ts';
import { dynamo } from '#lib/store/client.ts';
import { padId, type Ref } from '#lib/store/records.ts';
import { tableDefinition } from '#lib/store/table.ts';
import { readResolved, type Marked } from '#lib/store/visibility.ts';

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
  labware: Ref;
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

export const auditPartition = (labware: { family: string; id: number }): string => `$lts#audit_${labware.family}_${padId(labware.id)}`;
const auditSortKey = (at: string, n: number): string => `$audit_1#at_${at}#n_${String(n).padStart(N_WIDTH, '0')}`;

/** The Put of an entry: a new item (its key is drawn, so a taken one means a lost race: the write starts again). */
export function auditPut(entry: AuditEntry, family: string) {
  const Item = { ...entry, [PK]: auditPartition({ family, id: entry.labware.id }), [SK]: auditSortKey(entry.at, entry.n), __edb_e__: 'audit', __edb_v__: '1' };
  return {
    Item,
    TableName: config().LTS_TABLE_NAME,
    ConditionExpression: 'attribute_not_exists(#pk)',
    ExpressionAttributeNames: { '#pk': PK },
  };
}

/**
 * A labware's whole trail, newest first, as readers see it: the entries of a large write not yet committed
 * are absent (lib/store/visibility.ts). Read whole (1 MB a call: about a thousand entries), so a page and
 * its count come from one view; a labware's writes are hundreds over its life, not thousands.
 */
export async function readTrail(labware: { family: string; id: number }): Promise<AuditEntry[]> {
  const read = async () => {
    const items: Marked<AuditEntry>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          TableName: config().LTS_TABLE_NAME,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': PK, '#sk': SK },
          ExpressionAttributeValues: { ':pk': auditPartition(labware), ':prefix': '$audit_1#' },
          ScanIndexForward: false,
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...((page.Items ?? []) as Marked<AuditEntry>[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };
  const entries = await readResolved(read);
  return entries.map((item) => {
    const { [PK]: _pk, [SK]: _sk, __edb_e__: _e, __edb_v__: _v, ...entry } = item as AuditEntry & Record<string, unknown>;
    return entry as AuditEntry;
  });
}
