import * as z from '#lib/zod.ts';
import { QCABLE_STATES } from '#lib/domain/machines.ts';
import { LOT_TEMPLATE_CLASSES, lotTemplateType, printerTypeOf, templateClassOf } from '#lib/domain/qcables.ts';
import { refKey, type RequestContext, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, show } from '#lib/jsonapi/errors.ts';
import { accepted, attributeAt } from '#lib/jsonapi/problems.ts';
import { attr, computed, toMany, toOne, uuidOfAttribute, type ResourceDef, type WriteInput } from '#lib/jsonapi/resource.ts';
import { defaultCreate } from '#lib/jsonapi/write.ts';
import { linkOf, type StoredRecord } from '#lib/store/records.ts';
import { qcablesOfLots } from '#lib/resources/qcables.ts';
import { referenceResource, text, uniqueIndex } from '#lib/resources/reference.ts';

/**
 * Lots of consumables (tag plates, QC plates) and their types. Lot types are reference data, read-only
 * through the API; lots are loaded by the admin command line too (contract §5), and registered as they
 * arrive (contract §7.5, gatekeeper's lot registration) by any write key: created, never changed, so they
 * stay reference data a write may take from the process's cache.
 */

/** A rendered value read off the record each record links to by `relationship` (one batched read for all). */
function fromLinked<T>(relationship: string, value: (linked: StoredRecord) => T) {
  return async (ctx: RequestContext, records: StoredRecord[]): Promise<Map<StoredRecord, T | null>> => {
    const refs = records.flatMap((r) => linkOf(r, relationship) ?? []);
    const linked = await ctx.loader.load(refs);
    return new Map(
      records.map((r) => {
        const ref = linkOf(r, relationship);
        const record = ref && linked.get(refKey(ref));
        return [r, record ? value(record) : null];
      }),
    );
  };
}

const nameOf = (record: StoredRecord) => String(record.attrs.name);

export const lotTypes = referenceResource(
  'lot_types',
  {
    name: attr('R', text, { required: true }),
    // The reference takes this from the target purpose's default state (reference-behaviour §3.1); here
    // the lot type says it, since QC plates have no target purpose. Absent: qcables start `created`.
    qcable_initial_state: attr('R', () => z.enum(QCABLE_STATES)),
    // The class of the templates its lots name (the reference's LotType#template_class).
    template_class: attr('R', () => z.enum(LOT_TEMPLATE_CLASSES)),
    // What gatekeeper calls its lots' labware (the target purpose's name) and the printer their labels go to.
    qcable_name: attr('R', text, { load: fromLinked('target_purpose', nameOf) }),
    printer_type: attr('R', text, { load: fromLinked('target_purpose', (purpose) => printerTypeOf({ type: purpose.type, size: purpose.attrs.size })) }),
  },
  { indexes: { name: uniqueIndex('name') }, relationships: { target_purpose: toOne('plate_purposes', 'R', { linkedAs: 'purposes' }) } },
);

/** A date as the reference's `received_at` column holds it; a time sent is cut to its date. */
const receivedAt = () =>
  z.pipe(
    z.union([z.iso.date(), z.iso.datetime({ offset: true })]),
    z.transform((value: string) => value.slice(0, 10)),
  );

/** The reference's template id: a record id, as json_api_client sends it (a string) or as the reference renders it (a number). */
const templateId = () =>
  z.pipe(
    z.union([z.number().check(z.int(), z.positive()), z.string().check(z.regex(/^[1-9][0-9]{0,14}$/, 'must be a record id'))]),
    z.transform((id: number | string) => Number(id)),
  );

/** A lot's write input: what its create reads. */
interface LotInput {
  attributes: { template_type?: string | null; template_id?: number | null };
  relationships: { lot_type?: StoredRecord | null; user?: StoredRecord | null };
}

/**
 * The template a new lot names by class and id, read and checked against its lot type's class: a 422 at
 * `template_type` for a class that is not the lot type's (or not served), a 404 at `template_id` for an id
 * that names no template.
 */
async function lotTemplate(ctx: WriteContext, input: LotInput): Promise<StoredRecord> {
  const lotType = input.relationships.lot_type!;
  const { template_type: templateType, template_id: id } = input.attributes;
  const type = accepted(
    lotTemplateType({ name: nameOf(lotType), templateClass: lotType.attrs.template_class as string | undefined }, templateType!),
    attributeAt,
  );
  const template = await ctx.loader.one({ type, id: id! });
  if (!template) throw errors.notFound(`template_id - no ${type} with id ${show(id)}`, { pointer: '/data/attributes/template_id' });
  return template;
}

/** What the reference requires of a new lot beyond its number and type (Lot validations): its user, template and receipt date. */
function lotRequired(input: WriteInput) {
  return [
    ...(['template_type', 'template_id', 'received_at'] as const)
      .filter((name) => input.attributes[name] == null)
      .map((name) => errors.missingRequired(`/data/attributes/${name}`, name)),
    ...(input.relationships.user ? [] : [errors.missingRequired('/data/relationships/user', 'user')]),
  ];
}

const lotsDef = referenceResource(
  'lots',
  {
    lot_number: attr('RW', text, { required: true }),
    received_at: attr('RW', receivedAt),
    // The template by class and id (gatekeeper's), rendered from the template link that create stores.
    template_type: attr('RW', () => z.string(), { transient: true, get: (lot) => templateClassOf(linkOf(lot, 'template')?.type ?? '') ?? null }),
    template_id: attr('RW', templateId, { transient: true, get: (lot) => linkOf(lot, 'template')?.id ?? null }),
    lot_type_uuid: uuidOfAttribute('lot_type'),
    user_uuid: uuidOfAttribute('user'),
    lot_type_name: attr('R', text, { load: fromLinked('lot_type', nameOf) }),
    template_name: attr('R', text, { load: fromLinked('template', nameOf) }),
  },
  {
    indexes: { lot_number: uniqueIndex('lot_number') },
    relationships: {
      lot_type: toOne('lot_types', 'RW', { required: true }),
      user: toOne('users', 'RW'),
      // Lots of tag plates name the tag layout template their plates carry; limber includes it by either name.
      template: toOne('tag_layout_templates', 'R'),
      tag_layout_template: computed('one', 'tag_layout_templates', (lot) => linkOf(lot, 'template')),
      qcables: { ...toMany('qcables', 'R'), resolve: qcablesOfLots },
    },
  },
);

export const lots: ResourceDef = {
  ...lotsDef,
  methods: ['list', 'read', 'create'],
  registeredByWriteKeys: true,
  validate: async (_ctx, input) => lotRequired(input),
  create: async (ctx, input) => {
    const template = await lotTemplate(ctx, input as LotInput);
    return defaultCreate(ctx, lotsDef, { ...input, relationships: { ...input.relationships, template } });
  },
};
