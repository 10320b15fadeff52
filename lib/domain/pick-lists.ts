import { outcome, type Outcome, type Problem } from '#lib/domain/problems.ts';

/**
 * Pick lists (the reference's PickList, PickList::Pick and PickList::RecordCache): receptacles to
 * cherrypick, each for a study and a project, grouped into one order per (study, project) of a submission
 * of `cherrypick` requests. Pure: which study and project each pick is for, and the orders they make.
 */

/** The request type a pick list's requests are of (the reference's PickList::REQUEST_TYPE_KEY). */
export const PICK_REQUEST_TYPE = 'cherrypick';

/** What an aliquot of a picked receptacle says it is for. */
export interface PickedAliquot {
  study: number | null;
  project?: number | null;
}

/** A pick as read: where the request named it (the entry's path) and the field that did, its receptacle and what it holds, the study and project named (null: not named). */
export interface Pick {
  at: readonly string[];
  field: string;
  receptacle: number;
  aliquots: readonly PickedAliquot[];
  study: number | null;
  project: number | null;
}

/** An order a pick list makes: its study and project (null for a cross-study or cross-project pool) and the receptacles picked for them, in the order named. */
export interface PickOrder {
  study: number | null;
  project: number | null;
  receptacles: number[];
}

/** The one value the aliquots carry, `several` when they carry more (a pool), `none` when none carries one. */
function carried(values: readonly (number | null | undefined)[]): number | 'several' | 'none' {
  const distinct = [...new Set(values.filter((v): v is number => typeof v === 'number'))];
  return distinct.length === 1 ? distinct[0]! : distinct.length > 1 ? 'several' : 'none';
}

/**
 * The study (or project) of a pick: the one named, else the one its receptacle's aliquots carry (the
 * reference's Pick#study); none for a pool of several (a cross-study order); a problem when neither says.
 */
function resolve(pick: Pick, what: 'study' | 'project', problems: Problem[]): number | null {
  const named = pick[what];
  if (named !== null) return named;
  const fromAliquots = carried(pick.aliquots.map((a) => a[what]));
  if (fromAliquots === 'several') return null;
  if (fromAliquots !== 'none') return fromAliquots;
  problems.push({
    code: 'blank',
    input: [...pick.at, `${what}_id`],
    detail: `receptacle ${pick.receptacle}'s aliquots name no ${what}; name one with ${what}_id`,
  });
  return null;
}

/**
 * The orders of a pick list (the reference's PickList#pick_attributes=, grouping picks by their order
 * options): one per study and project, in the order each was first named. A receptacle with no aliquot
 * has nothing to pick.
 */
export function pickOrders(picks: readonly Pick[]): Outcome<PickOrder[]> {
  const problems: Problem[] = [];
  const orders = new Map<string, PickOrder>();
  for (const pick of picks) {
    if (pick.aliquots.length === 0) {
      problems.push({ code: 'blank', input: [...pick.at, pick.field], detail: `receptacle ${pick.receptacle} holds no aliquots, so there is nothing to pick` });
      continue;
    }
    const [study, project] = [resolve(pick, 'study', problems), resolve(pick, 'project', problems)];
    const key = `${study}:${project}`;
    const order = orders.get(key) ?? orders.set(key, { study, project, receptacles: [] }).get(key)!;
    order.receptacles.push(pick.receptacle);
  }
  return outcome(problems, () => [...orders.values()]);
}
