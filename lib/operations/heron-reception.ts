import type { GivenBarcode } from '#lib/domain/barcode.ts';
import { heronReceptionItems, withinRequest } from '#lib/domain/budgets.ts';
import { layoutForSize, type Layout } from '#lib/domain/geometry.ts';
import { checkPlateEvents, generatedSangerSampleId, placeRecipients, planContents, type HeronSample, type SampleColumns } from '#lib/domain/heron.ts';
import { emptyReceptacles, type Aliquot, type Receptacle } from '#lib/domain/labware.ts';
import { rackSlot, rackState } from '#lib/domain/racks.ts';
import { refKey, refOf, type WriteContext } from '#lib/jsonapi/context.ts';
import { errors, JsonApiError, pointer, show } from '#lib/jsonapi/errors.ts';
import { accepted, attributeAt, problemErrors, throwProblems } from '#lib/jsonapi/problems.ts';
import { checkGivenBarcodes, createLabware, emptyTube, reserveLabware } from '#lib/operations/labware-factory.ts';
import { renderResource } from '#lib/jsonapi/render.ts';
import { linkOf, type StoredRecord } from '#lib/store/records.ts';
import { decodeUuid } from '#lib/store/uuids.ts';

/**
 * Heron reception (lib/resources/heron.ts; the reference's Heron::Factories::Plate and ::TubeRack): a plate,
 * or a rack of new tubes, received with its samples by coordinate. read → plan → write, one write:
 * readReception reads the purpose, the studies and existing samples named and checks the barcodes;
 * planReception checks the contents (lib/domain/heron.ts), their fields' values and the size of the write;
 * the write makes the samples, then the labware with an aliquot of each in its receptacle.
 */

/** The labware's attributes as the action's body gives them (`recipients` is its `wells` or `tubes`). */
export interface ReceptionInput {
  barcode?: string | null;
  purpose_uuid?: string | null;
  study_uuid?: string | null;
  recipients?: Readonly<Record<string, unknown>> | null;
  events?: readonly unknown[] | null;
}

/** What the reference answers about a reception: the labware, its purpose and its samples' studies' names. */
export interface Received {
  labware: StoredRecord;
  purpose: StoredRecord;
  studyNames: string[];
}

/** What differs between a plate and a rack: the purpose's type, the recipients' member, and how the labware is written. */
interface Kind {
  purposeType: 'plate_purposes' | 'tube_rack_purposes';
  field: 'wells' | 'tubes';
}
const PLATE: Kind = { purposeType: 'plate_purposes', field: 'wells' };
const RACK: Kind = { purposeType: 'tube_rack_purposes', field: 'tubes' };

const at = (...path: (string | number)[]) => pointer('data', 'attributes', ...path);

export async function receivePlate(ctx: WriteContext, input: ReceptionInput): Promise<Received> {
  const read = await readReception(ctx, PLATE, input);
  throwProblems(checkPlateEvents(input.events ?? []), attributeAt);
  const [[reserved], samples] = await Promise.all([reserveLabware(ctx, 1, false), writeSamples(ctx, read)]);
  const receptacles = fill(emptyReceptacles(read.layout.size), placedOf(read, samples), read.studies);
  const plate = await createLabware(
    ctx,
    'plates',
    {
      purpose: read.purpose,
      barcode: input.barcode!,
      size: read.layout.size,
      state: 'pending',
      receptacles: receptacles.receptacles,
      aliquotCount: receptacles.count,
    },
    reserved,
  );
  for (const given of input.events ?? []) addCherrypicking(ctx, plate, (given as { event: Record<string, unknown> }).event);
  return { labware: plate, purpose: read.purpose, studyNames: studyNames(receptacles.receptacles, read.studies) };
}

export async function receiveTubeRack(ctx: WriteContext, input: ReceptionInput): Promise<Received> {
  const read = await readReception(ctx, RACK, input);
  const keys = Object.keys(input.recipients!);
  const [reserved, samples] = await Promise.all([reserveLabware(ctx, 1 + keys.length, false), writeSamples(ctx, read)]);
  const [rackId, ...tubeIds] = reserved.map((r) => r.id);
  const racked = read.coordinates.map((coordinate, k) => ({ coordinate, tube: tubeIds[k]! }));
  const rack = await createLabware(
    ctx,
    'tube_racks',
    { purpose: read.purpose, barcode: input.barcode!, size: read.layout.size, state: rackState(racked.map(() => emptyTube().state)), receptacles: [], racked },
    { id: rackId! },
  );
  const tubes = await Promise.all(
    racked.map(({ coordinate, tube: id }, k) => {
      const mine = placedOf(read, samples).filter((p) => p.content.coordinate === coordinate);
      const filled = fill(emptyReceptacles(1), mine, read.studies, () => 1);
      const given = input.recipients![keys[k]!] as { barcode: string };
      return createLabware(
        ctx,
        'tubes',
        {
          purpose: read.tubePurposes[k],
          barcode: given.barcode,
          ...emptyTube(),
          receptacles: filled.receptacles,
          aliquotCount: filled.count,
          rackSlot: rackSlot(coordinate),
          tubeRack: refOf(rack),
        },
        { id },
      );
    }),
  );
  // The reference records each rack it makes as `created` (Heron::Factories::TubeRack#save).
  await ctx.uow.create('tube_rack_statuses', { attrs: { barcode: input.barcode!, status: 'created', messages: [] }, rels: { labware: refOf(rack) } });
  return {
    labware: rack,
    purpose: read.purpose,
    studyNames: studyNames(
      tubes.map((t) => (t.attrs.receptacles as Receptacle[])[0]!),
      read.studies,
    ),
  };
}

const placedOf = (read: ReceptionRead, samples: readonly StoredRecord[]): Placed[] => read.contents.map((content, k) => ({ content, sample: samples[k]! }));

/** What a reception reads and decides before writing. */
interface ReceptionRead {
  purpose: StoredRecord;
  layout: Layout;
  coordinates: string[];
  contents: HeronSample[];
  /** The studies and existing samples named, by uuid. */
  studies: Map<string, StoredRecord>;
  existing: Map<string, StoredRecord>;
  /** A rack's tubes' purposes, in the tubes' order (undefined where none is named). */
  tubePurposes: (StoredRecord | undefined)[];
}

async function readReception(ctx: WriteContext, kind: Kind, input: ReceptionInput): Promise<ReceptionRead> {
  const required: string[] = (['barcode', 'purpose_uuid'] as const).filter((name) => !input[name]);
  // A rack is made with its tubes (Heron::Factories::TubeRack validates `recipients`' presence).
  if (kind === RACK && Object.keys(input.recipients ?? {}).length === 0) required.push(kind.field);
  if (required.length > 0) throw JsonApiError.all(required.map((name) => errors.missingRequired(at(name), name)));
  const recipients = input.recipients ?? {};
  const keys = Object.keys(recipients);
  const tubeBarcodes = kind === RACK ? tubeBarcodesOf(recipients) : [];
  const [purpose, study] = await Promise.all([
    ctx.loader.byUuid(input.purpose_uuid!, [kind.purposeType]),
    input.study_uuid ? ctx.loader.byUuid(input.study_uuid, ['studies']) : undefined,
    checkGivenBarcodes(ctx, [{ barcode: input.barcode!, input: ['barcode'] }, ...tubeBarcodes]),
  ]);
  const unknown = [
    ...(purpose ? [] : [errors.invalidValue(at('purpose_uuid'), `purpose_uuid - no ${kind.purposeType} with uuid ${show(input.purpose_uuid)}`)]),
    ...(input.study_uuid && !study ? [errors.invalidValue(at('study_uuid'), `study_uuid - no study with uuid ${show(input.study_uuid)}`)] : []),
  ];
  if (unknown.length > 0) throw JsonApiError.all(unknown);
  const layout = layoutForSize(Number(purpose!.attrs.size ?? 96))!;
  const coordinates = accepted(placeRecipients(kind.field, keys, layout), attributeAt);
  const contents = accepted(planContents(kind.field, recipients, coordinates, layout, sampleColumns(ctx), input.study_uuid ?? undefined), attributeAt);
  checkFieldValues(ctx, contents);
  checkChosenUuids(ctx, contents);
  const newSamples = contents.filter((c) => c.existing === undefined).length;
  throwProblems(
    withinRequest(heronReceptionItems(1 + tubeBarcodes.length, newSamples), `${newSamples} new samples in ${keys.length} ${kind.field}`, [kind.field]),
    attributeAt,
  );
  const [named, tubePurposes] = await Promise.all([namedRecords(ctx, contents), kind === RACK ? tubePurposesOf(ctx, recipients) : []]);
  return { purpose: purpose!, layout, coordinates, contents, ...named, tubePurposes };
}

/** Each tube's barcode, which the reference requires (Heron::Factories::Tube, ForeignBarcodes). */
function tubeBarcodesOf(recipients: Readonly<Record<string, unknown>>): GivenBarcode[] {
  const missing: JsonApiError[] = [];
  const given = Object.entries(recipients).flatMap(([key, tube]) => {
    const barcode = (tube as { barcode?: unknown } | null)?.barcode;
    if (typeof barcode === 'string' && barcode.trim() !== '') return [{ barcode: barcode.trim(), input: ['tubes', key, 'barcode'] }];
    missing.push(errors.missingRequired(at('tubes', key, 'barcode'), `tubes.${key}.barcode`));
    return [];
  });
  if (missing.length > 0) throw JsonApiError.all(missing);
  return given;
}

/** The tube purposes a rack's tubes name (`purpose_uuid`, optional), in the tubes' order. */
async function tubePurposesOf(ctx: WriteContext, recipients: Readonly<Record<string, unknown>>): Promise<(StoredRecord | undefined)[]> {
  const named = Object.entries(recipients).map(([key, tube]) => ({ key, uuid: (tube as { purpose_uuid?: unknown }).purpose_uuid }));
  const asked = named.filter((n): n is { key: string; uuid: string } => typeof n.uuid === 'string');
  const found = await ctx.loader.byUuids(
    asked.map((n) => n.uuid),
    ['tube_purposes'],
  );
  const missing = asked.flatMap((n, i) =>
    found[i] ? [] : [errors.invalidValue(at('tubes', n.key, 'purpose_uuid'), `tubes.${n.key}.purpose_uuid - no tube_purposes with uuid ${show(n.uuid)}`)],
  );
  if (missing.length > 0) throw JsonApiError.all(missing);
  return named.map((n) => (typeof n.uuid === 'string' ? found[asked.findIndex((a) => a.key === n.key)] : undefined));
}

/** The fields a content may set: the writable attributes of samples and of sample metadata, as the API takes them. */
function sampleColumns(ctx: WriteContext): SampleColumns {
  const writable = (type: string) =>
    new Set(
      Object.entries(ctx.registry.require(type).attributes)
        .filter(([name, a]) => a.access.includes('W') && name !== 'uuid')
        .map(([name]) => name),
    );
  return { sample: writable('samples'), metadata: writable('sample_metadata') };
}

/** Each field's value as the samples' and metadata's own schemas take it (a POST of them would refuse the same). */
function checkFieldValues(ctx: WriteContext, contents: readonly HeronSample[]): void {
  const problems: JsonApiError[] = [];
  const check = (type: string, content: HeronSample, fields: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(fields)) {
      if (value === null) continue;
      const result = ctx.registry.require(type).attributes[name]!.schema.safeParse(value);
      if (result.success) fields[name] = result.data;
      else
        problems.push(
          errors.invalidValue(at(...content.input, name), `${[...content.input, name].join('.')} - ${result.error.issues[0]!.message}, got ${show(value)}`),
        );
    }
  };
  for (const content of contents) {
    check('samples', content, content.sample);
    check('sample_metadata', content, content.metadata);
  }
  if (problems.length > 0) throw JsonApiError.all(problems);
}

/**
 * A uuid a content chooses must not be of the form this service gives its own records (one that decodes
 * to a record's key, lib/store/uuids.ts): such a uuid is resolved by decoding, never by its alias entry.
 * A random uuid has that form about once in 10^9 (its last four digits 0000 and a family's code).
 */
function checkChosenUuids(ctx: WriteContext, contents: readonly HeronSample[]): void {
  const ours = contents.filter((c) => {
    const decoded = c.uuid === undefined ? undefined : decodeUuid(c.uuid);
    return decoded !== undefined && ctx.registry.familyOfCode(decoded.code) !== undefined;
  });
  if (ours.length > 0)
    throw JsonApiError.all(
      ours.map((c) =>
        errors.invalidValue(
          at(...c.input, 'uuid'),
          `${[...c.input, 'uuid'].join('.')} - ${show(c.uuid)} has the form of this service's own uuids; choose another`,
        ),
      ),
    );
}

/** The studies and existing samples the contents name (one batched read each), or a 422 at each content naming one that is not there. */
async function namedRecords(ctx: WriteContext, contents: readonly HeronSample[]) {
  const studyUuids = [...new Set(contents.flatMap((c) => (c.study ? [c.study] : [])))];
  const sampleUuids = [...new Set(contents.flatMap((c) => (c.existing ? [c.existing] : [])))];
  const [studies, samples] = await Promise.all([ctx.loader.byUuids(studyUuids, ['studies']), ctx.loader.byUuids(sampleUuids, ['samples'])]);
  const byUuid = (uuids: string[], records: (StoredRecord | undefined)[]) =>
    new Map(uuids.flatMap((uuid, i) => (records[i] ? [[uuid, records[i]!] as const] : [])));
  const found = { studies: byUuid(studyUuids, studies), existing: byUuid(sampleUuids, samples) };
  const missing = contents.flatMap((c) => [
    ...(c.study && !found.studies.has(c.study)
      ? [{ code: 'blank' as const, input: [...c.input, 'study_uuid'], detail: `no study with uuid ${show(c.study)}` }]
      : []),
    ...(c.existing && !found.existing.has(c.existing)
      ? [{ code: 'blank' as const, input: [...c.input, 'sample_uuid'], detail: `no sample with uuid ${show(c.existing)}` }]
      : []),
  ]);
  if (missing.length > 0) throw JsonApiError.all(problemErrors(missing, attributeAt));
  return found;
}

/**
 * The new samples, each with its metadata record and in its study; an existing one as it is. Their ids
 * are reserved at once (two ADDs, however many samples). A `uuid` a content gives is the sample's: its
 * alias entry (samples' `uuid` index, lib/jsonapi/resource.ts `uuidAliasIndex`) is written with it, so a
 * uuid another record has is a 422 naming it and nothing is written (docs/decisions.md, "Heron reception").
 */
async function writeSamples(ctx: WriteContext, read: ReceptionRead): Promise<StoredRecord[]> {
  const fresh = read.contents.filter((c) => c.existing === undefined);
  const [sampleIds, metadataIds, abbreviations] = await Promise.all([
    ctx.uow.allocateIds(ctx.registry.familyOf('samples'), fresh.length),
    ctx.uow.allocateIds(ctx.registry.familyOf('sample_metadata'), fresh.length),
    fresh.some((c) => c.sample.sanger_sample_id === undefined) ? studyAbbreviations(ctx, read.studies) : new Map<string, string>(),
  ]);
  let next = 0;
  return Promise.all(
    read.contents.map(async (content) => {
      if (content.existing !== undefined) return read.existing.get(content.existing)!;
      const k = next++;
      const { sanger_sample_id: given, ...attrs } = content.sample;
      const sanger = given ?? generatedSangerSampleId(abbreviations.get(content.study!), sampleIds[k]!);
      if (attrs.name === undefined && sanger !== undefined) attrs.name = sanger;
      const sample = await ctx.uow.create('samples', {
        id: sampleIds[k]!,
        ...(content.uuid === undefined ? {} : { uuid: content.uuid }),
        attrs: { ...attrs, ...(sanger === undefined ? {} : { site_sample_id: sanger }) },
        rels: { sample_metadata: { type: 'sample_metadata', id: metadataIds[k]! }, studies: [refOf(read.studies.get(content.study!)!)] },
      });
      await ctx.uow.create('sample_metadata', { id: metadataIds[k]!, attrs: content.metadata, rels: { sample: refOf(sample) } });
      return sample;
    }),
  );
}

/** Each study's abbreviation (its metadata's `study_name_abbreviation`), by the study's uuid as the contents name it; one batched read. */
async function studyAbbreviations(ctx: WriteContext, studies: ReadonlyMap<string, StoredRecord>): Promise<Map<string, string>> {
  const metadataOf = [...studies].flatMap(([uuid, study]) => {
    const ref = linkOf(study, 'study_metadata');
    return ref ? [{ uuid, ref }] : [];
  });
  const loaded = await ctx.loader.load(metadataOf.map((m) => m.ref));
  return new Map(
    metadataOf.flatMap(({ uuid, ref }) => {
      const abbreviation = loaded.get(refKey(ref))?.attrs.study_name_abbreviation;
      return typeof abbreviation === 'string' ? [[uuid, abbreviation] as const] : [];
    }),
  );
}

/** A content with the sample it names, made or found. */
interface Placed {
  content: HeronSample;
  sample: StoredRecord;
}

/** The receptacles with an aliquot of each placed sample in its slot (`slotOf`), in its content's study, and how many aliquots that is. */
function fill(receptacles: Receptacle[], placed: readonly Placed[], studies: ReadonlyMap<string, StoredRecord>, slotOf = (c: HeronSample) => c.slot) {
  let count = 0;
  for (const { content, sample } of placed) {
    const study = content.study ? studies.get(content.study)!.id : null;
    const aliquot: Aliquot = { n: ++count, sample: sample.id, study, tag: null, tag2: null, library_type: null };
    receptacles[slotOf(content) - 1]!.aliquots.push(aliquot);
  }
  return { receptacles, count };
}

/** The names of the studies of each receptacle's first aliquot, each once, in receptacle order (Heron::Factories::Plate#sample_study_names). */
function studyNames(receptacles: readonly Receptacle[], studies: ReadonlyMap<string, StoredRecord>): string[] {
  const byId = new Map([...studies.values()].map((s) => [s.id, String(s.attrs.name)]));
  return [...new Set(receptacles.flatMap((r) => (r.aliquots[0]?.study ? [byId.get(r.aliquots[0].study)!] : [])))];
}

/** A cherrypicking given with the plate: an event of the plate carrying what the client sent (lib/events/schema.ts, ACTION_EVENTS). */
function addCherrypicking(ctx: WriteContext, plate: StoredRecord, event: Record<string, unknown>): void {
  ctx.uow.addEvent({
    type: 'plates.cherrypicked',
    resource: { type: plate.type, id: String(plate.id), uuid: plate.uuid, version: plate.version },
    data: { ...renderResource(ctx, plate, new Map()), meta: { event } },
    actor: { api_key: ctx.apiKey?.name ?? null, user: null },
  });
}
