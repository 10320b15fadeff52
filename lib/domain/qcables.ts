import { qcableMachine, type QcableState } from '#lib/domain/machines.ts';
import type { GivenBarcode } from '#lib/domain/barcode.ts';
import { qcableCreatorItems, withinRequest } from '#lib/domain/budgets.ts';
import { ok, outcome, quoted, refuse, type Outcome } from '#lib/domain/problems.ts';
import { isState, moveTo, type Step } from '#lib/domain/state-machine.ts';

/**
 * Qcable rules (reference-behaviour.md §3.1, contract §2). A lot type may name the state its new
 * qcables start in (tag plates `created`, QC plates `pending`); without one they start where the
 * machine does.
 */
export function initialQcableState(configured: unknown): QcableState {
  return isState(qcableMachine, configured) ? configured : qcableMachine.initial;
}

/**
 * A requested target state: the one event leading there from the qcable's current state, or a refusal
 * naming the current state, the target and the states reachable from here.
 */
export function qcableStateChange(current: unknown, target: string): Step<QcableState, string> {
  // A stored state outside the machine would be a fault of ours, not the client's.
  if (!isState(qcableMachine, current)) throw new Error(`qcable in unknown state ${String(current)}`);
  return moveTo(qcableMachine, current, target);
}

/**
 * The template classes of the reference's lot types (LotType#template_class) and the type each is served
 * as here. A lot names its template by class and id (`template_type`, `template_id`), as gatekeeper sends
 * them; only tag layout templates are served, so a lot of another class cannot be registered yet.
 */
export const LOT_TEMPLATE_CLASSES = ['TagLayoutTemplate', 'Tag2LayoutTemplate', 'PlateTemplate', 'TagSet'] as const;
export type LotTemplateClass = (typeof LOT_TEMPLATE_CLASSES)[number];
export const SERVED_TEMPLATE_TYPES: Partial<Record<LotTemplateClass, string>> = { TagLayoutTemplate: 'tag_layout_templates' };

/** The class a served template type stands for (a lot's `template_type` rendered from its template link). */
export const templateClassOf = (type: string): LotTemplateClass | undefined =>
  (Object.entries(SERVED_TEMPLATE_TYPES) as [LotTemplateClass, string][]).find(([, served]) => served === type)?.[0];

/**
 * A lot's template must be of its lot type's class (the reference's Lot#valid_template?) and of a class
 * served here: the problems at `template_type`, else the type its `template_id` names a record of.
 */
export function lotTemplateType(lotType: { name: string; templateClass: string | undefined }, templateType: string): Outcome<string> {
  const at = ['template_type'];
  if (templateType !== lotType.templateClass) {
    const expected = lotType.templateClass ?? 'none (the lot type names no template class)';
    return refuse([
      {
        code: 'wrong_template',
        input: at,
        detail: `${quoted(templateType)} is not the template class of lot type ${quoted(lotType.name)}: expected ${expected}`,
      },
    ]);
  }
  const served = SERVED_TEMPLATE_TYPES[templateType as LotTemplateClass];
  if (!served)
    return refuse([
      {
        code: 'wrong_template',
        input: at,
        detail: `${quoted(templateType)} templates are not served here; lots can name ${Object.keys(SERVED_TEMPLATE_TYPES).join(', ')}`,
      },
    ]);
  return ok(served);
}

/**
 * The printer type of labware of a purpose (the reference's Purpose#barcode_printer_type, which gatekeeper
 * reads as a lot type's `printer_type` to pick the printer for its qcables' labels): tubes print on tube
 * printers, plates on the printer of their size.
 */
export function printerTypeOf(purpose: { type: string; size?: unknown }): string {
  if (purpose.type === 'tube_purposes') return '1D Tube';
  return Number(purpose.size) === 384 ? '384 Well Plate' : '96 Well Plate';
}

/**
 * The barcodes a qcable creator is given (the reference's `barcodes`: one string, comma-separated, as
 * gatekeeper uploads a supplier's plate list; a list is taken too): one qcable each, in order. An empty
 * entry is a problem at its place; a barcode given twice is found with the others' (barcodesOnce).
 */
export function qcableBarcodes(barcodes: string | readonly string[]): Outcome<GivenBarcode[]> {
  // Entries of one string are all at `barcodes` (a pointer cannot go inside a string); a list's at each entry.
  const joined = typeof barcodes === 'string';
  const list = joined ? barcodes.split(',') : barcodes;
  const given = list.map((barcode, i) => ({ barcode: barcode.trim(), input: joined ? ['barcodes'] : ['barcodes', String(i)] }));
  const blank = given.flatMap((g, i) => (g.barcode === '' ? [{ code: 'blank' as const, input: g.input, detail: `entry ${i} is empty` }] : []));
  return outcome(blank, () => given);
}

/** What a qcable creator makes: `count` qcables, on labware with the given barcodes when it names them. */
export interface QcablesToMake {
  count: number;
  barcodes?: GivenBarcode[];
}

/**
 * A qcable creator's input (the reference's QcableCreator#make_qcables!): `count` new qcables, or one per
 * barcode of `barcodes` — one of the two (the reference makes both when both are sent; here that is a
 * problem, as is neither) —, within the bound of one request. Barcodes given twice or taken are the
 * labware factory's to find (checkGivenBarcodes).
 */
export function qcablesToMake(count: number | null | undefined, barcodes: string | readonly string[] | null | undefined): Outcome<QcablesToMake> {
  if (count != null && barcodes != null)
    return refuse([{ code: 'count_or_barcodes', input: ['barcodes'], detail: `give count or barcodes, not both (count is ${count})` }]);
  if (count == null && barcodes == null) return refuse([{ code: 'count_or_barcodes', input: ['count'], detail: 'give count or barcodes' }]);
  const given = barcodes == null ? undefined : qcableBarcodes(barcodes);
  if (given && !given.ok) return given;
  const made = given ? { count: given.value.length, barcodes: given.value } : { count: count! };
  return outcome(withinRequest(qcableCreatorItems(made.count), `${made.count} qcables`, [given ? 'barcodes' : 'count']), () => made);
}
