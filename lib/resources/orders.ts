import * as z from '#lib/zod.ts';
import { parseSlotUuid, slotId } from '#lib/domain/labware-ids.ts';
import { detectStudy, MAX_ASSETS_PER_ORDER, multiplierProblems, requestOptionsProblems } from '#lib/domain/submissions.ts';
import { refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import {
  aggregateIndex,
  attr,
  defineResource,
  lazySchema,
  timestamps,
  toMany,
  toOne,
  uuidAttribute,
  uuidFilter,
  uuidOfAttribute,
  type WriteInput,
} from '#lib/jsonapi/resource.ts';
import { defaultCreate } from '#lib/jsonapi/write.ts';
import { labwareAttrs, receptacleType } from '#lib/operations/labware-records.ts';
import type { BookedRef } from '#lib/domain/request-books.ts';
import { chained, requestTypesByKey } from '#lib/operations/submission-build.ts';
import { accepted, attributeAt, problemErrors } from '#lib/jsonapi/problems.ts';
import { refsOf, type Ref, type StoredRecord } from '#lib/store/records.ts';

/**
 * Orders (contract §3, §6): what a submission is asked to do for a study — request types, the assets
 * (receptacles) they start from, request options. Made as Limber makes them, from a submission template
 * (`submission_template_uuid`, `submission_template_attributes`; the reference's OrderProcessor and
 * AutomatedOrder) before any submission, which takes them by `order_uuids`
 * (lib/resources/submissions.ts); or, as before, for an existing `submission` with its `request_types`.
 */

const TEMPLATE_UUID = '/data/attributes/submission_template_uuid';
const TEMPLATE_ATTRIBUTES = 'submission_template_attributes';
const uuidText = lazySchema(() => z.string({ error: 'must be a uuid string' }).check(z.minLength(1)));
const requestOptions = lazySchema(() => z.record(z.string(), z.unknown()));

/** What Limber sends in `submission_template_attributes` (the reference permits these and no more). */
const templateAttributes = lazySchema(() =>
  z.strictObject({
    request_options: requestOptions(),
    user_uuid: uuidText(),
    asset_uuids: z.array(uuidText()),
    autodetect_studies: z.optional(z.nullable(z.boolean())),
    autodetect_projects: z.optional(z.nullable(z.boolean())),
  }),
);

const attributes = {
  ...uuidAttribute,
  // The options its requests carry: the template's, then those the order was made with.
  request_options: attr('R', requestOptions),
  submission_template_uuid: attr('W', uuidText, { transient: true, readsUuid: true }),
  submission_template_attributes: attr('W', templateAttributes, { transient: true }),
  project_uuid: uuidOfAttribute('project'),
  study_uuid: uuidOfAttribute('study'),
  ...timestamps,
};

const relationships = {
  // An order from a template joins its submission when the submission is made (order_uuids).
  submission: toOne('submissions', 'WO'),
  study: toOne('studies', 'WO'),
  project: toOne('projects', 'WO'),
  user: toOne('users', 'WO'),
  request_types: toMany('request_types', 'WO'),
};

type Input = WriteInput<typeof attributes, typeof relationships>;
type TemplateAttributes = z.infer<ReturnType<typeof templateAttributes>>;

const at = (...path: (string | number)[]) => pointer('data', 'attributes', TEMPLATE_ATTRIBUTES, ...path);

/** The request types of a template, in its order. */
export const templateRequestTypes = (ctx: WriteContext, template: StoredRecord): Promise<StoredRecord[]> =>
  requestTypesByKey(ctx, (template.attrs.request_type_keys as string[] | undefined) ?? []);

/** An asset named: the receptacle, and the studies of its aliquots. */
interface Asset {
  ref: Ref;
  studies: number[];
}

/**
 * The receptacles `asset_uuids` name, in one batched read: a well's or a tube receptacle's uuid, or a
 * tube's own (its receptacle, as the reference's Order#assets= takes it). An unknown uuid is a 404, a
 * uuid of anything else (a plate) or named twice a 422, each pointing at its place in the list.
 */
async function readAssets(ctx: WriteContext, uuids: readonly string[]): Promise<Asset[]> {
  if (uuids.length === 0)
    throw errors.invalidValue(at('asset_uuids'), `${TEMPLATE_ATTRIBUTES}.asset_uuids - can't be empty: name the wells or tubes to order work on`);
  if (uuids.length > MAX_ASSETS_PER_ORDER)
    throw errors.tooLarge(at('asset_uuids'), `${TEMPLATE_ATTRIBUTES}.asset_uuids - ${uuids.length} assets; one order may name at most ${MAX_ASSETS_PER_ORDER}`);
  const parsed = uuids.map((uuid) => parseSlotUuid(uuid));
  const labware = await ctx.loader.byUuids(
    uuids.map((uuid, i) => parsed[i]?.labwareUuid ?? uuid.toLowerCase()),
    ['plates', 'tubes'],
  );
  const seen = new Set<number>();
  const problems: JsonApiError[] = [];
  const assets = uuids.flatMap((uuid, i): Asset[] => {
    const record = labware[i];
    const slot = parsed[i]?.slot ?? (record?.type === 'tubes' ? 1 : undefined);
    const where = `${TEMPLATE_ATTRIBUTES}.asset_uuids - entry ${i}`;
    if (!record || slot === undefined || slot > labwareAttrs(record).receptacles.length) {
      if (record?.type === 'plates' && !parsed[i])
        problems.push(errors.invalidValue(at('asset_uuids', i), `${where}: ${uuid} is a plate, not a receptacle; name its wells`));
      else problems.push(errors.notFound(`${where}: no well, tube or receptacle with uuid ${show(uuid)}`, { pointer: at('asset_uuids', i) }));
      return [];
    }
    const ref: Ref = { type: receptacleType(record.type), id: slotId(record.id, slot) };
    if (seen.has(ref.id)) problems.push(errors.invalidValue(at('asset_uuids', i), `${where}: ${uuid} is named twice`));
    seen.add(ref.id);
    const studies = labwareAttrs(record).receptacles[slot - 1]!.aliquots.flatMap((a) => (a.study === null ? [] : [a.study]));
    return [{ ref, studies }];
  });
  if (problems.length > 0) throw JsonApiError.all(problems);
  return assets;
}

/** Refuses what a template supplies or an order from one cannot have: request types (the template's), a submission (joined later). */
function refuseTemplateConflicts(input: Input): void {
  for (const name of ['request_types', 'submission'] as const) {
    if (input.sent.has(name))
      throw errors.templateConflict(`Cannot provide '${name}' while also providing 'submission_template_uuid'.`, `/data/relationships/${name}`);
  }
}

/** An order made from a template (the reference's OrderProcessor, SubmissionTemplate#create_order!, AutomatedOrder). */
async function orderFromTemplate(ctx: WriteContext, input: Input, templateUuid: string): Promise<StoredRecord> {
  refuseTemplateConflicts(input);
  const given = input.attributes.submission_template_attributes as TemplateAttributes | null | undefined;
  if (!given) throw errors.missingRequired(`/data/attributes/${TEMPLATE_ATTRIBUTES}`, TEMPLATE_ATTRIBUTES);
  const [template, user] = await ctx.loader.byUuids([templateUuid, given.user_uuid], ['submission_templates', 'users']);
  const missing = [
    ...(template?.type === 'submission_templates'
      ? []
      : [errors.notFound(`submission_template_uuid - no submission_templates with uuid ${show(templateUuid)}`, { pointer: TEMPLATE_UUID })]),
    ...(user?.type === 'users'
      ? []
      : [errors.notFound(`${TEMPLATE_ATTRIBUTES}.user_uuid - no users with uuid ${show(given.user_uuid)}`, { pointer: at('user_uuid') })]),
  ];
  if (missing.length > 0) throw JsonApiError.all(missing);
  const [assets, requestTypes] = await Promise.all([readAssets(ctx, given.asset_uuids), templateRequestTypes(ctx, template!)]);
  // The reference's Order validates its request types' presence: a template without any orders nothing.
  if (requestTypes.length === 0)
    throw errors.invalidValue(
      TEMPLATE_UUID,
      `submission_template_uuid - template ${show(template!.attrs.name)} names no request types, so an order of it asks for no work`,
    );
  const options = { ...((template!.attrs.request_options as Record<string, unknown> | undefined) ?? {}), ...given.request_options };
  const optionProblems = [...requestOptionsProblems(options), ...multiplierProblems(requestTypes.map(chained), options.multiplier)].map((problem) => ({
    ...problem,
    input: ['request_options', ...problem.input],
  }));
  if (optionProblems.length > 0)
    throw JsonApiError.all(problemErrors(optionProblems, (path) => ({ pointer: at(...path), field: `${TEMPLATE_ATTRIBUTES}.${path.join('.')}` })));
  const named = input.relationships.study?.id ?? null;
  const study = accepted(
    detectStudy(
      named,
      assets.map((a) => a.studies),
      given.autodetect_studies ?? true,
    ),
    attributeAt,
  );
  return ctx.uow.create('orders', {
    attrs: { request_options: options, assets: assets.map((a): BookedRef => [a.ref.type, a.ref.id]) },
    rels: {
      submission: null,
      study: study === null ? null : { type: 'studies', id: study },
      project: input.relationships.project ? refOf(input.relationships.project) : null,
      user: refOf(user!),
      request_types: requestTypes.map(refOf),
    },
  });
}

/** An order for an existing submission, as before templates: `submission` and `study` named, its request types listed. */
function orderOfSubmission(ctx: WriteContext, input: Input): Promise<StoredRecord> {
  const missing = (['submission', 'study'] as const).flatMap((name) =>
    input.relationships[name] ? [] : [errors.missingRequired(`/data/relationships/${name}`, name)],
  );
  if (missing.length > 0) throw JsonApiError.all(missing);
  return defaultCreate(ctx, orders, input);
}

export const orders = defineResource({
  type: 'orders',
  methods: ['list', 'read', 'create'],
  attributes,
  relationships,
  indexes: { submission: aggregateIndex('submission') },
  filters: { uuid: uuidFilter },
  create: (ctx, input) => {
    const templateUuid = input.attributes.submission_template_uuid;
    return templateUuid ? orderFromTemplate(ctx, input, templateUuid) : orderOfSubmission(ctx, input);
  },
});

/** The request types of orders, each order's in its order (one batched read). */
export async function requestTypesOf(ctx: WriteContext, orders: readonly StoredRecord[]): Promise<Map<StoredRecord, StoredRecord[]>> {
  const records = await ctx.loader.load(orders.flatMap((o) => refsOf(o.rels.request_types)));
  return new Map(orders.map((o) => [o, refsOf(o.rels.request_types).flatMap((ref) => records.get(`${ref.type}:${ref.id}`) ?? [])]));
}
