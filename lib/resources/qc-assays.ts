import * as z from '#lib/zod.ts';
import { canonicalBarcode } from '#lib/domain/barcode.ts';
import { MAX_QC_RESULTS_PER_ASSAY, QC_TEXT_MAX, qcAssayItems, withinRequest } from '#lib/domain/budgets.ts';
import { labwareOfQcResult, qcResultId } from '#lib/domain/labware-ids.ts';
import { addQcResults, qcSlot, type QcHolderKind, type QcResultContent, type QcSlot } from '#lib/domain/qc-results.ts';
import type { WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { attr, lazySchema, defineResource, timestamp, timestamps, toMany, toOne } from '#lib/jsonapi/resource.ts';
import { findHolders, type Ref, type StoredRecord } from '#lib/store/records.ts';
import { LABWARE_TYPES, plates } from '#lib/resources/labware.ts';
import { qcResultCount, qcResultViews } from '#lib/resources/labware-views.ts';
import { labwareAttrs } from '#lib/operations/labware-records.ts';
import { attributeAt, problemErrors, throwProblems, type Locate } from '#lib/jsonapi/problems.ts';

/**
 * QC assays and their results (contract §2, reference-behaviour.md §2.13). An assay is a record of its
 * own; each result lives inside the labware it measures (lib/domain/qc-results.ts), so an upload is the
 * assay plus one update per labware, all or nothing.
 */

const text = lazySchema(() => z.string().check(z.trim(), z.minLength(1), z.maxLength(QC_TEXT_MAX)));
const lotNumber = lazySchema(() => z.string().check(z.maxLength(QC_TEXT_MAX)));
/** Plate readers send measurements as strings, limber's calculators as numbers: stored as text. */
const measurement = lazySchema(() => z.pipe(z.union([z.string().check(z.trim(), z.minLength(1), z.maxLength(QC_TEXT_MAX)), z.number()]), z.transform(String)));

/** One entry of `qc_results` as clients send it; other members (the reference's `id`) are dropped. */
const qcResultEntry = lazySchema(() =>
  z.object({
    uuid: z.optional(z.string()),
    barcode: z.optional(z.string()),
    well_location: z.optional(z.string()),
    key: text(),
    value: measurement(),
    units: text(),
    cv: z.optional(z.nullable(measurement())),
    assay_type: z.optional(z.nullable(text())),
    assay_version: z.optional(z.nullable(text())),
  }),
);
type QcResultEntry = z.infer<ReturnType<typeof qcResultEntry>>;

const KINDS: Record<string, QcHolderKind> = { plates: 'plate', tubes: 'tube', tube_racks: 'rack' };

/** The member of an entry that names its labware: `uuid` wins over `barcode` (as in the reference). */
const identifierOf = (entry: QcResultEntry): 'uuid' | 'barcode' | undefined =>
  entry.uuid !== undefined ? 'uuid' : entry.barcode !== undefined ? 'barcode' : undefined;

/** Problems of entry `n` point into it; `labware` means the member that named it. */
const entryAt =
  (n: number, entry: QcResultEntry): Locate =>
  (path) => ({
    pointer: pointer('data', 'attributes', 'qc_results', n, ...path.map((p) => (p === 'labware' ? identifierOf(entry)! : p))),
    field: 'qc_results',
  });

/**
 * The labware of every entry, by uuid (one batched read) or by barcode in any form (the barcode guards,
 * read consistently): a 422 for an entry naming none, a 404 for one naming nothing there is.
 */
async function labwareOfEntries(ctx: WriteContext, entries: readonly QcResultEntry[]): Promise<StoredRecord[]> {
  const barcodes = entries.filter((e) => identifierOf(e) === 'barcode').map((e) => canonicalBarcode(e.barcode!));
  const [byUuid, holders] = await Promise.all([
    ctx.loader.byUuids(
      entries.map((e) => e.uuid ?? ''),
      LABWARE_TYPES,
    ),
    findHolders(ctx.registry.indexScope(plates, 'barcode_guard'), barcodes),
  ]);
  const byBarcode = await ctx.loader.load([...holders.values()].map((hit) => ({ type: hit.type, id: hit.id })));
  const problems: JsonApiError[] = [];
  const found = entries.map((entry, n) => {
    const identifier = identifierOf(entry);
    const at = (member: string) => pointer('data', 'attributes', 'qc_results', n, member);
    if (!identifier) {
      problems.push(errors.missingRequired(at('uuid'), `qc_results.${n}.uuid or qc_results.${n}.barcode`));
      return undefined;
    }
    const hit = identifier === 'barcode' ? holders.get(canonicalBarcode(entry.barcode!)) : undefined;
    const labware = identifier === 'uuid' ? byUuid[n] : hit && byBarcode.get(`${hit.type}:${hit.id}`);
    if (!labware) problems.push(errors.notFound(`qc_results - no labware with ${identifier} ${show(entry[identifier])}`, { pointer: at(identifier) }));
    return labware;
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  return found as StoredRecord[];
}

/** What an entry measured, as stored: optional members it left out are null. */
const measuredBy = (entry: QcResultEntry) => ({
  key: entry.key,
  value: entry.value,
  units: entry.units,
  cv: entry.cv ?? null,
  assay_type: entry.assay_type ?? null,
  assay_version: entry.assay_version ?? null,
});

const resultOf = (entry: QcResultEntry, assay: number, createdAt: string): QcResultContent => ({ assay, ...measuredBy(entry), created_at: createdAt });

/** The entries grouped by their labware, each with the slot its result goes to; every misplaced entry a 422. */
function placeEntries(entries: readonly QcResultEntry[], labware: readonly StoredRecord[]): Map<StoredRecord, { n: number; slot: QcSlot }[]> {
  const problems: JsonApiError[] = [];
  const groups = new Map<StoredRecord, { n: number; slot: QcSlot }[]>();
  entries.forEach((entry, n) => {
    const record = labware[n]!;
    const slot = qcSlot(KINDS[record.type]!, labwareAttrs(record), `${record.type} ${record.id}`, entry.well_location);
    if (!slot.ok) problems.push(...problemErrors(slot.problems, entryAt(n, entry)));
    else groups.set(record, [...(groups.get(record) ?? []), { n, slot: slot.value }]);
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  throwProblems(withinRequest(qcAssayItems(groups.size), `the results in ${groups.size} labware`, ['qc_results']), attributeAt);
  return groups;
}

/**
 * The results an upload created, as the `qc_results` attribute of its response lists them: in the order
 * sent, each naming its labware by uuid (also when it was sent by barcode), with the values as stored.
 */
const createdEntries = (entries: readonly QcResultEntry[], labware: readonly StoredRecord[]): QcResultEntry[] =>
  entries.map((entry, n) => ({
    uuid: labware[n]!.uuid,
    ...(entry.well_location !== undefined ? { well_location: entry.well_location } : {}),
    ...measuredBy(entry),
  }));

export const qcAssays = defineResource({
  type: 'qc_assays',
  methods: ['list', 'read', 'create'],
  // Plate readers send no `type`; the spec's own example sends the singular.
  acceptedTypes: ['', 'qc_assay'],
  attributes: {
    // Stored as sent, an empty one too: quanthub's form sends "" when no kit lot is typed (contract §7.4), and the reference keeps it.
    lot_number: attr('WO', lotNumber),
    // Rendered only in the POST response (createdEntries): the results live in their labware, and listing them on a read would cost that read.
    qc_results: attr('RW', () => z.array(qcResultEntry()), { transient: true }),
    ...timestamps,
  },
  relationships: { qc_results: toMany('qc_results', 'R') },
  filters: {},

  /** The assay and its results, each stored in its labware: one update per labware, whatever the number of results. */
  create: async (ctx, input) => {
    const entries = input.attributes.qc_results ?? [];
    if (entries.length > MAX_QC_RESULTS_PER_ASSAY) {
      throw errors.tooLarge('/data/attributes/qc_results', `qc_results - ${entries.length} results; one QC assay records at most ${MAX_QC_RESULTS_PER_ASSAY}`);
    }
    const labware = await labwareOfEntries(ctx, entries);
    const groups = placeEntries(entries, labware);
    const [assay] = await ctx.uow.allocateIds('qc_assays', 1);
    const ids: number[] = [];
    const problems: JsonApiError[] = [];
    for (const [holder, placed] of groups) {
      const before = labwareAttrs(holder);
      const added = placed.map(({ n, slot }) => ({ slot, result: resultOf(entries[n]!, assay!, ctx.now) }));
      const after = addQcResults(before, `${holder.type} ${holder.id}`, added);
      if (!after.ok) {
        const first = placed[0]!.n;
        problems.push(...problemErrors(after.problems, entryAt(first, entries[first]!)));
        continue;
      }
      const { receptacles, qc_results, qcResultCount } = after.value;
      ctx.uow.update(holder, { attrs: { receptacles, qcResultCount, ...(qc_results ? { qc_results } : {}) } });
      for (const [i, { n }] of placed.entries()) ids[n] = qcResultId(holder.id, (before.qcResultCount ?? 0) + i + 1);
    }
    if (problems.length > 0) throw JsonApiError.all(problems);
    const record = await ctx.uow.create('qc_assays', {
      id: assay!,
      attrs: { lot_number: input.attributes.lot_number ?? null },
      rels: { qc_results: ids.map((id): Ref => ({ type: 'qc_results', id })) },
    });
    // The response's record, not the stored one: it lists what this upload created.
    return { ...record, attrs: { ...record.attrs, qc_results: createdEntries(entries, labware) } };
  },
});

/** A QC result: a view of the labware holding it (lib/resources/labware-views.ts). */
export const qcResults = defineResource({
  type: 'qc_results',
  family: 'qc_results',
  methods: ['list', 'read'],
  embedded: { parentTypes: ['plates', 'tubes'], parentId: labwareOfQcResult, extract: qcResultViews, count: qcResultCount },
  attributes: {
    key: attr('R', () => z.string()),
    value: attr('R', () => z.string()),
    units: attr('R', () => z.string()),
    cv: attr('R', () => z.string()),
    assay_type: attr('R', () => z.string()),
    assay_version: attr('R', () => z.string()),
    created_at: attr('R', timestamp),
  },
  relationships: {
    asset: toOne(['receptacles', 'labware'], 'R'),
    qc_assay: toOne('qc_assays', 'R'),
  },
  filters: {},
});
